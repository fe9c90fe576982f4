/**
 * The same answers on every engine: the e-commerce demo loaded into the live MariaDB and ClickHouse
 * servers (`loadDemoInto`, what `assay demo-data --into` runs), one discovery run with the offline
 * analyst on each (as `assay eval` runs it), and the same run on the DuckDB demo. Compared pattern by
 * pattern (found, claim recounted) and by the set of confirmed claims (kind, metric, segment).
 *
 * ClickHouse here is Debian's 18.16: it has no CTEs and no window functions, which most of the
 * analyst's exploration queries use (they are written for current ClickHouse). That test names the
 * statements that fail and why, and requires every failure to be one of those two gaps.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWarehouse, loadDemoInto } from '../../../src/demo/index.js';
import type { Claim, DiscoveryResult } from '../../../src/domain/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { discoverOn, failedQueries, type EngineDiscovery } from '../../support/engine-discovery.js';
import { startTestMariadb } from '../../support/mariadb.js';
import { skipForMissingServer } from '../../support/required-servers.js';
import { tempDir } from '../../support/temp-dir.js';

/** A refusal by the guard or the server's parser: SQL the dialect does not have. */
const MYSQL_DIALECT_ERROR = /refused:|SQL syntax|FUNCTION \S+ does not exist|Unknown (column|function)|not on the mysql allow-list/i;

/** Enough steps for the analyst's first pass over every area; the mining stage runs whatever the count. */
const MAX_STEPS = 12;

const [mariadb, clickhouse] = await Promise.all([startTestMariadb(), startTestClickhouse()]);
if (!mariadb.available) console.log(`skipping the discovery run on MariaDB: ${skipForMissingServer('MariaDB', mariadb.reason)}`);
if (!clickhouse.available)
  console.log(`skipping the discovery run on ClickHouse: ${skipForMissingServer('ClickHouse', clickhouse.reason)}`);

/** A claim without the warehouse's schema name (`main.orders` on DuckDB is `assay_test.orders` elsewhere). */
function claimKey(claim: Claim): string {
  return JSON.stringify(claim, (key, value) => {
    if (key === 'table' && typeof value === 'string') return value.split('.').pop();
    if (key === 'test' || key === 'n' || key === 'observed' || key === 'values') return undefined;
    return value;
  });
}

function confirmedClaims(result: DiscoveryResult): string[] {
  return result.insights
    .filter((insight) => insight.validation?.status === 'confirmed' && insight.claim !== undefined)
    .map((insight) => claimKey(insight.claim as Claim))
    .sort();
}

function patternVerdicts(run: EngineDiscovery): Array<{ pattern: string; found: boolean; claimChecked: boolean }> {
  return run.score.patterns.map((match) => ({ pattern: match.pattern, found: match.found, claimChecked: match.claim_checked }));
}

const workDir = tempDir('assay-same-answers-');
let demoPath: string;
let duckdb: EngineDiscovery;
let truths: Awaited<ReturnType<typeof generateDemoWarehouse>>['truths'];

beforeAll(async () => {
  const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb') });
  demoPath = demo.path;
  truths = demo.truths;
  duckdb = await discoverOn(`duckdb:${demo.path}`, 'ecommerce', truths, MAX_STEPS);
}, 300_000);

afterAll(async () => {
  if (mariadb.available) await mariadb.server.stop();
  if (clickhouse.available) await clickhouse.server.stop();
});

describe.skipIf(!mariadb.available)('a discovery run on the e-commerce demo in MariaDB', () => {
  let run: EngineDiscovery;

  beforeAll(async () => {
    if (!mariadb.available) return;
    await loadDemoInto(demoPath, mariadb.server.adminUrl);
    run = await discoverOn(mariadb.server.readerUrl, 'ecommerce', truths, MAX_STEPS);
  }, 600_000);

  it('writes every exploration statement in SQL that MariaDB parses and the MySQL guard allows', () => {
    // a timeout or a server-side error (its temp files) is not the dialect's: those are printed, not failed
    const failed = failedQueries(run.steps);
    for (const failure of failed) console.log(`MariaDB step ${failure.step}: ${failure.error.split('\n')[0]?.slice(0, 160)}`);
    const dialectErrors = failed.filter((failure) => MYSQL_DIALECT_ERROR.test(failure.error));
    expect(dialectErrors).toEqual([]);
    expect(run.steps.filter((step) => step.action === 'query').length).toBeGreaterThan(failed.length);
  });

  // Known gap (docs/warehouses.md, "The same answers on every engine"): every statement runs on MariaDB,
  // but the run does not yet find the planted patterns DuckDB finds (measured: 0 of 5 against 5 of 5 at
  // 12 steps). Remove `.fails` when it does.
  it.fails('finds the same planted patterns as on DuckDB, each with the same verdict', () => {
    expect(patternVerdicts(run)).toEqual(patternVerdicts(duckdb));
  });

  it.fails('confirms the same claims as on DuckDB (kind, metric, segment)', () => {
    expect(confirmedClaims(run.result)).toEqual(confirmedClaims(duckdb.result));
  });
});

/**
 * Why ClickHouse 18.16 refuses the analyst's statements, each a gap of that version (current ClickHouse
 * has all of these): `WITH name AS (subquery)`, window functions (`OVER ()`) and positional `GROUP BY 1`.
 */
const CLICKHOUSE_18_GAPS: Array<{ gap: string; sql: RegExp; error: RegExp }> = [
  { gap: 'CTE', sql: /^WITH \w+ AS \(/, error: /Syntax error/ },
  { gap: 'window function', sql: /\bOVER \(/, error: /Syntax error/ },
  { gap: 'positional GROUP BY', sql: /GROUP BY 1\b/, error: /is not under aggregate function and not in GROUP BY/ },
];

describe.skipIf(!clickhouse.available)('a discovery run on the e-commerce demo in ClickHouse 18.16', () => {
  let run: EngineDiscovery;

  beforeAll(async () => {
    if (!clickhouse.available) return;
    await loadDemoInto(demoPath, clickhouse.server.adminUrl);
    run = await discoverOn(clickhouse.server.readerUrl, 'ecommerce', truths, MAX_STEPS);
  }, 600_000);

  it('fails exploration statements only for a known gap of ClickHouse 18.16, each named', () => {
    const failed = failedQueries(run.steps);
    for (const failure of failed) {
      const gap = CLICKHOUSE_18_GAPS.find((known) => known.sql.test(failure.sql) && known.error.test(failure.error));
      console.log(`ClickHouse 18.16 step ${failure.step}: ${gap?.gap ?? 'UNKNOWN'}: ${failure.error.split('\n')[0]?.slice(0, 160)}`);
      expect(gap, `step ${failure.step} failed for no known gap: ${failure.error}`).toBeDefined();
    }
  });

  // Known gap (docs/warehouses.md): with nearly every exploration statement refused and the mining
  // stage finding nothing there, the run on 18.16 finds none of the planted patterns DuckDB finds.
  // Remove `.fails` when it does.
  it.fails('finds the planted patterns DuckDB finds, each with the same verdict', () => {
    expect(patternVerdicts(run)).toEqual(patternVerdicts(duckdb));
  });
});
