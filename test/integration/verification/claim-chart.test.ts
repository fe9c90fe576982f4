/**
 * A claim's chart computed by the verifier on real warehouses, with SQL it builds from the claim: the
 * same table in DuckDB and in a throwaway PostgreSQL gives the same chart, and each chart's numbers
 * are the ones a hand-written query measures. PostgreSQL is skipped, with the reason, when no server
 * can be started here.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClaim } from '../../../src/discovery/claims/check-claim.js';
import { type Claim, type ClaimChart, claimSchema } from '../../../src/domain/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';
import { startTestPostgres } from '../../support/postgres.js';
import { tempDir } from '../../support/temp-dir.js';

const postgres = await startTestPostgres();
if (!postgres.available) console.log(`skipping the PostgreSQL half of the claim-chart test: ${postgres.reason}`);

/**
 * 720 visits over 2024: device by i % 3 (every 40th visit has none), desktop converting 1 in 5 and the
 * others 1 in 2; visits double from July; amount = 10 + i % 50, two visits of 5,000; pages track amount.
 */
const VISITS = `
  SELECT i AS id,
         CASE WHEN i % 40 = 0 THEN NULL WHEN i % 3 = 0 THEN 'desktop' WHEN i % 3 = 1 THEN 'mobile' ELSE 'tablet' END AS device,
         CASE WHEN i % 3 = 0 THEN i % 5 = 0 ELSE i % 2 = 0 END AS converted,
         CAST(DATE '2024-01-01' + CAST(floor(CASE WHEN i <= 240 THEN (i - 1) * 181 / 240 ELSE 182 + (i - 241) * 183 / 480 END) AS INTEGER) AS TIMESTAMP) AS visited_at,
         CAST(CASE WHEN i IN (100, 500) THEN 5000 ELSE 10 + i % 50 END AS DOUBLE PRECISION) AS amount,
         CAST(2 + floor((i % 50) / 5) AS DOUBLE PRECISION) AS pages
  FROM generate_series(1, 720) AS s(i)`;

let duck: Warehouse;
let duckTables: TableSchema[];
let pgWarehouse: Warehouse | undefined;
let pgTables: TableSchema[] = [];

beforeAll(async () => {
  const path = join(tempDir('assay-claim-chart-'), 'visits.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE visits AS ${VISITS}`);
  connection.closeSync();
  instance.closeSync();
  duck = await openWarehouse(`duckdb:${path}`);
  duckTables = await discoverSchema(duck);
  if (postgres.available) {
    const admin = new pg.Client({ connectionString: postgres.server.adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE TABLE public.visits AS ${VISITS}`);
      await admin.query('GRANT SELECT ON public.visits TO assay_reader');
    } finally {
      await admin.end();
    }
    pgWarehouse = await openWarehouse(postgres.server.readerUrl);
    pgTables = await discoverSchema(pgWarehouse);
  }
}, 120_000);

afterAll(async () => {
  await duck?.close();
  await pgWarehouse?.close();
  if (postgres.available) await postgres.server.stop();
});

function claim(overrides: Record<string, unknown>): Claim {
  return claimSchema.parse({
    kind: 'difference',
    metric: { kind: 'rate', table: 'visits', condition: { column: 'converted', op: '=', value: true }, label: 'conversion rate' },
    segment: { column: 'device', value: 'desktop', label: 'device' },
    comparison: { kind: 'rest' },
    value: 0.2,
    comparison_value: 0.5,
    direction: 'lower',
    noun: 'visits',
    ...overrides,
  });
}

async function chartOn(warehouse: Warehouse, tables: TableSchema[], subject: Claim): Promise<ClaimChart> {
  const outcome = await checkClaim({ warehouse, tables, claim: subject, minSupport: 10, timeoutMs: 30_000 });
  if (!outcome.check?.chart) throw new Error(`no chart: ${outcome.check?.chart_unavailable ?? outcome.reasoning}`);
  return outcome.check.chart;
}

async function rowsOf(sql: string) {
  return (await duck.query(sql, { maxRows: 100, timeoutMs: 30_000 })).rows;
}

const CLAIMS: Record<string, Claim> = {
  difference: claim({}),
  shift: claim({
    kind: 'shift',
    metric: { kind: 'count', table: 'visits', label: '' },
    segment: undefined,
    comparison: undefined,
    series: { column: 'visited_at', grain: 'month', label: 'visit date' },
    window: { from: '2024-07-01', to: '2025-01-01' },
    value: 80,
    comparison_value: 40,
    direction: 'higher',
  }),
  correlation: claim({
    kind: 'correlation',
    metric: { kind: 'mean', table: 'visits', column: 'pages', label: 'pages' },
    segment: { column: 'amount', to: 1000 },
    comparison: undefined,
    x: { column: 'amount', label: 'amount' },
    value: 0.99,
    comparison_value: 0,
    direction: 'higher',
  }),
  outlier: claim({
    kind: 'outlier',
    metric: { kind: 'mean', table: 'visits', column: 'amount', label: 'amount (USD)' },
    segment: { column: 'amount', from: 1000 },
    value: 5000,
    comparison_value: 34,
    direction: 'higher',
  }),
  contribution: claim({
    kind: 'contribution',
    metric: { kind: 'count', table: 'visits', label: '' },
    segment: { column: 'device', value: 'mobile', label: 'device' },
    comparison: undefined,
    series: { column: 'visited_at', grain: 'quarter' },
    baseline: { from: '2024-04-01', to: '2024-07-01' },
    window: { from: '2024-07-01', to: '2024-10-01' },
    value: 40,
    comparison_value: 120,
    direction: 'higher',
  }),
};

describe('when the verifier charts a claim on DuckDB', () => {
  it('plots a difference’s metric per device as a hand-written query measures it, with the missing devices on their own', async () => {
    const chart = await chartOn(duck, duckTables, CLAIMS.difference as Claim);
    const expected = await rowsOf(
      'SELECT device, avg(CASE WHEN converted THEN 1.0 ELSE 0.0 END) AS rate, count(*) AS n FROM visits GROUP BY device',
    );
    expect(chart.points).toHaveLength(expected.length);
    for (const row of expected) {
      const point = chart.points.find((candidate) => candidate.key === row.device);
      expect(point?.value).toBeCloseTo(Number(row.rate), 9);
      expect(point?.rows).toBe(Number(row.n));
      expect(point?.role).toBe(row.device === 'desktop' ? 'segment' : row.device === null ? 'missing' : 'other');
    }
    expect(chart.points.find((point) => point.role === 'missing')?.label).toBe('no device');
  });

  it('draws a shift as monthly visits with the claimed half-year marked', async () => {
    const chart = await chartOn(duck, duckTables, CLAIMS.shift as Claim);
    expect(chart.shape).toBe('line');
    const expected = await rowsOf(
      "SELECT strftime(date_trunc('month', visited_at), '%Y-%m') AS m, count(*) AS n FROM visits GROUP BY 1 ORDER BY 1",
    );
    expect(chart.points.map((point) => point.value)).toEqual(expected.map((row) => Number(row.n)));
    expect(chart.points.filter((point) => point.span === 'window').map((point) => point.label)).toEqual([
      'Jul 2024',
      'Aug 2024',
      'Sep 2024',
      'Oct 2024',
      'Nov 2024',
      'Dec 2024',
    ]);
  });

  it('bins a correlation’s x and plots the mean of y per bin, on the claim’s rows only', async () => {
    const chart = await chartOn(duck, duckTables, CLAIMS.correlation as Claim);
    expect(chart.shape).toBe('binned');
    const rows = chart.points.reduce((sum, point) => sum + point.rows, 0);
    expect(rows).toBe(718);
    const values = chart.points.map((point) => point.value ?? 0);
    expect(values).toEqual([...values].sort((left, right) => left - right));
  });

  it('draws an outlier’s flagged rows against the others’ median and the fence', async () => {
    const chart = await chartOn(duck, duckTables, CLAIMS.outlier as Claim);
    expect(chart.points.map((point) => point.value)).toEqual([5000, 5000]);
    const [median] = await rowsOf('SELECT median(amount) AS m FROM visits WHERE amount < 1000');
    expect(chart.references[0]).toEqual({ label: 'median of the other visits', value: Number(median?.m) });
    expect(chart.references[1]?.label).toBe('far-out fence');
  });

  it('draws a contribution as the whole and the segment per quarter across both windows', async () => {
    const chart = await chartOn(duck, duckTables, CLAIMS.contribution as Claim);
    const expected = await rowsOf(
      "SELECT date_trunc('quarter', visited_at) AS q, count(*) AS n, count(CASE WHEN device = 'mobile' THEN 1 END) AS m FROM visits WHERE visited_at >= TIMESTAMP '2024-04-01' AND visited_at < TIMESTAMP '2024-10-01' GROUP BY 1 ORDER BY 1",
    );
    expect(chart.points.map((point) => [point.label, point.value, point.segment_value, point.span])).toEqual([
      ['2024-Q2', Number(expected[0]?.n), Number(expected[0]?.m), 'baseline'],
      ['2024-Q3', Number(expected[1]?.n), Number(expected[1]?.m), 'window'],
    ]);
  });

  it('says in one line why a claim cannot be charted', async () => {
    const oneMonth = claim({
      kind: 'trend',
      metric: { kind: 'count', table: 'visits', label: '' },
      segment: undefined,
      comparison: undefined,
      series: { column: 'visited_at', grain: 'month', from: '2024-01-01', to: '2024-02-01' },
      value: 40,
      comparison_value: 30,
      direction: 'higher',
    });
    const outcome = await checkClaim({ warehouse: duck, tables: duckTables, claim: oneMonth, minSupport: 10, timeoutMs: 30_000 });
    expect(outcome.check?.chart).toBeUndefined();
    expect(outcome.check?.chart_unavailable).toBe('fewer than two periods have enough rows to draw a line');
  });

  it('computes the chart beside the verdict without changing it, pooling an identifier’s values beyond the chart’s room', async () => {
    const subject = claim({ segment: { column: 'id', value: 3 } });
    const outcome = await checkClaim({ warehouse: duck, tables: duckTables, claim: subject, minSupport: 1, timeoutMs: 30_000 });
    const plain = await checkClaim({ warehouse: duck, tables: duckTables, claim: subject, minSupport: 1, timeoutMs: 30_000, chart: false });
    expect(outcome.check?.chart).toBeDefined();
    expect(plain.check?.chart).toBeUndefined();
    expect(outcome.status).toBe(plain.status);
    const noGroups = claim({ segment: { column: 'id', value: 3 } });
    const chart = await chartOn(duck, duckTables, noGroups);
    // 720 ids: 22 largest (the segment among them) and one pooled bar
    expect(chart.points).toHaveLength(24);
    expect(chart.points.filter((point) => point.role === 'segment')).toHaveLength(1);
    expect(chart.points.at(-1)).toMatchObject({ role: 'others', rows: 720 - 23 });
  });
});

describe.skipIf(!postgres.available)('when the verifier charts the same claims on PostgreSQL', () => {
  it.each(Object.keys(CLAIMS))('draws the %s chart DuckDB draws', async (kind) => {
    const subject = CLAIMS[kind] as Claim;
    const onDuck = await chartOn(duck, duckTables, subject);
    const onPostgres = await chartOn(pgWarehouse as Warehouse, pgTables, subject);
    const shape = (chart: ClaimChart) =>
      chart.points.map((point) => ({ ...point, value: point.value === null ? null : Number(point.value.toPrecision(9)), x: undefined }));
    expect(shape(onPostgres)).toEqual(shape(onDuck));
    expect(onPostgres.references.map((reference) => reference.label)).toEqual(onDuck.references.map((reference) => reference.label));
  });
});
