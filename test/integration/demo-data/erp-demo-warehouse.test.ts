import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checksumDemoWarehouse,
  generateDemoWarehouse,
  readDemoTruths,
  verifyDemoTruths,
  type DemoWarehouseSummary,
} from '../../../src/demo/index.js';

/** The ERP demo builds 1,500 tables; on a loaded 2-core machine one generation can take ~15 s. */
const ERP_TIMEOUT_MS = 90_000;

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'assay-demo-erp-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function rowsOf(summary: DemoWarehouseSummary, name: string): number {
  return summary.tables.find((table) => table.name === name)?.rows ?? -1;
}

describe('when the ERP demo is generated at full size', () => {
  let summary: DemoWarehouseSummary;
  beforeAll(async () => {
    summary = await generateDemoWarehouse({ kind: 'erp', out: join(workDir, 'erp.duckdb') });
    const rows = summary.tables.reduce((sum, table) => sum + table.rows, 0);
    const megabytes = (await stat(summary.path)).size / 1e6;
    console.log(
      `[demo-data] erp scale 1: ${summary.tables.length} tables, ${rows} rows, ${megabytes.toFixed(0)} MB in ${summary.elapsedMs} ms`,
    );
  }, ERP_TIMEOUT_MS);

  it('holds at least 1,500 tables across several named schemas and none in main', () => {
    expect(summary.tables.length).toBeGreaterThanOrEqual(1500);
    const schemas = new Set(summary.tables.map((table) => table.name.split('.')[0]));
    expect(schemas.has('main')).toBe(false);
    for (const schema of ['finance', 'sales', 'inventory', 'hr', 'procurement', 'logistics', 'staging', 'archive'])
      expect(schemas.has(schema)).toBe(true);
  });

  it('has at least three tables with 100k+ rows, while nearly all others are small or empty', () => {
    const big = summary.tables.filter((table) => table.rows >= 100_000).map((table) => table.name);
    expect(big).toEqual(expect.arrayContaining(['sales.order_lines', 'finance.gl_entries', 'inventory.stock_movements']));
    const small = summary.tables.filter((table) => table.rows <= 100).length;
    expect(small / summary.tables.length).toBeGreaterThan(0.95);
    expect(summary.tables.filter((table) => table.rows === 0).length).toBeGreaterThan(300);
  });

  it("passes every planted pattern's check when re-run read-only", async () => {
    const truths = await readDemoTruths(summary.truthsPath!);
    const results = await verifyDemoTruths(summary.path, truths);
    expect(results.map((result) => [result.id, result.passed])).toEqual(truths.patterns.map((pattern) => [pattern.id, true]));
    expect(results).toHaveLength(3);
  });
});

describe('when the ERP demo is generated twice at a reduced scale', () => {
  let first: DemoWarehouseSummary;
  let second: DemoWarehouseSummary;
  beforeAll(async () => {
    first = await generateDemoWarehouse({ kind: 'erp', out: join(workDir, 'erp-small-a.duckdb'), scale: 0.1 });
    second = await generateDemoWarehouse({ kind: 'erp', out: join(workDir, 'erp-small-b.duckdb'), scale: 0.1 });
    console.log(`[demo-data] erp scale 0.1: ${first.tables.length} tables in ${first.elapsedMs} ms`);
  }, ERP_TIMEOUT_MS);

  it('keeps all 1,500 tables and shrinks the big ones by the scale', () => {
    expect(first.tables.length).toBe(1500);
    expect(rowsOf(first, 'finance.gl_entries')).toBe(25_000);
    expect(rowsOf(first, 'inventory.stock_movements')).toBe(15_000);
  });

  it(
    'holds identical rows in every table',
    async () => {
      const [checksumsA, checksumsB] = await Promise.all([checksumDemoWarehouse(first.path), checksumDemoWarehouse(second.path)]);
      expect(Object.keys(checksumsA)).toHaveLength(1500);
      expect(checksumsB).toEqual(checksumsA);
    },
    ERP_TIMEOUT_MS,
  );
});
