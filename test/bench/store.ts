/**
 * `npm run bench -- store`: what the run stores cost Assay. Writes bench-results/store.json.
 *
 * 1. demo — `assay demo` (24 steps, embedded store and vector index, offline analyst) as a child process
 *    under test/bench/fs-counter.ts: run.json writes, run-journal appends, step and vector writes and
 *    fsyncs counted from the process's own fs calls; the run's wall time; and Assay's own share of the
 *    run's phase time: (Σ phases − Σ `<phase>_sql` − Σ LLM call latency) / Σ phases, from the run
 *    document's telemetry (issue #13).
 * 2. calls — getRun and updateRun per call with a realistic run document (5 areas, 20 insights, 150 LLM
 *    calls; see test/support/realistic-run.ts) on the embedded store and on PostgreSQL (a throwaway
 *    server), the updates being those a run makes (an LLM call appended, phase timings added, an
 *    insight's verdict written). CPU time of this process per call (what a worker pays, issue #10), wall
 *    time, and for PostgreSQL the server backends' CPU. `postgres_two_writers` alternates the updates of
 *    one run between two store instances, as two workers of a fleet do, so each sees the other's change.
 *
 * Before and after side by side: set STORE_BENCH_BASELINE to a checkout of an older Assay with its
 * node_modules (`git archive 85ab540 | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/`); its
 * CLI runs the same demo and its store modules the same calls, interleaved with this tree's. Without
 * it, the numbers measured at 85ab540 before the journaled stores are reported next to this run's.
 * STORE_BENCH_DEMO_RUNS (default 3) sets the demo repetitions per side; medians are reported.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Table from 'cli-table3';
import pg from 'pg';
import type { Run } from '../../src/domain/index.js';
import type { RunStore } from '../../src/store/port.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { realisticLlmCall, realisticRun } from '../support/realistic-run.js';
import { type Bench, round, writeBenchResult } from './bench.js';
import type { FsCounts } from './fs-counter.js';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const COUNTER = fileURLToPath(new URL('./fs-counter.ts', import.meta.url));
const CALLS_PER_BATCH = 50;
const BATCHES = 3;

/**
 * Measured at 85ab540 (before the journaled stores) with this bench and STORE_BENCH_BASELINE, on the
 * shared 2-core machine (medians of 3 interleaved demo runs; 150 calls each); reported when no baseline
 * tree is given.
 */
const RECORDED_BEFORE = {
  commit: '85ab540',
  demo: {
    run_wall_ms: 6_341,
    own_ms: 4_570.8,
    own_share: 0.577,
    sql_ms: 2_391.6,
    process_cpu_ms: 7_841,
    run_json_writes: 137,
    run_journal_appends: 0,
    step_writes: 24,
    vector_file_writes: 28,
    vector_journal_appends: 0,
    fsyncs: 192,
  },
  calls: {
    embedded: { update_cpu_us: 4_909, update_wall_us: 6_138.5, get_cpu_us: 1_204.6, get_wall_us: 1_278.7 },
    postgres: { update_cpu_us: 6_105.5, update_wall_us: 8_931.4, get_cpu_us: 1_398.9, get_wall_us: 1_817.2, server_cpu_us: 2_333.3 },
    postgres_two_writers: {
      update_cpu_us: 4_483.9,
      update_wall_us: 14_078.5,
      get_cpu_us: 1_625.6,
      get_wall_us: 2_911,
      server_cpu_us: 7_466.7,
    },
  } as Record<string, CallCost>,
};

/** The demo run's times, then the file-system counts of the process that ran it (FsCounts, its CPU renamed). */
type DemoSample = {
  run_wall_ms: number;
  phase_ms: number;
  sql_ms: number;
  llm_ms: number;
  own_ms: number;
  own_share: number;
  process_cpu_ms: number;
} & Omit<FsCounts, 'bytes_written' | 'cpu_ms'>;

interface CallCost {
  update_cpu_us: number;
  update_wall_us: number;
  get_cpu_us: number;
  get_wall_us: number;
  /** PostgreSQL backends' CPU per call (updates and reads together), 10 ms clock-tick resolution. */
  server_cpu_us?: number;
}

interface StoreModules {
  createEmbeddedRunStore(options: { dir: string }): RunStore;
  createPostgresRunStore(options: { url: string; schema?: string; poolSize?: number }): Promise<RunStore>;
}

function printTable(rows: Array<Record<string, string | number>>): string {
  const head = Object.keys(rows[0] ?? {});
  const table = new Table({ head });
  for (const row of rows) table.push(head.map((key) => row[key] ?? ''));
  return table.toString();
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function ratio(before: number | undefined, after: number): number | null {
  return before === undefined || after === 0 ? null : round(before / after, 2);
}

/** The environment of a demo child: this one's, without anything that would point it at another store, model or config. */
function demoEnv(dataDir: string, countsPath: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('ASSAY_') || ['MONGO_URL', 'QDRANT_URL', 'REDIS_URL', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY'].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, ASSAY_DATA_DIR: dataDir, FS_COUNTER_OUT: countsPath, LOG_LEVEL: 'warn' };
}

async function runDemo(tree: string, warehouse: string, workDir: string): Promise<DemoSample> {
  const dataDir = await mkdtemp(join(workDir, 'demo-'));
  for (const suffix of ['', '.truths.json'])
    if (existsSync(`${warehouse}${suffix}`)) copyFileSync(`${warehouse}${suffix}`, join(dataDir, `demo-ecommerce.duckdb${suffix}`));
  const countsPath = join(dataDir, 'fs-counts.json');
  const outDir = join(dataDir, 'out');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', pathToFileURL(COUNTER).href, 'src/cli/main.ts', 'demo', '--quiet', '--out', outDir],
    { cwd: tree, env: demoEnv(dataDir, countsPath), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  if (code !== 0) throw new Error(`assay demo in ${tree} exited with ${code}: ${stderr.slice(-2_000)}`);
  const { cpu_ms: processCpuMs, bytes_written: _bytesWritten, ...writes } = JSON.parse(readFileSync(countsPath, 'utf8')) as FsCounts;
  const [runId] = readdirSync(outDir);
  const run = JSON.parse(readFileSync(join(outDir, runId as string, 'run.json'), 'utf8')) as Run;
  let phaseMs = 0;
  let sqlMs = 0;
  for (const [name, ms] of Object.entries(run.telemetry.phase_durations_ms)) {
    if (name.endsWith('_sql')) sqlMs += ms;
    else phaseMs += ms;
  }
  const llmMs = run.telemetry.llm_calls.reduce((sum, call) => sum + call.latency_ms, 0);
  const ownMs = phaseMs - sqlMs - llmMs;
  await rm(dataDir, { recursive: true, force: true });
  return {
    run_wall_ms: Date.parse(run.completed_at ?? run.updated_at) - Date.parse(run.started_at ?? run.created_at),
    phase_ms: round(phaseMs, 1),
    sql_ms: round(sqlMs, 1),
    llm_ms: round(llmMs, 1),
    own_ms: round(ownMs, 1),
    own_share: round(ownMs / phaseMs, 3),
    process_cpu_ms: processCpuMs,
    ...writes,
  };
}

function summariseDemo(samples: DemoSample[]): Record<string, number | Record<string, number>> {
  const keys = Object.keys(samples[0] ?? {}).filter((key) => key !== 'fsyncs_by_kind') as Array<
    Exclude<keyof DemoSample, 'fsyncs_by_kind'>
  >;
  return {
    ...Object.fromEntries(keys.map((key) => [key, round(median(samples.map((sample) => sample[key])), 3)])),
    fsyncs_by_kind: samples[samples.length - 1]?.fsyncs_by_kind ?? {},
  };
}

/** The updates a run makes, in turn: an LLM call recorded, phase timings added, an insight's verdict written. */
function realisticUpdate(index: number): (run: Run) => Run {
  switch (index % 3) {
    case 0:
      return (run) => ({
        ...run,
        telemetry: { ...run.telemetry, llm_calls: [...run.telemetry.llm_calls, realisticLlmCall(index)] },
      });
    case 1:
      return (run) => ({
        ...run,
        telemetry: {
          ...run.telemetry,
          phase_durations_ms: {
            ...run.telemetry.phase_durations_ms,
            verification: (run.telemetry.phase_durations_ms.verification ?? 0) + 12.5,
          },
        },
      });
    default:
      return (run) => ({
        ...run,
        areas: run.areas.map((area, areaIndex) =>
          areaIndex !== index % run.areas.length
            ? area
            : {
                ...area,
                insights: area.insights.map((insight, insightIndex) =>
                  insightIndex === index % area.insights.length && insight.validation
                    ? { ...insight, validation: { ...insight.validation, reasoning: `checked again (${index})` } }
                    : insight,
                ),
              },
        ),
      });
  }
}

/** CPU time (user + system) of the given processes in microseconds, from /proc (Linux); undefined elsewhere. */
function processCpuUs(pids: number[]): number | undefined {
  try {
    let ticks = 0;
    for (const pid of pids) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks * 1_000_000) / 100;
  } catch {
    return undefined;
  }
}

async function measureCalls(writers: RunStore[], backends?: () => Promise<number[]>): Promise<CallCost> {
  let updateCpu = 0;
  let updateWall = 0;
  let getCpu = 0;
  let getWall = 0;
  let serverCpu: number | undefined = 0;
  const reader = writers[0] as RunStore;
  // warm-up: the JIT, the pools and each store's memory see the run once
  const warmId = `warm-${randomBytes(3).toString('hex')}`;
  await reader.createRun(realisticRun(warmId));
  for (let index = 0; index < 30; index++) {
    await (writers[index % writers.length] as RunStore).updateRun(warmId, realisticUpdate(index));
    await reader.getRun(warmId);
  }
  for (let batch = 0; batch < BATCHES; batch++) {
    // a fresh run per batch keeps the document near its realistic size
    const id = `bench-${batch}-${randomBytes(3).toString('hex')}`;
    await reader.createRun(realisticRun(id));
    const pids = backends ? await backends() : [];
    const serverBefore = processCpuUs(pids);
    let cpu = process.cpuUsage();
    let wall = process.hrtime.bigint();
    for (let index = 0; index < CALLS_PER_BATCH; index++)
      await (writers[index % writers.length] as RunStore).updateRun(id, realisticUpdate(index));
    let cpuUsed = process.cpuUsage(cpu);
    updateCpu += cpuUsed.user + cpuUsed.system;
    updateWall += Number(process.hrtime.bigint() - wall) / 1_000;
    cpu = process.cpuUsage();
    wall = process.hrtime.bigint();
    for (let index = 0; index < CALLS_PER_BATCH; index++) {
      // two writers: the reader has to catch up with the other writer's change before every read
      if (writers.length > 1) await (writers[1] as RunStore).updateRun(id, realisticUpdate(index));
      const started = process.cpuUsage();
      const startedWall = process.hrtime.bigint();
      await reader.getRun(id);
      const used = process.cpuUsage(started);
      getCpu += used.user + used.system;
      getWall += Number(process.hrtime.bigint() - startedWall) / 1_000;
    }
    cpuUsed = process.cpuUsage(cpu);
    const serverAfter = processCpuUs(pids);
    if (serverBefore === undefined || serverAfter === undefined || serverCpu === undefined) serverCpu = undefined;
    else serverCpu += serverAfter - serverBefore;
  }
  const calls = CALLS_PER_BATCH * BATCHES;
  const cost: CallCost = {
    update_cpu_us: round(updateCpu / calls, 1),
    update_wall_us: round(updateWall / calls, 1),
    get_cpu_us: round(getCpu / calls, 1),
    get_wall_us: round(getWall / calls, 1),
  };
  // server CPU covers the updates and reads (and, with two writers, the catch-up updates)
  if (backends && serverCpu !== undefined) cost.server_cpu_us = round(serverCpu / (calls * (writers.length > 1 ? 3 : 2)), 1);
  return cost;
}

async function loadModules(tree: string): Promise<StoreModules> {
  const embedded = (await import(pathToFileURL(join(tree, 'src/store/embedded.ts')).href)) as Pick<StoreModules, 'createEmbeddedRunStore'>;
  const postgres = (await import(pathToFileURL(join(tree, 'src/store/postgres.ts')).href)) as Pick<StoreModules, 'createPostgresRunStore'>;
  return { createEmbeddedRunStore: embedded.createEmbeddedRunStore, createPostgresRunStore: postgres.createPostgresRunStore };
}

async function callCosts(modules: StoreModules, workDir: string, server: TestPostgres | undefined): Promise<Record<string, CallCost>> {
  const costs: Record<string, CallCost> = {};
  const dir = await mkdtemp(join(workDir, 'calls-'));
  const embedded = modules.createEmbeddedRunStore({ dir });
  try {
    costs.embedded = await measureCalls([embedded]);
  } finally {
    await embedded.close();
  }
  if (!server) return costs;
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const first = await modules.createPostgresRunStore({ url: server.adminUrl, schema, poolSize: 2 });
  const second = await modules.createPostgresRunStore({ url: server.adminUrl, schema, poolSize: 2 });
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  const backends = async () =>
    (
      await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = $1',
        ['client backend'],
      )
    ).rows.map((row) => row.pid);
  try {
    costs.postgres = await measureCalls([first], backends);
    costs.postgres_two_writers = await measureCalls([first, second], backends);
  } finally {
    await Promise.all([first.close(), second.close(), admin.end()]);
  }
  return costs;
}

export const storeBench: Bench = {
  name: 'store',
  description: 'run-store cost: demo run writes, fsyncs and own CPU share (embedded); getRun/updateRun per call (embedded, PostgreSQL)',
  async run() {
    const baseline = process.env.STORE_BENCH_BASELINE ? resolve(process.env.STORE_BENCH_BASELINE) : undefined;
    if (baseline && !existsSync(join(baseline, 'src/cli/main.ts')))
      throw new Error(`STORE_BENCH_BASELINE=${baseline} is not an Assay checkout`);
    const demoRuns = Number(process.env.STORE_BENCH_DEMO_RUNS ?? 3);
    const workDir = await mkdtemp(join(tmpdir(), 'assay-bench-store-'));
    const started = await startTestPostgres();
    if (!started.available) process.stdout.write(`PostgreSQL calls skipped: ${started.reason}\n`);
    const server = started.available ? started.server : undefined;
    try {
      const warehouse = join(workDir, 'demo-ecommerce.duckdb');
      await generateDemoWarehouse({ kind: 'ecommerce', out: warehouse });

      const before: DemoSample[] = [];
      const after: DemoSample[] = [];
      for (let index = 0; index < demoRuns; index++) {
        // interleaved, so both sides see the same machine load
        if (baseline) before.push(await runDemo(baseline, warehouse, workDir));
        after.push(await runDemo(ROOT, warehouse, workDir));
      }
      const demoAfter = summariseDemo(after);
      const demoBefore = baseline ? summariseDemo(before) : RECORDED_BEFORE.demo;

      const callsAfter = await callCosts(await loadModules(ROOT), workDir, server);
      const callsBefore = baseline ? await callCosts(await loadModules(baseline), workDir, server) : RECORDED_BEFORE.calls;

      const numberAt = (source: Record<string, unknown> | undefined, key: string) =>
        typeof source?.[key] === 'number' ? (source[key] as number) : undefined;
      const demoRows = [
        'run_wall_ms',
        'own_ms',
        'own_share',
        'sql_ms',
        'process_cpu_ms',
        'run_json_writes',
        'run_journal_appends',
        'step_writes',
        'vector_file_writes',
        'vector_journal_appends',
        'fsyncs',
      ].map((key) => {
        const was = numberAt(demoBefore as Record<string, unknown>, key);
        const now = numberAt(demoAfter, key) ?? 0;
        return { measure: key, before: was ?? '', after: now, before_over_after: ratio(was, now) ?? '' };
      });
      const callRows = Object.entries(callsAfter).flatMap(([store, cost]) =>
        (Object.keys(cost) as Array<keyof CallCost>).map((key) => {
          const was = callsBefore?.[store]?.[key];
          const now = cost[key] ?? 0;
          return { store, measure: key, before: was ?? '', after: now, before_over_after: ratio(was, now) ?? '' };
        }),
      );
      process.stdout.write(
        `demo run (median of ${demoRuns}${baseline ? ' per side, interleaved' : `; before: recorded at ${RECORDED_BEFORE.commit}`}):\n`,
      );
      process.stdout.write(`${printTable(demoRows)}\n`);
      process.stdout.write(
        `per call, realistic run document (${CALLS_PER_BATCH * BATCHES} calls${baseline ? '' : `; before: recorded at ${RECORDED_BEFORE.commit}`}):\n${printTable(callRows)}\n`,
      );
      const path = writeBenchResult('store', {
        baseline: baseline ? { tree: baseline } : { recorded_at: RECORDED_BEFORE.commit },
        demo: { runs_per_side: demoRuns, before: demoBefore, after: demoAfter, rows: demoRows, samples: { before, after } },
        calls: { per_side: CALLS_PER_BATCH * BATCHES, before: callsBefore, after: callsAfter, rows: callRows },
        notes: [
          'own_share = (sum of phase durations - sum of <phase>_sql - sum of LLM call latency) / sum of phase durations, from the run document',
          'cpu_us: CPU time of the calling process per call (process.cpuUsage); server_cpu_us: PostgreSQL client backends, /proc clock ticks',
          'the machine is shared: wall times and SQL times vary by tens of percent between runs; write and fsync counts do not',
        ],
      });
      process.stdout.write(`wrote ${path}\n`);
    } finally {
      if (server) await server.stop();
      await rm(workDir, { recursive: true, force: true });
    }
  },
};
