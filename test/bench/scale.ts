/**
 * `npm run bench -- scale`: a synthetic e-commerce warehouse (an `orders` fact table of 1M, 10M and
 * 50M rows generated with DuckDB's `range()`, and a 1,000-row `products` table) discovered end to end
 * by `assay run` with the offline analyst, each size a fresh process under GNU time: peak RSS, wall
 * time, the run type, the statements that hit the timeout per stage, the time of each stage and the
 * slowest exploration statement, and the recall of the two planted patterns (PLANTED_PATTERNS). The
 * target (issue 26): 50M rows within 1.5 GB peak RSS and no timeouts. The data is generated into a
 * temporary directory and deleted after each size; nothing is kept but bench-results/scale.json.
 *
 * ASSAY_SCALE_ROWS=1000000,10000000 picks the sizes. Config (ASSAY_SQL_MEMORY_LIMIT_MB, …) is passed
 * through to the runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { renderTable } from '../../src/cli/output.js';
import { type Bench, round, writeBenchResult } from './bench.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const GNU_TIME = '/usr/bin/time';
const RSS_MARK = 'assay-bench-max-rss-kb=';
const DEFAULT_SIZES = [1_000_000, 10_000_000, 50_000_000];
/** The issue's target at 50M rows. */
const TARGET_RSS_MB = 1_536;

/** Writes the warehouse: one pass of range() per table, values from hashes of the row number (repeatable). */
export async function generateScaleWarehouse(file: string, rows: number): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE products AS
      SELECT i AS product_id, 'product ' || i AS product_name,
        ['electronics','books','toys','garden','fashion','beauty','sports','home','grocery','music','games','office'][1 + CAST(i % 12 AS BIGINT)] AS category,
        round(5 + CAST(hash(i) % 20000 AS BIGINT) / 100.0, 2) AS list_price
      FROM range(1, 1001) t(i)`);
    // planted: tablets are returned 3× as often; one product in twelve sells at triple the amount
    await connection.run(`CREATE TABLE orders AS
      WITH base AS (SELECT i, CAST(hash(i) % 1000000007 AS BIGINT) AS h, CAST(hash(i * 7 + 3) % 1000000007 AS BIGINT) AS g FROM range(${rows}) t(i))
      SELECT i + 1 AS order_id,
        1 + (h % ${Math.max(10, Math.floor(rows / 10))}) AS customer_id,
        1 + (g % 1000) AS product_id,
        TIMESTAMP '2024-01-01' + to_seconds(CAST(i * (31536000.0 / ${rows}) AS BIGINT)) AS ordered_at,
        ['US','GB','DE','FR','ES','IT','NL','SE','PL','BR','IN','JP'][1 + ((h >> 8) % 12)] AS country,
        ['mobile','desktop','tablet'][1 + ((h >> 16) % 3)] AS device,
        1 + ((h >> 20) % 5) AS quantity,
        round(10 + ((g >> 4) % 10000) / 100.0 * (CASE WHEN (g % 1000) % 12 = 0 THEN 3 ELSE 1 END), 2) AS amount,
        ((h >> 24) % 100) < (CASE WHEN ((h >> 16) % 3) = 2 THEN 18 ELSE 6 END) AS returned
      FROM base`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

interface RunJson {
  run_id: string;
  status: string;
  run_type: string;
  result: {
    insights: Array<{ name: string; description: string; validation?: { status: string } }>;
    summary: { queries_executed: number };
    query_timeouts?: { exploration: number; mining: number; verification: number };
    telemetry?: { phase_durations_ms?: Record<string, number> };
  };
}

/** The patterns generateScaleWarehouse plants, and how an insight's text names each. */
export const PLANTED_PATTERNS: ReadonlyArray<{ name: string; found: (text: string) => boolean }> = [
  { name: 'tablets are returned about 3x as often', found: (text) => /\btablet\b/i.test(text) && /\breturned\b/i.test(text) },
  // product_id 1 + (g % 1000) with (g % 1000) % 12 = 0 is product 1, 13, 25, …: category index 1 + 1, books
  { name: 'books sell at about 3x the amount', found: (text) => /\bbooks\b/i.test(text) && /\bamount\b/i.test(text) },
];

/** Share of the planted patterns some confirmed insight names. */
export function plantedRecall(insights: RunJson['result']['insights']): number {
  const confirmed = insights
    .filter((insight) => insight.validation?.status === 'confirmed')
    .map((insight) => `${insight.name} ${insight.description}`);
  return PLANTED_PATTERNS.filter((pattern) => confirmed.some((text) => pattern.found(text))).length / PLANTED_PATTERNS.length;
}

/** The slowest exploration statement of the run, from its step log. */
function slowestExplorationStep(dataDir: string, runId: string): { seconds: number; purpose: string } | undefined {
  const file = join(dataDir, 'store', 'runs', runId, 'steps.jsonl');
  if (!existsSync(file)) return undefined;
  let slowest: { seconds: number; purpose: string } | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const step = JSON.parse(line) as { action?: string; elapsed_ms?: number; query_purpose?: string };
    if (step.action !== 'query' || typeof step.elapsed_ms !== 'number') continue;
    if (!slowest || step.elapsed_ms / 1000 > slowest.seconds)
      slowest = { seconds: step.elapsed_ms / 1000, purpose: step.query_purpose ?? '' };
  }
  return slowest;
}

interface ScaleRow {
  rows: number;
  generate_s: number;
  wall_s: number;
  peak_rss_mb: number | null;
  run_type: string;
  insights: number;
  confirmed: number;
  timeouts: number;
  timeouts_by_stage: string;
  planted_recall: number;
  exploration_s: number | null;
  mining_s: number | null;
  verification_s: number | null;
  slowest_exploration_s: number | null;
  slowest_exploration: string;
}

function runDiscovery(file: string, out: string): { wall: number; rssKb: number | undefined; json: RunJson | undefined; error?: string } {
  const args = [
    join(REPO_ROOT, 'bin', 'assay.js'),
    'run',
    '--warehouse',
    `duckdb:${file}`,
    '--llm',
    'offline:analyst',
    '--out',
    out,
    '--json',
  ];
  const started = process.hrtime.bigint();
  const child = spawnSync(GNU_TIME, ['-f', `${RSS_MARK}%M`, process.execPath, ...args], {
    cwd: out,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, ASSAY_DATA_DIR: join(out, 'data') },
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const marked = child.stderr.split('\n').find((line) => line.startsWith(RSS_MARK));
  const rssKb = marked === undefined ? undefined : Number(marked.slice(RSS_MARK.length));
  try {
    return { wall, rssKb, json: JSON.parse(child.stdout) as RunJson };
  } catch {
    return { wall, rssKb, json: undefined, error: `exit ${child.status}: ${child.stderr.slice(-800)}` };
  }
}

export const scaleBench: Bench = {
  name: 'scale',
  description: 'a 1M/10M/50M-row fact table discovered end to end with the offline analyst: peak RSS, wall time, run type, query timeouts',
  async run() {
    if (!existsSync(GNU_TIME)) {
      process.stdout.write(`skipped: ${GNU_TIME} (GNU time) is not installed; apt-get install time\n`);
      return;
    }
    const sizes = (process.env.ASSAY_SCALE_ROWS ?? DEFAULT_SIZES.join(','))
      .split(',')
      .map((size) => Number(size.trim()))
      .filter((size) => Number.isInteger(size) && size > 0);
    const loadAtStart = loadavg().map((load) => round(load, 2));
    const results: ScaleRow[] = [];
    for (const rows of sizes) {
      const directory = mkdtempSync(join(tmpdir(), 'assay-bench-scale-'));
      try {
        const file = join(directory, `orders-${rows}.duckdb`);
        const generating = process.hrtime.bigint();
        await generateScaleWarehouse(file, rows);
        const generateSeconds = Number(process.hrtime.bigint() - generating) / 1e9;
        const run = runDiscovery(file, directory);
        if (!run.json) process.stdout.write(`${rows} rows: the run printed no JSON (${run.error})\n`);
        const timeouts = run.json?.result.query_timeouts ?? { exploration: 0, mining: 0, verification: 0 };
        const phases = run.json?.result.telemetry?.phase_durations_ms ?? {};
        const phaseSeconds = (name: string) => (phases[name] === undefined ? null : round((phases[name] as number) / 1000, 1));
        const slowest = run.json ? slowestExplorationStep(join(directory, 'data'), run.json.run_id) : undefined;
        const total = timeouts.exploration + timeouts.mining + timeouts.verification;
        results.push({
          rows,
          generate_s: round(generateSeconds, 1),
          wall_s: round(run.wall, 1),
          peak_rss_mb: run.rssKb === undefined ? null : round(run.rssKb / 1024, 0),
          run_type: run.json ? `${run.json.status} (${run.json.run_type})` : 'no result',
          insights: run.json?.result.insights.length ?? 0,
          confirmed: run.json?.result.insights.filter((insight) => insight.validation?.status === 'confirmed').length ?? 0,
          timeouts: total,
          timeouts_by_stage: `exploration ${timeouts.exploration}, mining ${timeouts.mining}, verification ${timeouts.verification}`,
          planted_recall: run.json ? plantedRecall(run.json.result.insights) : 0,
          exploration_s: phaseSeconds('exploration'),
          mining_s: phaseSeconds('mining'),
          verification_s: phaseSeconds('verification'),
          slowest_exploration_s: slowest === undefined ? null : round(slowest.seconds, 1),
          slowest_exploration: slowest?.purpose.slice(0, 120) ?? '',
        });
        const last = results.at(-1) as ScaleRow;
        process.stdout.write(
          `${rows.toLocaleString('en-US')} rows: ${last.wall_s} s, peak RSS ${last.peak_rss_mb} MB, ${last.run_type}, ${last.timeouts} timeouts, planted recall ${last.planted_recall}, slowest exploration statement ${last.slowest_exploration_s} s (${last.slowest_exploration})\n`,
        );
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    }
    process.stdout.write(
      `${renderTable(
        [
          'rows',
          'generate s',
          'wall s',
          'peak RSS MB',
          'run',
          'insights',
          'confirmed',
          'recall',
          'timeouts',
          'by stage',
          'explore/mine/verify s',
          'slowest step s',
        ],
        results.map((row) => [
          row.rows.toLocaleString('en-US'),
          row.generate_s,
          row.wall_s,
          row.peak_rss_mb ?? '—',
          row.run_type,
          row.insights,
          row.confirmed,
          row.planted_recall,
          row.timeouts,
          row.timeouts_by_stage,
          `${row.exploration_s ?? '—'} / ${row.mining_s ?? '—'} / ${row.verification_s ?? '—'}`,
          row.slowest_exploration_s ?? '—',
        ]),
      )}\n`,
    );
    const path = writeBenchResult('scale', {
      target: { rows: 50_000_000, peak_rss_mb: TARGET_RSS_MB, timeouts: 0 },
      load_at_start: loadAtStart,
      load_at_end: loadavg().map((load) => round(load, 2)),
      results,
    });
    process.stdout.write(`wrote ${path}\n`);
  },
};
