/**
 * `npm run bench -- engines`: the same answers on every engine. The e-commerce demo is loaded into
 * throwaway MariaDB and ClickHouse servers (`loadDemoInto`, what `assay demo-data --into` runs); one
 * discovery run with the offline analyst goes on each and on the DuckDB demo (as `assay eval` runs it,
 * MAX_STEPS steps). Prints per engine: planted patterns found, the verdict of each compared with
 * DuckDB's, confirmed claims shared with DuckDB (kind, metric, segment), exploration statements that
 * failed and why, and wall time; writes `bench-results/engines.json`.
 *
 * A bench, not a test: one run per engine takes minutes (327 s for the three runs on the shared 2-core
 * machine; MariaDB's mining alone may use its whole 180 s budget). test/integration/demo-data/
 * discovery-on-engines.test.ts checks the exploration on MariaDB in CI, discovery-on-clickhouse.test.ts
 * mining and recounts on ClickHouse. An engine whose server binary is missing is skipped with the
 * reason printed.
 *
 * On ClickHouse 18.16 the engine's own SQL runs (CTEs inlined by the adapter, `LIMIT n BY` for top
 * values, one JOIN per nested SELECT); what still fails there is the offline analyst's exploration
 * SQL, counted below by gap.
 */
import { join } from 'node:path';
import { renderTable } from '../../src/cli/context.js';
import { generateDemoWarehouse, loadDemoInto } from '../../src/demo/index.js';
import { startTestClickhouse } from '../support/clickhouse.js';
import { confirmedClaims, discoverOn, failedQueries, type EngineDiscovery } from '../support/engine-discovery.js';
import { startTestMariadb } from '../support/mariadb.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { type Bench, round, writeBenchResult } from './bench.js';

/** Enough steps for the analyst's first pass over every area; the mining stage runs whatever the count. */
const MAX_STEPS = 12;

/**
 * Why an engine refused a statement: a gap of the dialect or of the server's version. ClickHouse 18.16
 * (Debian's) has no window functions, no positional GROUP BY and one JOIN per SELECT; current ClickHouse
 * has all three. Its missing CTE subqueries no longer show: the adapter inlines CTEs there, so a
 * statement with a CTE fails for what else it holds (a window function first).
 */
const KNOWN_GAPS: Array<{ gap: string; sql: RegExp; error: RegExp }> = [
  { gap: 'window function (ClickHouse 18.16)', sql: /\bOVER \(/, error: /Syntax error/ },
  { gap: 'more than one JOIN (ClickHouse 18.16)', sql: /./, error: /more than one JOIN/ },
  { gap: 'CTE (ClickHouse 18.16)', sql: /^WITH \w+ AS \(/, error: /Syntax error/ },
  { gap: 'positional GROUP BY (ClickHouse 18.16)', sql: /GROUP BY 1\b/, error: /is not under aggregate function and not in GROUP BY/ },
  { gap: 'statement timeout', sql: /./, error: /timed out/i },
  { gap: 'SQL the dialect does not have', sql: /./, error: /refused:|SQL syntax|does not exist|Unknown (column|function)|allow-list/i },
];

interface EngineRow {
  engine: string;
  seconds: number;
  patterns_found: number;
  patterns: number;
  same_verdicts: number;
  confirmed: number;
  confirmed_shared_with_duckdb: number;
  queries: number;
  failed: Record<string, number>;
}

function summarise(engine: string, seconds: number, run: EngineDiscovery, duckdb: EngineDiscovery | undefined): EngineRow {
  const failed: Record<string, number> = {};
  for (const failure of failedQueries(run.steps)) {
    const gap = KNOWN_GAPS.find((known) => known.sql.test(failure.sql) && known.error.test(failure.error))?.gap ?? 'other';
    failed[gap] = (failed[gap] ?? 0) + 1;
  }
  const reference = duckdb ?? run;
  const verdict = (match: EngineDiscovery['score']['patterns'][number]) => `${match.found}/${match.claim_checked}`;
  const referenceVerdicts = new Map(reference.score.patterns.map((match) => [match.pattern, verdict(match)]));
  const confirmed = confirmedClaims(run.result);
  const duckdbConfirmed = confirmedClaims(reference.result);
  return {
    engine,
    seconds: round(seconds, 1),
    patterns_found: run.score.found,
    patterns: run.score.planted,
    same_verdicts: run.score.patterns.filter((match) => referenceVerdicts.get(match.pattern) === verdict(match)).length,
    confirmed: confirmed.size,
    confirmed_shared_with_duckdb: [...confirmed].filter((key) => duckdbConfirmed.has(key)).length,
    queries: run.steps.filter((step) => step.action === 'query').length,
    failed,
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = process.hrtime.bigint();
  const value = await work();
  return { value, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

export const enginesBench: Bench = {
  name: 'engines',
  description: 'the e-commerce demo discovered on DuckDB, MariaDB and ClickHouse: patterns, verdicts and claims compared',
  async run() {
    const workDir = tempDir('assay-bench-engines-');
    const [mariadb, clickhouse] = await Promise.all([startTestMariadb(), startTestClickhouse()]);
    try {
      const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb') });
      const rows: EngineRow[] = [];
      const duckdb = await timed(() => discoverOn(`duckdb:${demo.path}`, 'ecommerce', demo.truths, MAX_STEPS));
      rows.push(summarise('DuckDB', duckdb.seconds, duckdb.value, undefined));
      const servers = [
        { engine: 'MariaDB', start: mariadb },
        { engine: 'ClickHouse', start: clickhouse },
      ];
      for (const { engine, start } of servers) {
        if (!start.available) {
          process.stdout.write(`${engine}: skipped (${start.reason})\n`);
          continue;
        }
        await loadDemoInto(demo.path, start.server.adminUrl);
        const run = await timed(() => discoverOn(start.server.readerUrl, 'ecommerce', demo.truths, MAX_STEPS));
        rows.push({ ...summarise(engine, run.seconds, run.value, duckdb.value), engine: `${engine} ${start.server.version}` });
      }
      process.stdout.write(
        `${renderTable(
          [
            'engine',
            'patterns found',
            'same verdict as DuckDB',
            'confirmed',
            'confirmed claims shared with DuckDB',
            'queries',
            'failed (why)',
            'seconds',
          ],
          rows.map((row) => [
            row.engine,
            `${row.patterns_found} of ${row.patterns}`,
            `${row.same_verdicts} of ${row.patterns}`,
            row.confirmed,
            row.confirmed_shared_with_duckdb,
            row.queries,
            Object.entries(row.failed)
              .map(([gap, count]) => `${count} ${gap}`)
              .join('; ') || '0',
            row.seconds,
          ]),
        )}\n`,
      );
      process.stdout.write(`wrote ${writeBenchResult('engines', { max_steps: MAX_STEPS, llm: 'offline:analyst', engines: rows })}\n`);
    } finally {
      if (mariadb.available) await mariadb.server.stop();
      if (clickhouse.available) await clickhouse.server.stop();
      removeTempDirs();
    }
  },
};
