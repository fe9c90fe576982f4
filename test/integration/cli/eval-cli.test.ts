/**
 * `assay eval --kind` builds its demo warehouse and store in a temporary directory and removes it
 * when the score is out; the run's artefacts go to --out, where the printed report path points.
 */
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';
import { tempDir } from '../../support/temp-dir.js';

const evalDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('assay-eval-'));

describe('when assay eval scores a demo run', () => {
  it('leaves nothing in TMPDIR and writes the report under --out', async () => {
    const out = join(tempDir('assay-eval-out-'), 'reports');
    const before = evalDirs();
    const outcome = await runCli(['eval', '--kind', 'gaming', '--max-steps', '6', '--out', out]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = /^report: (.+)$/m.exec(outcome.stdout)?.[1];
    expect(report?.startsWith(out)).toBe(true);
    expect(existsSync(report!)).toBe(true);
    expect(evalDirs()).toEqual(before);
  }, 120_000);

  it('refuses --max-steps outside the API limits before building anything', async () => {
    const before = evalDirs();
    const outcome = await runCli(['eval', '--kind', 'gaming', '--max-steps', '0']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--max-steps must be a whole number from 1 to 500, got "0"');
    expect(evalDirs()).toEqual(before);
  });
});
