/**
 * Discovery on MariaDB as on DuckDB: the e-commerce demo loaded into a throwaway MariaDB
 * (`loadDemoInto`, what `assay demo-data --into` runs) and discovered by the offline analyst, against
 * the same run on the DuckDB demo:
 * - exploration plans the same measures of the same tables, written in MariaDB's dialect, and every
 *   statement planned alike reads back the same rows; no statement fails or times out;
 * - mining runs every statement within its budget, none failing, and the run finds every planted pattern
 *   DuckDB's run finds, each with the same verdict (found, and its claim recounted and held).
 *
 * Mining is the engine's own SQL — what a user with a real model gets — and the slowest part on MariaDB
 * (about 70 s of the run on the idle 2-core machine, 10 s on DuckDB), so the test reads its whole record.
 *
 * The database is named `main`, as DuckDB's schema: the analyst profiles the looked-up tables in one
 * statement that must fit one model reply, so how many tables it covers depends on how long the
 * qualified names are — on any engine. Equal names keep the comparison to the engines.
 *
 * ClickHouse's exploration is left out: Debian's 18.16 has no window functions and one JOIN per
 * SELECT, which the analyst's summaries need (10 of its 11 exploration statements fail there); the
 * engine's own mining and recounts run there and are checked in discovery-on-clickhouse.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWarehouse, loadDemoInto } from '../../../src/demo/index.js';
import type { Cell, ExplorationStep } from '../../../src/domain/index.js';
import { PROFILE_VALUES_MAX } from '../../../src/llm/offline-analyst/sql/profile-query.js';
import { discoverOn, failedQueries, type EngineDiscovery } from '../../support/engine-discovery.js';
import { startTestMariadb } from '../../support/mariadb.js';
import { tempDir } from '../../support/temp-dir.js';

/** Lookups, the profile and five planned statements: enough for the plan's retention pair, whose order the row estimates may swap. */
const MAX_STEPS = 7;
/**
 * Mining's wall-time budget, raised from 180 s: this compares the engines' answers, not the machine's
 * speed, and the suite's other files share the 2 cores (`npm run bench -- engines` measures the default).
 */
const ENV = { ASSAY_MINING_MAX_DURATION_MS: '900000' };
/** MariaDB divides DECIMALs to 4 more digits (`div_precision_increment`): an average of 1.0/0.0 reads 0.32497, DuckDB 0.3249686… */
const RELATIVE_TOLERANCE = 1e-4;

const mariadb = await startTestMariadb({ database: 'main' });
if (!mariadb.available) console.log(`skipping exploration on MariaDB: ${mariadb.reason}`);

let duckdb: EngineDiscovery;
let onMariadb: EngineDiscovery;

beforeAll(async () => {
  if (!mariadb.available) return;
  const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(tempDir('assay-discovery-engines-'), 'shop.duckdb') });
  await loadDemoInto(demo.path, mariadb.server.adminUrl);
  // both at once: the DuckDB run works in this process, the MariaDB one mostly in the server
  [duckdb, onMariadb] = await Promise.all([
    discoverOn(`duckdb:${demo.path}`, 'ecommerce', demo.truths, MAX_STEPS, 'offline:analyst', ENV),
    discoverOn(mariadb.server.readerUrl, 'ecommerce', demo.truths, MAX_STEPS, 'offline:analyst', ENV),
  ]);
}, 900_000);

afterAll(async () => {
  if (mariadb.available) await mariadb.server.stop();
});

const queries = (run: EngineDiscovery) => run.steps.filter((step) => step.action === 'query');
const byPurpose = (run: EngineDiscovery) => new Map(queries(run).map((step) => [step.query_purpose ?? '', step]));

function sameCell(duck: Cell | undefined, maria: Cell | undefined): boolean {
  if (typeof duck === 'number' && typeof maria === 'number')
    return Math.abs(duck - maria) <= RELATIVE_TOLERANCE * Math.max(1, Math.abs(duck));
  return duck === maria;
}

/**
 * The profile lists a column's values only up to PROFILE_VALUES_MAX; past that, the 13 it fetched
 * (`SELECT DISTINCT … LIMIT 13`) are whichever the engine reads first, and say only "more".
 */
function comparable(row: Record<string, Cell>, column: string): boolean {
  if (!column.endsWith(':v')) return true;
  const distinct = row[`${column.slice(0, -2)}:n`];
  return typeof distinct !== 'number' || distinct <= PROFILE_VALUES_MAX;
}

/** The cells that differ, as `row.column: duckdb ≠ mariadb`. */
function differences(duck: ExplorationStep, maria: ExplorationStep): string[] {
  const found: string[] = [];
  const rows = duck.rows ?? [];
  if ((maria.rows ?? []).length !== rows.length) return [`${rows.length} rows ≠ ${(maria.rows ?? []).length} rows`];
  rows.forEach((row, index) => {
    const other = maria.rows?.[index] ?? {};
    for (const [column, value] of Object.entries(row))
      if (comparable(row, column) && !sameCell(value, other[column]))
        found.push(`${index}.${column}: ${JSON.stringify(value)} ≠ ${JSON.stringify(other[column])}`);
  });
  return found;
}

/** A statement's purpose without the segment it splits by: which measure of which table. */
const withoutSegment = (purpose: string) => purpose.replace(/ by [^(]+ \(/, ' (');

describe.skipIf(!mariadb.available)('the e-commerce demo discovered on MariaDB', () => {
  it('runs every exploration statement without an error or a timeout', () => {
    expect(failedQueries(onMariadb.steps)).toEqual([]);
    expect(queries(onMariadb).length).toBe(MAX_STEPS - 1);
  });

  it('plans the same measures of the same tables as on DuckDB', () => {
    // which segment each retention statement splits by may differ: the planner weighs tables by their
    // row counts, and MariaDB's catalog counts are InnoDB estimates (orders 11.5K against 11,833)
    const plan = (run: EngineDiscovery) => [...byPurpose(run).keys()].map(withoutSegment).sort();
    expect(plan(onMariadb)).toEqual(plan(duckdb));
  });

  it('reads back the same rows for every statement planned alike, the profile and the planted checkout funnel among them', () => {
    const maria = byPurpose(onMariadb);
    const alike = [...byPurpose(duckdb)].filter(([purpose]) => maria.has(purpose));
    const compared = alike.map(([purpose, step]) => ({ purpose, differences: differences(step, maria.get(purpose) as ExplorationStep) }));
    expect(compared.filter((item) => item.differences.length > 0)).toEqual([]);
    const purposes = alike.map(([purpose]) => purpose);
    expect(purposes.some((purpose) => purpose.startsWith('profile:'))).toBe(true);
    expect(purposes.some((purpose) => /abandonment after .* by device type/.test(purpose))).toBe(true);
  });

  it('mines with every statement run, none failed or skipped for budget', () => {
    const mining = onMariadb.run.mining;
    expect(mining).toMatchObject({ status: 'completed', failed_queries: 0, skipped_queries: 0, timed_out_queries: 0 });
    expect(mining?.queries).toBe(duckdb.run.mining?.queries);
  });

  it('finds every planted pattern DuckDB finds, each with the same verdict', () => {
    const verdicts = (run: EngineDiscovery) =>
      run.score.patterns.map((match) => ({ pattern: match.pattern, found: match.found, claim_held: match.claim_checked }));
    expect(verdicts(duckdb).filter((verdict) => verdict.found).length).toBeGreaterThanOrEqual(4);
    expect(verdicts(onMariadb)).toEqual(verdicts(duckdb));
  });
});
