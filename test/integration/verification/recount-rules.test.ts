/**
 * What a recount means, on a small DuckDB table whose answers are known by construction: "the rest" is
 * every other row (rows with no value in the segment's column included), a rate whose condition is about
 * missing values counts every row, and a difference of totals is tested on the totals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClaim } from '../../../src/discovery/claims/check-claim.js';
import { type ClaimInput, claimSchema } from '../../../src/domain/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-recount-rules-'));
let warehouse: Warehouse;
let tables: TableSchema[];

/**
 * 300 visits. channel: 'ads' for i % 10 = 0 (30), missing for i % 10 in 1–4 (120), 'organic' otherwise
 * (150); spend: ads 10 + i % 3, missing 1 + i % 3, organic 5 + i % 3. finished_at is missing for i % 10 < 3
 * (90 of 300). amount: 1 + i % 2 / 10 for everyone; region 'north' for i < 270, 'south' for the last 30.
 */
beforeAll(async () => {
  const path = join(dir, 'visits.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`
    CREATE TABLE visits AS
      SELECT i AS id,
             CASE WHEN i % 10 = 0 THEN 'ads' WHEN i % 10 BETWEEN 1 AND 4 THEN NULL ELSE 'organic' END AS channel,
             (CASE WHEN i % 10 = 0 THEN 10 WHEN i % 10 BETWEEN 1 AND 4 THEN 1 ELSE 5 END + i % 3)::DOUBLE AS spend,
             TIMESTAMP '2024-01-01' + to_minutes(CAST(i AS BIGINT)) AS started_at,
             CASE WHEN i % 10 < 3 THEN NULL ELSE TIMESTAMP '2024-01-01' + to_minutes(CAST(i + 5 AS BIGINT)) END AS finished_at,
             1 + (i % 2) / 10.0 AS amount,
             CASE WHEN i < 270 THEN 'north' ELSE 'south' END AS region
      FROM range(0, 300) t(i);
  `);
  connection.closeSync();
  instance.closeSync();
  warehouse = await openWarehouse(`duckdb:${path}`);
  tables = ((await warehouse.describeCatalog?.()) ?? []).map((table) => ({ ...table, samples: [] }));
});

afterAll(async () => {
  await warehouse?.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (claim: ClaimInput) => checkClaim({ warehouse, tables, claim: claimSchema.parse(claim), minSupport: 10, timeoutMs: 30_000 });

describe('when a claim compares a segment with the rest', () => {
  it('counts the rows with no value in the segment column among the rest', async () => {
    // rest = 120 missing (mean 2) + 150 organic (mean 6): (120 × 2 + 150 × 6) / 270
    const rest = (120 * 2 + 150 * 6) / 270;
    const outcome = await check({
      kind: 'difference',
      metric: { kind: 'mean', table: 'main.visits', column: 'spend' },
      segment: { column: 'channel', value: 'ads' },
      comparison: { kind: 'rest' },
      value: 11,
      comparison_value: rest,
      direction: 'higher',
    });
    expect(outcome.recount?.value).toBeCloseTo(11, 9);
    expect(outcome.recount?.comparisonValue).toBeCloseTo(rest, 9);
    expect(outcome.recount?.comparisonRows).toBe(270);
    expect(outcome.status).toBe('confirmed');
  });

  it('leaves the missing rows out when the claim filters them out itself', async () => {
    const outcome = await check({
      kind: 'difference',
      metric: { kind: 'mean', table: 'main.visits', column: 'spend', filters: [{ column: 'channel', op: 'not_null' }] },
      segment: { column: 'channel', value: 'ads' },
      comparison: { kind: 'rest' },
      value: 11,
      comparison_value: 6,
      direction: 'higher',
    });
    expect(outcome.recount?.comparisonValue).toBeCloseTo(6, 9);
    expect(outcome.status).toBe('confirmed');
  });
});

describe('when a rate is about missing values', () => {
  it('counts every row, the missing ones as the outcome', async () => {
    const outcome = await check({
      kind: 'difference',
      metric: { kind: 'rate', table: 'main.visits', condition: { column: 'finished_at', op: 'not_null' } },
      segment: { column: 'region', value: 'north' },
      comparison: { kind: 'rest' },
      // north: 270 rows, 81 unfinished; south: 30 rows, 9 unfinished — the same rate
      value: 0.7,
      comparison_value: 0.7,
      direction: 'higher',
    });
    expect(outcome.recount?.value).toBeCloseTo(0.7, 9);
    expect(outcome.recount?.segmentRows).toBe(270);
    expect(outcome.status).toBe('rejected');
  });

  it('leaves rows with an unknown outcome out of any other rate', async () => {
    const outcome = await check({
      kind: 'difference',
      metric: { kind: 'rate', table: 'main.visits', condition: { column: 'channel', op: '=', value: 'ads' } },
      segment: { column: 'region', value: 'north' },
      comparison: { kind: 'rest' },
      value: 0.2,
      comparison_value: 0.2,
      direction: 'higher',
    });
    // north: 270 rows, 108 with no channel, 27 ads
    expect(outcome.recount?.segmentRows).toBe(162);
    expect(outcome.recount?.value).toBeCloseTo(27 / 162, 9);
  });
});

describe('when a claim compares two totals', () => {
  it('tests the totals, so many rows of the same size make a larger total', async () => {
    const outcome = await check({
      kind: 'difference',
      metric: { kind: 'sum', table: 'main.visits', column: 'amount' },
      segment: { column: 'region', value: 'north' },
      comparison: { kind: 'rest' },
      value: 283.5,
      comparison_value: 31.5,
      direction: 'higher',
    });
    expect(outcome.recount?.value).toBeCloseTo(283.5, 9);
    expect(outcome.recount?.comparisonValue).toBeCloseTo(31.5, 9);
    expect(outcome.recount?.test?.test).toBe('compound_poisson_z');
    expect(outcome.status).toBe('confirmed');
  });

  it('rejects two totals that differ by less than their spread', async () => {
    const outcome = await check({
      kind: 'difference',
      // north: ids 238–269, 32 rows (33.6); south: 30 rows (31.5)
      metric: { kind: 'sum', table: 'main.visits', column: 'amount', filters: [{ column: 'id', op: '>=', value: 238 }] },
      segment: { column: 'region', value: 'north' },
      comparison: { kind: 'rest' },
      value: 33.6,
      comparison_value: 31.5,
      direction: 'higher',
    });
    expect(outcome.status).toBe('rejected');
  });
});
