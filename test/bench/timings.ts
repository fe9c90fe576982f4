/**
 * `npm run bench -- timings`: the speed checks that used to be assertions in tests (machines here are
 * noisy, so a test must not fail on a slow run). Each row is a median of warmed runs, printed and
 * written to `bench-results/timings.json`, next to the limit the test once asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Table from 'cli-table3';
import { estimateTokens } from '../../src/llm/tokens.js';
import { renderCatalog } from '../../src/schema/catalog.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { buildCalibrationCorpus } from '../unit/llm/tokens-corpus.js';
import { table } from '../unit/schema/fixtures.js';
import { type Bench, medianTime, round, writeBenchResult } from './bench.js';

interface TimingRow {
  measure: string;
  median_ms: number;
  /** What the old test asserted, kept as the reference the number is read against. */
  former_limit_ms: number;
}

async function timeOnce(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export const timingsBench: Bench = {
  name: 'timings',
  description: 'token estimation of 1 MB, a 20,000-table catalog, demo warehouse generation',
  async run() {
    const rows: TimingRow[] = [];
    const text = buildCalibrationCorpus(25, 7)
      .map((sample) => sample.text)
      .join('\n')
      .repeat(2)
      .slice(0, 1_000_000);
    rows.push({
      measure: 'estimateTokens, 1 MB of mixed text',
      median_ms: medianTime(9, () => estimateTokens(text, 'anthropic')).ms,
      former_limit_ms: 100,
    });

    const wide = Array.from({ length: 20_000 }, (_, index) =>
      table(`s${index % 7}.table_${index}`, ['id', 'customer_id', 'amount'], index * 13),
    );
    rows.push({
      measure: 'renderCatalog, 20,000 tables, 50k-token budget',
      median_ms: medianTime(3, () => renderCatalog(wide, { budgetTokens: 50_000 })).ms,
      former_limit_ms: 5_000,
    });

    const workDir = await mkdtemp(join(tmpdir(), 'assay-bench-timings-'));
    try {
      for (const kind of ['ecommerce', 'gaming', 'social'] as const) {
        const ms = await timeOnce(() => generateDemoWarehouse({ kind, out: join(workDir, `${kind}.duckdb`) }));
        rows.push({ measure: `demo-data ${kind}, scale 1`, median_ms: round(ms, 1), former_limit_ms: 15_000 });
      }
      const erpMs = await timeOnce(() => generateDemoWarehouse({ kind: 'erp', out: join(workDir, 'erp.duckdb') }));
      rows.push({ measure: 'demo-data erp, 1,500 tables', median_ms: round(erpMs, 1), former_limit_ms: 45_000 });
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }

    const printed = new Table({ head: ['measure', 'median ms', 'former test limit ms', 'share of limit'] });
    for (const row of rows)
      printed.push([row.measure, row.median_ms, row.former_limit_ms, `${round((100 * row.median_ms) / row.former_limit_ms, 1)} %`]);
    process.stdout.write(`${printed.toString()}\n`);
    process.stdout.write(`wrote ${writeBenchResult('timings', { rows })}\n`);
  },
};
