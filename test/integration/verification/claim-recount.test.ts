/**
 * Claims recounted on a real DuckDB table by SQL the verifier builds itself: right claims confirmed,
 * wrong magnitudes adjusted, wrong directions and missing segments rejected, every metric kind and
 * grain measured, identifiers with spaces and reserved words quoted.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClaimSql } from '../../../src/discovery/claims/claim-sql.js';
import { judgeClaim } from '../../../src/discovery/claims/claim-verdict.js';
import { claimSchema, type Claim } from '../../../src/domain/index.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
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
});
afterAll(async () => {
  await warehouse?.close();
});

const TABLES: TableSchema[] = [
  {
    schema: 'main',
    name: 'Service Tickets',
    qualified: 'main.Service Tickets',
    rowCount: 400,
    samples: [],
    columns: ['id', 'category', 'Priority Level', 'escalated', 'opened_at', 'closed_at', 'order'].map((name) => ({
      name,
      type: 'VARCHAR',
      nullable: true,
      category: 'dimension' as const,
    })),
  },
];

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
  const built = buildClaimSql(subject, TABLES);
  if (!built.ok) throw new Error(built.reason);
  const row = (await warehouse.query(built.sql, { maxRows: 1 })).rows[0] ?? {};
  const toNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  const measured = {
    segmentValue: toNumber(row.segment_value),
    comparisonValue: toNumber(row.comparison_value),
    segmentRows: Number(row.segment_rows ?? 0),
  };
  return { measured, verdict: judgeClaim(subject, measured) };
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
    expect(wrong.verdict.reasoning).toMatch(/not lower/);
  });

  it('rejects a segment that does not exist, and a claim naming a column the table does not have', async () => {
    expect((await recount(claim({ segment: { column: 'category', value: 'Printers' } }))).verdict).toMatchObject({
      status: 'rejected',
      reasoning: expect.stringMatching(/has no rows/),
    });
    const built = buildClaimSql(claim({ segment: { column: 'team', value: 'A' } }), TABLES);
    expect(built).toEqual({ ok: false, reason: 'column "team" is not in main.Service Tickets' });
    expect(buildClaimSql(claim({ metric: { kind: 'count', table: 'main.nope' } }), TABLES)).toEqual({
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
    expect(rate.verdict.status).toBe('confirmed');
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
    const built = buildClaimSql(claim({ segment: { column: 'category', value: "x' OR 1=1 --" } }), TABLES);
    expect(built.ok && built.sql).toContain("'x'' OR 1=1 --'");
  });
});
