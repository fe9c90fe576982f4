import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../../../src/errors/index.js';
import {
  checksumDemoWarehouse,
  generateDemoWarehouse,
  readDemoTruths,
  verifyDemoTruths,
  type DemoKind,
  type DemoWarehouseSummary,
} from '../../../src/demo/index.js';

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'assay-demo-data-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function reportTime(label: string, summary: DemoWarehouseSummary): void {
  const rows = summary.tables.reduce((sum, table) => sum + table.rows, 0);
  console.log(`[demo-data] ${label}: ${summary.tables.length} tables, ${rows} rows in ${summary.elapsedMs} ms`);
}

describe('when the ecommerce demo is generated twice with the same seed', () => {
  let first: DemoWarehouseSummary;
  let second: DemoWarehouseSummary;
  beforeAll(async () => {
    first = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop-a.duckdb'), seed: 42 });
    second = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop-b.duckdb'), seed: 42 });
    reportTime('ecommerce scale 1', first);
  });

  it('holds identical rows in every table', async () => {
    const [checksumsA, checksumsB] = await Promise.all([checksumDemoWarehouse(first.path), checksumDemoWarehouse(second.path)]);
    expect(Object.keys(checksumsA)).toHaveLength(first.tables.length);
    expect(checksumsB).toEqual(checksumsA);
  });

  it('writes a byte-identical truths file', async () => {
    const [truthsA, truthsB] = await Promise.all([readFile(first.truthsPath!, 'utf8'), readFile(second.truthsPath!, 'utf8')]);
    expect(truthsB).toBe(truthsA);
  });

  it('reports the same tables and row counts', () => {
    expect(second.tables).toEqual(first.tables);
  });

  it('produces different data with another seed', async () => {
    const other = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop-seed7.duckdb'), seed: 7 });
    const [checksumsA, checksumsOther] = await Promise.all([checksumDemoWarehouse(first.path), checksumDemoWarehouse(other.path)]);
    expect(checksumsOther['main.customers']).not.toBe(checksumsA['main.customers']);
    expect(checksumsOther['main.orders']).not.toBe(checksumsA['main.orders']);
    // reference tables are literal, not random
    expect(checksumsOther['main.marketing_channels']).toBe(checksumsA['main.marketing_channels']);
  });

  it('is sized as documented: ~5k customers, ~30k+ sessions, ~12k orders, 200 products', () => {
    const rows = Object.fromEntries(first.tables.map((table) => [table.name, table.rows]));
    expect(rows['main.customers']).toBe(5000);
    expect(rows['main.products']).toBe(200);
    expect(rows['main.sessions']).toBeGreaterThan(30_000);
    expect(rows['main.orders']).toBeGreaterThan(10_000);
    expect(rows['main.order_items']).toBeGreaterThan(rows['main.orders'] ?? 0);
    expect(rows['main.refunds']).toBeGreaterThan(500);
  });

  it('keeps the tables in the main schema', () => {
    for (const table of first.tables) expect(table.name.startsWith('main.')).toBe(true);
  });

  it('scales entity counts with --scale', async () => {
    const half = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop-half.duckdb'), seed: 42, scale: 0.5 });
    const customers = half.tables.find((table) => table.name === 'main.customers');
    expect(customers?.rows).toBe(2500);
  });
});

describe.each<[DemoKind]>([['ecommerce'], ['gaming'], ['social']])('when the %s demo is generated at its documented size', (kind) => {
  let summary: DemoWarehouseSummary;
  beforeAll(async () => {
    summary = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}-truths.duckdb`) });
    reportTime(`${kind} scale 1`, summary);
  });

  it('writes a truths file that matches the truths schema, next to the data', async () => {
    expect(summary.truthsPath).toBe(`${summary.path}.truths.json`);
    const truths = await readDemoTruths(summary.truthsPath!);
    expect(truths.kind).toBe(kind);
    expect(truths.seed).toBe(42);
    expect(truths.patterns.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(truths)).not.toMatch(/generated_at/);
  });

  it("passes every planted pattern's check when re-run read-only against the file", async () => {
    const truths = await readDemoTruths(summary.truthsPath!);
    const results = await verifyDemoTruths(summary.path, truths);
    expect(results.map((result) => [result.id, result.passed])).toEqual(truths.patterns.map((pattern) => [pattern.id, true]));
    for (const [index, result] of results.entries()) expect(result.numbers).toEqual(truths.patterns[index]?.evidence_numbers);
  });

  it('names only tables that exist in the warehouse', async () => {
    const truths = await readDemoTruths(summary.truthsPath!);
    const existing = new Set(summary.tables.map((table) => table.name));
    for (const pattern of truths.patterns) for (const table of pattern.tables) expect(existing.has(table)).toBe(true);
  });
});

describe.each<[DemoKind]>([['gaming'], ['social']])('when the %s demo is generated twice at a reduced scale', (kind) => {
  it('holds identical rows in every table', async () => {
    const first = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}-a.duckdb`), seed: 5, scale: 0.25 });
    const second = await generateDemoWarehouse({ kind, out: join(workDir, `${kind}-b.duckdb`), seed: 5, scale: 0.25 });
    const [checksumsA, checksumsB] = await Promise.all([checksumDemoWarehouse(first.path), checksumDemoWarehouse(second.path)]);
    expect(checksumsB).toEqual(checksumsA);
    expect(Object.keys(checksumsA).length).toBeGreaterThanOrEqual(5);
  });
});

describe('when the output file already exists', () => {
  it('refuses to overwrite it without overwrite: true and leaves it untouched', async () => {
    const out = join(workDir, 'existing.duckdb');
    const created = await generateDemoWarehouse({ kind: 'social', out, scale: 0.2 });
    const before = await stat(created.path);
    await expect(generateDemoWarehouse({ kind: 'social', out, scale: 0.2 })).rejects.toBeInstanceOf(ConflictError);
    expect((await stat(created.path)).mtimeMs).toBe(before.mtimeMs);
  });

  it('replaces it with overwrite: true', async () => {
    const out = join(workDir, 'replaced.duckdb');
    await generateDemoWarehouse({ kind: 'gaming', out, scale: 0.2 });
    const replaced = await generateDemoWarehouse({ kind: 'gaming', out, scale: 0.3, overwrite: true });
    expect(replaced.tables.find((table) => table.name === 'main.players')?.rows).toBe(2400);
    expect((await readDemoTruths(replaced.truthsPath!)).scale).toBe(0.3);
  });
});

describe('when the options are invalid', () => {
  it('rejects an unknown kind, a negative seed and an out-of-range scale with ValidationError', async () => {
    const out = join(workDir, 'never.duckdb');
    await expect(generateDemoWarehouse({ kind: 'retail' as DemoKind, out })).rejects.toBeInstanceOf(ValidationError);
    await expect(generateDemoWarehouse({ kind: 'ecommerce', out, seed: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(generateDemoWarehouse({ kind: 'ecommerce', out, scale: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(stat(out)).rejects.toThrow();
  });
});
