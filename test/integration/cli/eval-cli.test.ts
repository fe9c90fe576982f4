/**
 * `assay eval --kind` builds its demo warehouse and store in a temporary directory and removes it
 * when the score is out; the run's artefacts go to --out, where the printed report path points.
 * With --json, both `--kind` and `--insightbench` list the run's insights with their claim and
 * validation (the output contract, docs/api.md "Insights").
 */
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { expectInsightContract } from '../../support/insight-contract.js';
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

describe('when assay eval prints JSON', () => {
  it('a demo evaluation lists every insight with its claim and validation beside the score', async () => {
    const out = tempDir('assay-json-eval-demo-');
    const outcome = await runCli(['eval', '--kind', 'gaming', '--max-steps', '6', '--json', '--out', out]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const printed = JSON.parse(outcome.stdout);
    expect(printed).toMatchObject({ kind: 'gaming', run_id: expect.stringMatching(/^run-/) });
    expect(printed.insights).toHaveLength(printed.insights_total);
    expect(printed.recall).toEqual(expect.any(Number));
    expectInsightContract(printed.insights, 'assay eval --kind --json');
  }, 120_000);

  it('an InsightBench evaluation lists its insights with claim and validation, and the honest score beside its baseline', async () => {
    const flag = fileURLToPath(new URL('../../fixtures/insightbench/flag-14.json', import.meta.url));
    const out = tempDir('assay-json-eval-insightbench-');
    const outcome = await runCli(['eval', '--insightbench', flag, '--max-steps', '8', '--json', '--out', out]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const printed = JSON.parse(outcome.stdout);
    expectInsightContract(printed.insights, 'assay eval --insightbench --json');
    expect(printed.scores).toMatchObject({
      rouge1_recall_mean: expect.any(Number),
      template_baseline: { rouge1_recall_mean: expect.any(Number) },
      lift: { difference: expect.any(Number) },
      raw: { rouge1_recall_mean: expect.any(Number) },
    });
  }, 120_000);
});
