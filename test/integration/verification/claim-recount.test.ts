/**
 * Claims recounted on a real DuckDB table by SQL the verifier builds itself: right claims confirmed,
 * wrong magnitudes (on either side) adjusted, wrong directions and missing segments rejected, every
 * metric kind and grain measured, identifiers with spaces and reserved words quoted.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClaim } from '../../../src/discovery/claims/check-claim.js';
import { buildClaimSql } from '../../../src/discovery/claims/claim-sql.js';
import { claimSchema, type Claim } from '../../../src/domain/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { duckdbSyntax } from '../../../src/warehouse/sql-syntax/duckdb.js';
import { tempDir } from '../../support/temp-dir.js';

let warehouse: Warehouse;

/**
 * 400 tickets: category Network takes 4 days to close, the others 1; Hardware tickets are 40 % of all;
 * 50 Network tickets are still open; priority "High" has a 75 % escalation rate against 25 % elsewhere.
 */
beforeAll(async () => {
  const path = join(tempDir('assay-claims-'), 'tickets.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`
    CREATE TABLE "Service Tickets" AS
      SELECT i AS id,
             CASE WHEN i % 5 IN (0, 1) THEN 'Hardware' WHEN i % 5 = 2 THEN 'Network' ELSE 'Software' END AS category,
             CASE WHEN i % 4 = 0 THEN 'High' ELSE 'Low' END AS "Priority Level",
             (CASE WHEN i % 4 = 0 THEN i % 8 <> 4 ELSE i % 8 = 1 END) AS escalated,
             TIMESTAMP '2024-01-01' + to_days(CAST(i % 120 AS INTEGER)) AS opened_at,
             CASE WHEN i % 5 = 2 AND i > 150 AND i <= 400 AND i % 10 = 7 THEN NULL
                  ELSE TIMESTAMP '2024-01-01' + to_days(CAST(i % 120 AS INTEGER)) + to_days(CASE WHEN i % 5 = 2 THEN 4 ELSE 1 END) END AS closed_at,
             i % 10 AS "order"
      FROM range(1, 401) t(i);
  `);
  connection.closeSync();
  instance.closeSync();
  warehouse = await openWarehouse(`duckdb:${path}`);
  TABLES = await discoverSchema(warehouse);
});
afterAll(async () => {
  await warehouse?.close();
});

let TABLES: TableSchema[] = [];

function claim(overrides: Record<string, unknown>): Claim {
  return claimSchema.parse({
    metric: {
      kind: 'duration_mean',
      table: 'main.Service Tickets',
      start_column: 'opened_at',
      end_column: 'closed_at',
      unit: 'days',
      label: 'days to close',
    },
    segment: { column: 'category', value: 'Network' },
    comparison: { kind: 'rest' },
    value: 4,
    comparison_value: 1,
    direction: 'higher',
    ...overrides,
  });
}

async function recount(subject: Claim) {
  const outcome = await checkClaim({ warehouse, tables: TABLES, claim: subject, minSupport: 10, timeoutMs: 30_000 });
  if (!outcome.recount) throw new Error(outcome.reasoning);
  const measured = {
    segmentValue: outcome.recount.value,
    comparisonValue: outcome.recount.comparisonValue,
    segmentRows: outcome.recount.segmentRows,
  };
  return { measured, verdict: outcome.verdict };
}

describe('when a claim is recounted', () => {
  it('confirms a right claim, leaving open items out of the durations', async () => {
    const { measured, verdict } = await recount(claim({}));
    expect(measured.segmentValue).toBeCloseTo(4, 6);
    expect(measured.comparisonValue).toBeCloseTo(1, 6);
    expect(verdict.status).toBe('confirmed');
  });

  it('adjusts a claim whose direction holds but whose size is off, and rejects one whose direction is wrong', async () => {
    expect((await recount(claim({ value: 9, comparison_value: 1 }))).verdict).toMatchObject({ status: 'adjusted', directionHolds: true });
    const wrong = await recount(claim({ direction: 'lower', value: 4, comparison_value: 6 }));
    expect(wrong.verdict.status).toBe('rejected');
    expect(wrong.verdict.reasoning).toMatch(/direction does not hold/);
  });

  it('rejects a segment that does not exist, and a claim naming a column the table does not have', async () => {
    expect((await recount(claim({ segment: { column: 'category', value: 'Printers' } }))).verdict).toMatchObject({
      status: 'rejected',
      reasoning: expect.stringMatching(/has no rows/),
    });
    const built = buildClaimSql(claim({ segment: { column: 'team', value: 'A' } }), TABLES, duckdbSyntax);
    expect(built).toEqual({ ok: false, reason: 'group column "team" is not in main.Service Tickets' });
    expect(buildClaimSql(claim({ metric: { kind: 'count', table: 'main.nope' } }), TABLES, duckdbSyntax)).toEqual({
      ok: false,
      reason: 'table "main.nope" is not in the warehouse schema',
    });
  });

  it('measures shares, rates, counts, means, medians, sums and distinct counts, quoting names with spaces and reserved words', async () => {
    const share = await recount(
      claim({
        metric: { kind: 'share', table: 'main.Service Tickets' },
        segment: { column: 'category', value: 'Hardware' },
        comparison: { kind: 'group', group: { column: 'category', value: 'Network' } },
        value: 0.4,
        comparison_value: 0.2,
      }),
    );
    expect(share.measured.segmentValue).toBeCloseTo(0.4, 6);
    expect(share.verdict.status).toBe('confirmed');
    const rate = await recount(
      claim({
        metric: { kind: 'rate', table: 'main.Service Tickets', condition: { column: 'escalated', op: '=', value: true } },
        segment: { column: 'Priority Level', value: 'High' },
        value: 0.5,
        comparison_value: 0.125,
      }),
    );
    expect(rate.measured.segmentValue).toBeCloseTo(0.5, 6);
    expect(rate.measured.comparisonValue).toBeCloseTo(1 / 6, 6);
    // the segment's value holds but the comparison was claimed at 0.125: both sides must hold to confirm
    expect(rate.verdict.status).toBe('adjusted');
    const count = await recount(
      claim({
        metric: { kind: 'count', table: 'main.Service Tickets' },
        segment: { column: 'category', value: 'Hardware' },
        value: 160,
        comparison_value: 240,
        direction: 'lower',
      }),
    );
    expect(count.measured).toMatchObject({ segmentValue: 160, comparisonValue: 240, segmentRows: 160 });
    expect(count.verdict.status).toBe('confirmed');
    const mean = await recount(
      claim({
        metric: { kind: 'mean', table: 'main.Service Tickets', column: 'order' },
        segment: { column: 'category', value: 'Network' },
        value: 2,
        comparison_value: 4.5,
        direction: 'lower',
      }),
    );
    expect(mean.measured.segmentValue).toBeCloseTo(4.5, 6);
    expect(mean.verdict.status).toBe('rejected');
    const median = await recount(
      claim({
        metric: { kind: 'median', table: 'main.Service Tickets', column: 'id' },
        segment: { column: 'category', value: 'Network' },
        value: 200,
        comparison_value: 200,
        direction: 'higher',
      }),
    );
    expect(median.measured.segmentValue).toBeCloseTo(199.5, 6);
    const sum = await recount(
      claim({
        metric: {
          kind: 'sum',
          table: 'main.Service Tickets',
          column: 'order',
          filters: [{ column: 'Priority Level', op: '=', value: 'High' }],
        },
        segment: { column: 'category', value: 'Network' },
        value: 100,
        comparison_value: 1,
        direction: 'higher',
      }),
    );
    expect(sum.measured.segmentValue).not.toBeNull();
    const distinct = await recount(
      claim({
        metric: { kind: 'distinct_count', table: 'main.Service Tickets', column: 'Priority Level' },
        segment: { column: 'category', value: 'Network' },
        comparison: { kind: 'all' },
        value: 2,
        comparison_value: 2,
        direction: 'lower',
      }),
    );
    expect(distinct.measured).toMatchObject({ segmentValue: 2, comparisonValue: 2 });
    expect(distinct.verdict.status).toBe('rejected');
  });

  it('groups time columns by grain', async () => {
    const january = await recount(
      claim({
        metric: { kind: 'count', table: 'main.Service Tickets' },
        segment: { column: 'opened_at', value: '2024-01-01', grain: 'month' },
        comparison: { kind: 'group', group: { column: 'opened_at', value: '2024-04-01', grain: 'month' } },
        value: 103,
        comparison_value: 90,
        direction: 'higher',
      }),
    );
    expect(january.measured.segmentRows).toBeGreaterThan(0);
    expect(january.verdict.directionHolds).toBe(true);
    const weekday = await recount(
      claim({
        metric: { kind: 'count', table: 'main.Service Tickets' },
        segment: { column: 'opened_at', value: 1, grain: 'day_of_week' },
        value: 57,
        comparison_value: 343,
        direction: 'lower',
      }),
    );
    expect(weekday.measured.segmentRows).toBeGreaterThan(0);
  });

  it('escapes quotes in values and names so a claim cannot inject SQL', () => {
    const built = buildClaimSql(claim({ segment: { column: 'category', value: "x' OR 1=1 --" } }), TABLES, duckdbSyntax);
    expect(built.ok && built.sql).toContain("'x'' OR 1=1 --'");
  });
});
