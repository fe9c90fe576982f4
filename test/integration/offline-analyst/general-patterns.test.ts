/**
 * The offline analyst on a table it has never seen, with the general pack: a synthetic work-item
 * table (a name with a space, a unicode column, a reserved word, open items without an end time)
 * with planted patterns of the kinds real tables have — one category holding half the rows, one
 * region dominating another category, a term most rows of one category use, a cancellation share far
 * higher in one region, one category whose time to close grows month after month, a two-month spike
 * of another category, an amount that drives the time to close, and one owner's repeated rows. Every
 * pattern must come out as an insight, every claim must hold when the verifier's own SQL recounts it,
 * and every count-only finding must recount to its affected count.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClaimSql } from '../../../src/discovery/claims/claim-sql.js';
import { judgeClaim } from '../../../src/discovery/claims/claim-verdict.js';
import { toInsights } from '../../../src/discovery/phases/analyze-area.js';
import { parseInsights } from '../../../src/discovery/parsing/output-parser.js';
import { extractCount } from '../../../src/discovery/phases/verify-insight.js';
import type { Insight } from '../../../src/domain/index.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { discoverSchema } from '../../../src/schema/discovery.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres, type TestPostgresStart } from '../../support/postgres.js';
import {
  analysisRequest,
  explorationSetting,
  explore,
  verificationRequest,
  verificationSql,
  type ExplorationSetting,
  type ExplorationTranscript,
} from './exploration-harness.js';

const MAX_STEPS = 24;

interface Exploration {
  warehouse: Warehouse;
  setting: ExplorationSetting;
  transcript: ExplorationTranscript;
  insights: Insight[];
}

async function exploreWith(warehouse: Warehouse): Promise<Exploration> {
  const setting = explorationSetting('general', await discoverSchema(warehouse), warehouse.dialect, MAX_STEPS, 0);
  const brain = createOfflineAnalyst();
  const transcript = await explore(brain, setting, warehouse, MAX_STEPS);
  const insights: Insight[] = [];
  for (const area of setting.areas) {
    const parsed = parseInsights(await brain(analysisRequest(setting, area.id, transcript.steps)));
    if (!parsed.ok) throw new Error(parsed.reason);
    const citable = new Set(transcript.steps.filter((step) => step.action === 'query' && !step.error).map((step) => step.step));
    insights.push(...toInsights(area, parsed.items, citable, '2025-01-01T00:00:00.000Z').insights);
  }
  return { warehouse, setting, transcript, insights };
}

/** Every claim recounted by the verifier's own SQL; every other finding's count recounted by the offline verifier. */
async function recount(exploration: Exploration): Promise<{ claims: string[]; counts: string[] }> {
  const { warehouse, setting, transcript, insights } = exploration;
  const tables = await discoverSchema(warehouse);
  const brain = createOfflineAnalyst();
  const claims: string[] = [];
  const counts: string[] = [];
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  for (const insight of insights) {
    if (insight.claim) {
      const built = buildClaimSql(insight.claim, tables);
      if (!built.ok) throw new Error(`${insight.name}: ${built.reason}`);
      const row = (await warehouse.query(built.sql, { maxRows: 1 })).rows[0] ?? {};
      const verdict = judgeClaim(insight.claim, {
        segmentValue: number(row.segment_value),
        comparisonValue: number(row.comparison_value),
        segmentRows: number(row.segment_rows) ?? 0,
      });
      claims.push(`${insight.name}: ${verdict.status}`);
    } else {
      const sql = verificationSql(await brain(verificationRequest(setting, insight, transcript.steps)));
      const count = extractCount(await warehouse.query(sql, { maxRows: 10 }));
      counts.push(`${insight.name}: ${count === insight.affected_count ? 'recounted' : `${count} instead of ${insight.affected_count}`}`);
    }
  }
  return { claims, counts };
}

let workDir: string;
let duckdb: Exploration;
const postgres: TestPostgresStart = await startTestPostgres();
if (!postgres.available) console.log(`skipping the PostgreSQL run of the general patterns: ${postgres.reason}`);
let onPostgres: Exploration | undefined;

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
UNION ALL
-- forty identical rows of one owner
SELECT 'W-' || CAST(i AS VARCHAR), 'Epsilon', 'West', 'P2', 'Owner 13', 'Done', 'general request about part 1', 777,
       TIMESTAMP '2023-02-01' + to_seconds(CAST((i - 2000) * 50000 AS BIGINT)),
       TIMESTAMP '2023-02-03' + to_seconds(CAST((i - 2000) * 50000 AS BIGINT))
FROM range(2000, 2040) t(i);
`;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-general-patterns-'));
  const path = join(workDir, 'work.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(TABLE_SQL);
  connection.closeSync();
  instance.closeSync();
  duckdb = await exploreWith(await openWarehouse(`duckdb:${path}`));
  if (postgres.available) {
    await copyDemo(duckdb.warehouse, postgres.server.adminUrl);
    onPostgres = await exploreWith(await openWarehouse(postgres.server.readerUrl));
  }
}, 180_000);

afterAll(async () => {
  await duckdb?.warehouse.close();
  await onPostgres?.warehouse.close();
  if (postgres.available) await postgres.server.stop();
  rmSync(workDir, { recursive: true, force: true });
});

function named(pattern: RegExp, exploration: Exploration = duckdb): Insight | undefined {
  return exploration.insights.find((insight) => pattern.test(insight.name));
}

describe('when the offline analyst explores an unfamiliar table with the general pack', () => {
  it('runs every query without an error, quoting names with spaces, accents and reserved words', () => {
    const queries = duckdb.transcript.steps.filter((step) => step.action === 'query');
    expect(queries.length).toBeGreaterThanOrEqual(10);
    expect(queries.filter((step) => step.error).map((step) => `${step.query_purpose}: ${step.error}`)).toEqual([]);
    expect(queries.some((step) => (step.executed_query ?? '').includes('"Région"'))).toBe(true);
    expect(queries.some((step) => (step.executed_query ?? '').includes('main."Work Items"'))).toBe(true);
  });

  it('takes the time a record opened as its time axis and measures the time to its end, leaving open items out', () => {
    const durations = duckdb.transcript.steps.filter((step) => /avg_days_opened_to_closed/.test(step.executed_query ?? ''));
    expect(durations.length).toBeGreaterThan(0);
    expect(duckdb.transcript.steps.some((step) => /avg_days_closed_to_opened/.test(step.executed_query ?? ''))).toBe(false);
  });

  it('finds the category that holds half the rows', () => {
    expect(named(/^Alpha( and \w+)?: significantly more work items than the other category values \(588/)).toBeDefined();
  });

  it('finds the region that dominates one category', () => {
    expect(named(/^North dominates within Beta \(category\): 8\d% of Beta work items have région North/)).toBeDefined();
  });

  it('finds the term most rows of one category use', () => {
    expect(named(/^Most Alpha work items mention "(sprocket|jam)" in description/)).toBeDefined();
  });

  it('finds the region with a far higher cancellation share', () => {
    expect(named(/^South: Cancelled rate significantly higher/)).toBeDefined();
  });

  it('finds the category whose time to close grows month after month while the others stay level', () => {
    expect(named(/^Delta: average closing time .*increases over time/)).toBeDefined();
  });

  it('finds the months in which one category spikes', () => {
    const spike = named(/^Gamma: increased .* (from 2023-06 to 2023-07|in 2023-0[67])/);
    expect(spike).toBeDefined();
  });

  it('finds that the amount drives the time to close', () => {
    expect(named(/correlation between amount and the time from opened at to closed at/)).toBeDefined();
  });

  it("finds one owner's repeated identical rows", () => {
    expect(named(/repeat another row identically, mostly from a single owner name: Owner 13/)).toBeDefined();
  });

  it('says how many items are still open and left out of an average duration', () => {
    const gap = named(/^Delta: average closing time \(from opened to closed\) significantly higher than the other category values/);
    expect(gap?.description).toMatch(/\d+(\.\d)?% of the Delta work items have no end time yet \(still open\) and are not in the average/);
  });

  it('describes measures with no known direction without calling them strengths or weak spots', () => {
    const durationGaps = duckdb.insights.filter(
      (insight) => /average closing time/.test(insight.name) && /significantly|clearly/.test(insight.name),
    );
    for (const insight of durationGaps) expect(insight.description).not.toMatch(/^(Strength|Weak spot):/);
  });

  it('states claims the verifier confirms on both sides, and recounts every other finding to the count it states', async () => {
    const { claims, counts } = await recount(duckdb);
    expect(claims.length).toBeGreaterThanOrEqual(5);
    expect(claims.filter((line) => !line.endsWith(': confirmed'))).toEqual([]);
    expect(counts.filter((line) => !line.endsWith(': recounted'))).toEqual([]);
  });
});

describe.skipIf(!postgres.available)('when the same table is explored on PostgreSQL', () => {
  it('writes PostgreSQL that runs, finds the same planted patterns and recounts them there', async () => {
    const exploration = onPostgres as Exploration;
    const queries = exploration.transcript.steps.filter((step) => step.action === 'query');
    expect(queries.filter((step) => step.error).map((step) => `${step.query_purpose}: ${step.error}`)).toEqual([]);
    for (const pattern of [
      /^Alpha( and \w+)?: significantly more/,
      /^North dominates within Beta/,
      /^Most Alpha work items mention "(sprocket|jam)"/,
      /^South: Cancelled rate significantly higher/,
      /^Delta: average closing time .*increases over time/,
      /^Gamma: increased /,
      /correlation between amount and the time from opened at to closed at/,
      /mostly from a single owner name: Owner 13/,
    ])
      expect({ pattern: String(pattern), found: named(pattern, exploration) !== undefined }).toEqual({
        pattern: String(pattern),
        found: true,
      });
    const { claims, counts } = await recount(exploration);
    expect(claims.filter((line) => !line.endsWith(': confirmed'))).toEqual([]);
    expect(counts.filter((line) => !line.endsWith(': recounted'))).toEqual([]);
  });
});
