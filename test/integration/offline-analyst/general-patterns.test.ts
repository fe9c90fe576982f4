/**
 * Discovery on a table it has never seen, with the general pack: a synthetic work-item table (a name
 * with a space, a unicode column, a reserved word, open items without an end time) with planted
 * patterns of the kinds real tables have — one category holding half the rows, one region dominating
 * another category, a term most rows of one category use, a cancellation share far higher in one
 * region, one category whose time to close grows month after month, a burst of another category, and
 * an amount that drives the time to close. The offline analyst explores it without an error; the
 * engine's mining finds every pattern, on DuckDB and on PostgreSQL; and every finding's claim holds when
 * the verifier's own SQL recounts it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';
import { type MinedAndChecked, mineAndCheck } from '../../support/mine-and-check.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres, type TestPostgresStart } from '../../support/postgres.js';
import { explorationSetting, explore, type ExplorationTranscript } from './exploration-harness.js';

const MAX_STEPS = 24;
const GOAL = 'find what slows the closing of work items and where cancellations concentrate';

interface Discovery {
  warehouse: Warehouse;
  transcript: ExplorationTranscript;
  mined: MinedAndChecked;
}

async function discover(warehouse: Warehouse): Promise<Discovery> {
  const setting = explorationSetting('general', await discoverSchema(warehouse), warehouse.dialect, MAX_STEPS, 0);
  const transcript = await explore(createOfflineAnalyst(), setting, warehouse, MAX_STEPS);
  return { warehouse, transcript, mined: await mineAndCheck(warehouse, { goal: GOAL }) };
}

let workDir: string;
let duckdb: Discovery;
const postgres: TestPostgresStart = await startTestPostgres();
if (!postgres.available) console.log(`skipping the PostgreSQL run of the general patterns: ${postgres.reason}`);
let onPostgres: Discovery | undefined;

const TABLE_SQL = `
CREATE TABLE "Work Items" AS
WITH base AS (
  SELECT i,
         (hash(i) % 1000) / 1000.0 AS u1,
         (hash(i * 7 + 3) % 1000) / 1000.0 AS u2,
         (hash(i * 13 + 5) % 1000) / 1000.0 AS u3,
         TIMESTAMP '2023-01-01' + to_seconds(CAST(i * 26280 AS BIGINT)) AS opened,
         FLOOR(i / 100) AS month_index
  FROM range(0, 1200) t(i)
), shaped AS (
  SELECT *,
         CASE WHEN u1 < 0.5 THEN 'Alpha' WHEN u1 < 0.625 THEN 'Beta' WHEN u1 < 0.75 THEN 'Gamma' WHEN u1 < 0.875 THEN 'Delta' ELSE 'Epsilon' END AS category,
         100 + CAST(u3 * 4900 AS INTEGER) AS amount
  FROM base
  UNION ALL
  -- a two-month spike of Gamma items in June and July
  SELECT i, (hash(i) % 1000) / 1000.0, (hash(i * 7 + 3) % 1000) / 1000.0, (hash(i * 13 + 5) % 1000) / 1000.0,
         TIMESTAMP '2023-06-01' + to_seconds(CAST((i - 1200) * 40000 AS BIGINT)), 5, 'Gamma', 100 + CAST(((hash(i * 13 + 5) % 1000) / 1000.0) * 4900 AS INTEGER)
  FROM range(1200, 1350) t(i)
), placed AS (
  SELECT *,
         CASE WHEN category = 'Beta' AND u2 < 0.8 THEN 'North'
              WHEN u2 < 0.25 THEN 'North' WHEN u2 < 0.5 THEN 'South' WHEN u2 < 0.75 THEN 'East' ELSE 'West' END AS region
  FROM shaped
)
SELECT 'W-' || CAST(i AS VARCHAR) AS "Item Number",
       category,
       region AS "Région",
       CASE WHEN u3 < 0.2 THEN 'P1' WHEN u3 < 0.6 THEN 'P2' ELSE 'P3' END AS "order",
       'Owner ' || lpad(CAST(1 + hash(i * 3 + 1) % 30 AS VARCHAR), 2, '0') AS "Owner Name",
       CASE WHEN (region = 'South' AND u3 < 0.35) OR u3 < 0.04 THEN 'Cancelled' ELSE 'Done' END AS status,
       CASE WHEN category = 'Alpha' AND u2 < 0.7 THEN 'sprocket jam on line ' || CAST(i % 9 AS VARCHAR)
            ELSE 'general request about part ' || CAST(i % 13 AS VARCHAR) END AS description,
       amount,
       opened AS opened_at,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE opened + to_seconds(CAST(86400 * (1 + amount / 1000.0 + CASE WHEN category = 'Delta' THEN month_index * 2.0 ELSE 0 END + u1 * 2) AS BIGINT)) END AS closed_at
FROM placed
;
`;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-general-patterns-'));
  const path = join(workDir, 'work.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(TABLE_SQL);
  connection.closeSync();
  instance.closeSync();
  duckdb = await discover(await openWarehouse(`duckdb:${path}`));
  if (postgres.available) {
    await copyDemo(duckdb.warehouse, postgres.server.adminUrl);
    onPostgres = await discover(await openWarehouse(postgres.server.readerUrl));
  }
}, 240_000);

afterAll(async () => {
  await duckdb?.warehouse.close();
  await onPostgres?.warehouse.close();
  if (postgres.available) await postgres.server.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** The planted patterns, each as the words a finding about it states. */
const PLANTED: Array<[string, RegExp]> = [
  ['the category that holds half the rows', /^Alpha has the most work items: 4\d\.\d% of all/],
  // read either way round: the same association is stated once
  [
    'the region that dominates one category',
    /(category is Beta have a higher share with région North|région is North have a higher share with category Beta)/i,
  ],
  ['the term most rows of one category use', /category is Alpha have a higher share whose description mentions "(sprocket|jam|line)"/],
  ['the region with a far higher cancellation share', /région is South have a higher share with status Cancelled/i],
  ['the category whose time to close grows', /time from opened to closed.*for work items whose category is Delta rose/],
  ['the burst of one category', /Number of work items per week for work items whose category is Gamma (spiked|peaked|rose)/],
  [
    'the amount that drives the time to close',
    /(Time from opened to closed \(days\) and amount|Amount and time from opened to closed).* positively correlated/i,
  ],
];

function found(discovery: Discovery, pattern: RegExp): boolean {
  return discovery.mined.findings.some((finding) => pattern.test(discovery.mined.text(finding)));
}

describe('when the offline analyst explores an unfamiliar table with the general pack', () => {
  it('runs every query without an error, quoting names with spaces, accents and reserved words', () => {
    const queries = duckdb.transcript.steps.filter((step) => step.action === 'query');
    expect(queries.length).toBeGreaterThanOrEqual(10);
    expect(queries.filter((step) => step.error).map((step) => `${step.query_purpose}: ${step.error}`)).toEqual([]);
    expect(queries.some((step) => (step.executed_query ?? '').includes('"Région"'))).toBe(true);
    expect(queries.some((step) => (step.executed_query ?? '').includes('main."Work Items"'))).toBe(true);
  });
});

describe('when the engine mines the same table', () => {
  it.each(PLANTED)('finds %s', (_name, pattern) => {
    expect(found(duckdb, pattern)).toBe(true);
  });

  it("measures the time to close from the record's start to its end, leaving open items out", () => {
    const durations = duckdb.mined.findings.filter((finding) => finding.claim.metric.kind === 'duration_mean');
    expect(durations.length).toBeGreaterThan(0);
    for (const finding of durations)
      expect([finding.claim.metric.start_column, finding.claim.metric.end_column]).toEqual(['opened_at', 'closed_at']);
  });

  it('runs every statement without an error and corrects its tests across the run', () => {
    expect(duckdb.mined.outcome.queries.filter((query) => query.error).map((query) => `${query.label}: ${query.error}`)).toEqual([]);
    expect(duckdb.mined.outcome.tested).toBeGreaterThan(duckdb.mined.outcome.significant);
    for (const finding of duckdb.mined.findings) expect(finding.claim.test?.q_value ?? 1).toBeLessThanOrEqual(0.05);
  });

  it('states claims the verifier confirms with its own SQL', () => {
    expect(duckdb.mined.findings.length).toBeGreaterThanOrEqual(10);
    expect(duckdb.mined.unconfirmed).toEqual([]);
  });
});

describe.skipIf(!postgres.available)('when the same table is mined on PostgreSQL', () => {
  it('writes PostgreSQL that runs, finds the same planted patterns and confirms them there', () => {
    const discovery = onPostgres as Discovery;
    expect(discovery.mined.outcome.queries.filter((query) => query.error).map((query) => `${query.label}: ${query.error}`)).toEqual([]);
    for (const [name, pattern] of PLANTED) expect({ name, found: found(discovery, pattern) }).toEqual({ name, found: true });
    expect(discovery.mined.unconfirmed).toEqual([]);
  });
});
