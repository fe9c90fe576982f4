/**
 * The verifier against claims whose truth is known. On the three demo warehouses, true claims of every
 * kind (rates, means, medians, counts and shares, durations, sums, calendar segments, time windows,
 * trends, shifts, correlations) are measured by the corpus's own SQL and must be confirmed; false ones
 * (reversed, inflated, wrong or erased comparison values, empty segments, another metric, effects that
 * are not significant, trends on noise, correlations of independent columns) must be rejected or
 * adjusted. A held-out corpus on other data — public tables loaded from CSV — checks that the result
 * is not a property of the demo generator. Each corpus prints its table per category.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimCheckOutcome, checkClaim } from '../../../src/discovery/claims/check-claim.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';
import { DEMO_CORPUS } from '../../fixtures/claims/demo-corpus.js';
import { HELD_OUT_CORPUS, HELD_OUT_TABLES } from '../../fixtures/claims/held-out-corpus.js';
import { type CorpusClaim, type CorpusEntry, type Measured, expandCorpus } from '../../support/claim-corpus.js';

/** The engine's default minimum support (config `mining.minSupport`). */
const MIN_SUPPORT = 10;
/** A true claim's own statistic must be at least this far from zero, a noise claim's below NOISE_STATISTIC. */
const TRUE_STATISTIC = 3;
const NOISE_STATISTIC = 1.9;
const REQUIRED_SHARE = 0.95;

interface CheckedClaim extends CorpusClaim {
  outcome: ClaimCheckOutcome;
}

interface Source {
  raw: DuckDBInstance;
  warehouse: Warehouse;
  tables: TableSchema[];
}

async function openSource(path: string): Promise<Source> {
  // the corpus's own numbers come from a connection of their own, never through the engine's warehouse
  const raw = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const warehouse = await openWarehouse(`duckdb:${path}`);
  const catalog = await warehouse.describeCatalog?.();
  if (!catalog) throw new Error('the DuckDB warehouse describes its catalog');
  return { raw, warehouse, tables: catalog.map((table) => ({ ...table, samples: [] })) };
}

async function measureIn(source: Source, sql: string): Promise<Measured> {
  const connection = await source.raw.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    const row = reader.getRowObjectsJS()[0];
    if (!row) throw new Error(`no row from ${sql}`);
    return row as Measured;
  } finally {
    connection.closeSync();
  }
}

async function checkCorpus(entries: readonly CorpusEntry[], sources: Map<string, Source>): Promise<CheckedClaim[]> {
  const sourceOf = (name: string) => {
    const source = sources.get(name);
    if (!source) throw new Error(`no warehouse "${name}"`);
    return source;
  };
  const claims = await expandCorpus(entries, (name, sql) => measureIn(sourceOf(name), sql));
  const checked: CheckedClaim[] = [];
  for (const item of claims) {
    const source = sourceOf(item.warehouse);
    const outcome = await checkClaim({
      warehouse: source.warehouse,
      tables: source.tables,
      claim: item.claim,
      minSupport: MIN_SUPPORT,
      timeoutMs: 60_000,
    });
    checked.push({ ...item, outcome });
  }
  return checked;
}

const caught = (item: CheckedClaim) => item.outcome.status === 'rejected' || item.outcome.status === 'adjusted';
const passed = (item: CheckedClaim) => (item.truth ? item.outcome.status === 'confirmed' : caught(item));

/** The per-category table (and every miss with the verifier's reasoning), as the test log shows it. */
function report(title: string, checked: readonly CheckedClaim[]): string {
  const statuses = ['confirmed', 'adjusted', 'rejected', 'unverified', 'error'] as const;
  const rows: string[][] = [];
  for (const truth of [true, false]) {
    const categories = [...new Set(checked.filter((item) => item.truth === truth).map((item) => item.category))];
    for (const category of categories) {
      const items = checked.filter((item) => item.truth === truth && item.category === category);
      rows.push([
        truth ? 'true' : 'false',
        category,
        String(items.length),
        ...statuses.map((status) => String(items.filter((item) => item.outcome.status === status).length)),
        `${items.filter(passed).length}/${items.length}`,
      ]);
    }
  }
  const summary = (truth: boolean) => {
    const items = checked.filter((item) => item.truth === truth);
    const good = items.filter(passed).length;
    return `${truth ? 'true claims confirmed' : 'false claims rejected or adjusted'}: ${good}/${items.length} (${((100 * good) / Math.max(1, items.length)).toFixed(1)}%)`;
  };
  const head = ['truth', 'category', 'claims', ...statuses, 'as expected'];
  const widths = head.map((cell, index) => Math.max(cell.length, ...rows.map((row) => (row[index] as string).length)));
  const line = (cells: readonly string[]) => cells.map((cell, index) => cell.padEnd(widths[index] as number)).join('  ');
  const misses = checked
    .filter((item) => !passed(item))
    .map((item) => `  miss: ${item.id} → ${item.outcome.status}: ${item.outcome.reasoning}`);
  return [`${title}`, line(head), ...rows.map(line), summary(true), summary(false), ...misses].join('\n');
}

function fixtureProblems(checked: readonly CheckedClaim[]): string[] {
  const problems: string[] = [];
  for (const item of checked) {
    if (item.id.includes('[')) continue;
    const size = Math.abs(item.statistic);
    if (item.truth && !(size >= TRUE_STATISTIC))
      problems.push(`${item.id}: a true claim whose own statistic is ${item.statistic.toFixed(2)}`);
    const tiny = item.category.includes('tiny segment') && (item.segmentRows ?? Number.POSITIVE_INFINITY) < MIN_SUPPORT;
    if (!item.truth && !tiny && !(size < NOISE_STATISTIC))
      problems.push(`${item.id}: a noise claim whose own statistic is ${item.statistic.toFixed(2)}`);
  }
  return problems;
}

function share(items: readonly CheckedClaim[]): number {
  return items.filter(passed).length / items.length;
}

describe('when the verifier checks the demo corpus', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-claim-corpus-'));
  const sources = new Map<string, Source>();
  let checked: CheckedClaim[] = [];

  beforeAll(async () => {
    for (const kind of ['ecommerce', 'gaming', 'social'] as const) {
      const { path } = await generateDemoWarehouse({ kind, out: join(dir, `${kind}.duckdb`) });
      sources.set(kind, await openSource(path));
    }
    checked = await checkCorpus(DEMO_CORPUS, sources);
    console.log(report('claim corpus on the demo warehouses', checked));
  }, 300_000);

  afterAll(async () => {
    for (const source of sources.values()) {
      await source.warehouse.close();
      source.raw.closeSync();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds at least 40 true and 40 false claims, each true one significant and each noise one not by its own statistic', () => {
    expect(checked.filter((item) => item.truth).length).toBeGreaterThanOrEqual(40);
    expect(checked.filter((item) => !item.truth).length).toBeGreaterThanOrEqual(40);
    expect(fixtureProblems(checked)).toEqual([]);
  });

  it('confirms at least 95% of the true claims', () => {
    expect(share(checked.filter((item) => item.truth))).toBeGreaterThanOrEqual(REQUIRED_SHARE);
  });

  it('rejects or adjusts at least 95% of the false claims', () => {
    expect(share(checked.filter((item) => !item.truth))).toBeGreaterThanOrEqual(REQUIRED_SHARE);
  });
});

/** The development tables of other kinds beside the project (public data); `ASSAY_TABLES_DIR` points elsewhere. */
const tablesDir = resolve(process.env.ASSAY_TABLES_DIR ?? fileURLToPath(new URL('../../../../shared/data/tables/', import.meta.url)));
const heldOutAvailable = HELD_OUT_TABLES.every((table) => existsSync(join(tablesDir, table.file)));
if (!heldOutAvailable) console.log(`skipped the held-out claim corpus: no CSV tables in ${tablesDir} (set ASSAY_TABLES_DIR)`);

describe.skipIf(!heldOutAvailable)('when the verifier checks the held-out corpus on other data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-claim-held-out-'));
  const sources = new Map<string, Source>();
  let checked: CheckedClaim[] = [];

  beforeAll(async () => {
    const path = join(dir, 'tables.duckdb');
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    for (const table of HELD_OUT_TABLES)
      await connection.run(
        `CREATE TABLE main.${table.name} AS SELECT * FROM read_csv('${join(tablesDir, table.file).replace(/'/g, "''")}', header = true)`,
      );
    connection.closeSync();
    instance.closeSync();
    sources.set('tables', await openSource(path));
    checked = await checkCorpus(HELD_OUT_CORPUS, sources);
    console.log(report('held-out claim corpus on public tables', checked));
  }, 300_000);

  afterAll(async () => {
    for (const source of sources.values()) {
      await source.warehouse.close();
      source.raw.closeSync();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds true and false claims, each true one significant and each noise one not by its own statistic', () => {
    expect(checked.filter((item) => item.truth).length).toBeGreaterThanOrEqual(20);
    expect(checked.filter((item) => !item.truth).length).toBeGreaterThanOrEqual(20);
    expect(fixtureProblems(checked)).toEqual([]);
  });

  it('confirms at least 95% of the true claims', () => {
    expect(share(checked.filter((item) => item.truth))).toBeGreaterThanOrEqual(REQUIRED_SHARE);
  });

  it('rejects or adjusts at least 95% of the false claims', () => {
    expect(share(checked.filter((item) => !item.truth))).toBeGreaterThanOrEqual(REQUIRED_SHARE);
  });
});
