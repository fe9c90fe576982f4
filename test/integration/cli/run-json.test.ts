/**
 * `assay run --json`: stdout is one JSON object — the run's id, status, run type, paths and its result
 * document — with every insight carrying its claim and validation (the output contract, docs/api.md
 * "Insights"); the progress display and the notices stay off stdout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { expectInsightContract } from '../../support/insight-contract.js';
import { runCli } from '../../support/run-cli.js';
import { tempDir } from '../../support/temp-dir.js';

let warehouse: string;

beforeAll(async () => {
  warehouse = join(tempDir('assay-run-json-'), 'gaming.duckdb');
  await generateDemoWarehouse({ kind: 'gaming', out: warehouse, scale: 0.2, truths: false });
}, 60_000);

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('when assay run is asked for JSON', () => {
  it('prints only the outcome and the result document, every insight with its claim and validation', async () => {
    const dir = tempDir('assay-run-json-out-');
    vi.stubEnv('ASSAY_DATA_DIR', join(dir, 'data'));
    // no --pack: the notice naming the chosen pack must go to stderr, not into the JSON
    const outcome = await runCli(['run', '--warehouse', `duckdb:${warehouse}`, '--max-steps', '6', '--json', '--out', join(dir, 'out')]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const printed = JSON.parse(outcome.stdout);
    expect(printed).toMatchObject({ run_id: expect.stringMatching(/^run-/), status: 'completed' });
    expect(['full', 'partial']).toContain(printed.run_type);
    expect(existsSync(printed.report_path)).toBe(true);
    // the same document as result.json
    expect(printed.result).toEqual(JSON.parse(readFileSync(join(printed.output_dir, 'result.json'), 'utf8')));
    expect(printed.result.run_id).toBe(printed.run_id);
    expectInsightContract(printed.result.insights, 'assay run --json');
  }, 120_000);
});
