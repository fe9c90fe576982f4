/**
 * `npm run bench -- fleet`: the BullMQ fleet as separate OS processes — redis-server, a throwaway
 * PostgreSQL cluster as the shared run store, `assay llm-simulator` (OpenAI wire format, the offline
 * analyst behind it), `assay api --runner bullmq` and `assay worker` processes — driven through the
 * HTTP API and measured from outside, on an ecommerce demo warehouse. Writes `bench-results/fleet.json`.
 *
 * 1. speedup_4_workers — simulator latency 300 ms, one worker process on every other queue. A batch of
 *    runs is held at the analysis barrier (queue `analyze-area` paused until every run of the batch has
 *    explored and its area jobs wait), then released; the stage lasts from the release until the last
 *    run document shows every area settled and every insight validated (that document's `updated_at`).
 *    The same batch with 1 and with 4 processes consuming `analyze-area,verify` (fresh processes, warmed
 *    up by a small batch first; 3 interleaved repetitions each): the ratio of the medians. CPU use per
 *    process role (and by processes outside the fleet) and store lock waits are recorded per stage.
 * 2. overhead_ms_per_job — simulator latency 0, production grouping (control, explore, 2 × analyze).
 *    For every job that ran exactly once from its enqueue to its end (queues index, explore, verify,
 *    recommend: no retry, no stall, no parking in waiting-children): BullMQ's
 *    `finishedOn - timestamp` minus the handler's own time (`durationMs` of the worker's
 *    "job completed" log line, measured around the handler). Queue-to-start (`processedOn - timestamp`)
 *    is reported next to it.
 * 3. recovery_s — simulator latency 300 ms, control + 2 explore + 2 analyze workers, the product's
 *    lock and stalled settings. At random moments a worker process holding jobs of explore,
 *    analyze-area or verify is SIGKILLed (and a replacement started, as an orchestrator would); per job
 *    it held: seconds from the kill until the same job id is processing again on another worker
 *    (`processedOn` after the kill, `processedBy` another process — each worker runs with a host name
 *    of its own where the machine allows it).
 * 4. runs, lost_updates, duplicated_steps — every run of the bench, from the run documents, results
 *    and steps in PostgreSQL once all have completed.
 *
 * `FLEET_BENCH_SEED` fixes the kill moments; `FLEET_BENCH_KEEP=1` keeps the work dir (process logs).
 * Diagnostics: `FLEET_BENCH_STAGES=1,4` measures only those analysis stages and prints them (no JSON written);
 * `FLEET_BENCH_WORKER_NODE_ARGS` are node flags for every worker (`--cpu-prof --cpu-prof-dir=DIR`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { isFreshBuild } from '../../bin/fresh-build.js';
import { LLM_WORKER_DEFAULTS, QUEUE_NAMES, queueContract, type QueueName } from '../../queues/index.js';
import { renderTable } from '../../src/cli/context.js';
import { loadPack } from '../../src/discovery/packs/pack-loader.js';
import { isTerminal, type Run } from '../../src/domain/index.js';
import { openRunStore } from '../../src/store/index.js';
import type { RunStore } from '../../src/store/port.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { REDIS_SKIP_REASON, redisServerMissing, startRedisServer } from '../integration/fleet/redis-server.js';
import {
  ProcessGroup,
  canIsolateHostname,
  createApiKeyViaCli,
  fleetEnv,
  onTerminationSignal,
  startApi,
  startSimulator,
  startWorker,
  type ApiProcess,
  type SimulatorProcess,
  type WorkerHandle,
} from '../support/fleet-processes.js';
import { startTestPostgres } from '../support/postgres.js';
import { checkRunIntegrity, type RunIntegrity } from '../support/run-integrity.js';
import { type Bench, round, writeBenchResult } from './bench.js';

const PACK = 'ecommerce';
const DEMO_SCALE = 0.2;
const MAX_STEPS = 8;
/** A model the catalog knows, served by the simulator through the OpenAI adapter. */
const MODEL = 'openai:gpt-5.4-mini';
const MODEL_CONTEXT_WINDOW = 400_000;
const SIMULATOR_LATENCY_MS = 300;
/**
 * The speedup again with a model as slow as real ones are for analysis (a call with a 10k–20k-token
 * prompt and a few thousand output tokens takes 10–60 s on current providers; 3 s is still fast): at
 * 300 ms the stage is bound by the CPU of a small machine, not by the model.
 */
const REALISTIC_LATENCY_MS = 3_000;
const REALISTIC_SCHEDULE = [1, 4] as const;

const SPEEDUP_RUNS = 16;
/** Interleaved, so a drift of the machine affects both sides alike. */
const SPEEDUP_SCHEDULE = [1, 4, 1, 4, 1, 4] as const;
/**
 * Runs through a fresh set of workers before its measured batch: workers in production are long-lived,
 * a fresh process JIT-compiles its hot paths on its first jobs (cold, the same jobs cost 4 processes ~40 % more CPU).
 */
const SPEEDUP_WARMUP_RUNS = 4;
const OVERHEAD_RUNS = 6;
/** Diagnostic: runs one after another, so jobs of different runs do not compete for the CPU. */
const OVERHEAD_SEQUENTIAL_RUNS = 3;
const RECOVERY_RUNS = 12;
const RECOVERY_STAGGER_MS = 2_500;
const RECOVERY_KILLS = 10;
const KILL_GAP_MS = { min: 2_000, max: 5_000 };
/** No kill starts after this long into the recovery batch. */
const RECOVERY_WINDOW_MS = 100_000;
/** A held job not processing again this long after the kill counts as not recovered. */
const RECOVERY_GIVE_UP_MS = 120_000;
const RUN_TIMEOUT_MS = 300_000;

const ANALYZE_QUEUES: readonly QueueName[] = ['mine', 'analyze-area', 'verify'];
/** Phase 1: everything but analysis on one process. */
const OTHER_QUEUES: readonly QueueName[] = ['coordinator', 'explore', 'index', 'recommend', 'maintenance'];
/**
 * Phases 2 and 3: `index` stays with the control process. Without Qdrant here the vector index is the
 * embedded one in the shared data dir, made for one writer: schema index builds (the one collection
 * every project's pointer shares) must all come from one process; run collections have one writer each.
 */
const CONTROL_QUEUES: readonly QueueName[] = ['coordinator', 'index', 'recommend', 'maintenance'];
const EXPLORE_QUEUES: readonly QueueName[] = ['explore'];
/** Jobs that start once and end without parking in waiting-children: their BullMQ times mean one attempt. */
const SINGLE_ENTRY_QUEUES: readonly QueueName[] = ['index', 'explore', 'mine', 'verify', 'recommend'];
const KILLABLE_QUEUES: readonly QueueName[] = ['explore', 'mine', 'analyze-area', 'verify'];
const POOLS = { explore: EXPLORE_QUEUES, analyze: ANALYZE_QUEUES } as const;
type PoolName = keyof typeof POOLS;
const PHASE_OF_QUEUE: Partial<Record<QueueName, string>> = {
  explore: 'exploration',
  mine: 'mining',
  'analyze-area': 'analysis',
  verify: 'verification',
};

const TARGETS = {
  speedup_4_workers: '>= 3.0',
  overhead_ms_per_job_p50: '<= 10',
  recovery_s_p95: '<= 30',
  lost_updates: '0',
  duplicated_steps: '0',
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Nearest-rank percentile of `values` (0 < p ≤ 1); null when there are none. */
function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

function roundOrNull(value: number | null, digits: number): number | null {
  return value === null ? null : round(value, digits);
}

/** mulberry32: a small seeded generator, so a run's kill moments can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux the bench runs on). */
const CLOCK_TICKS = 100;

interface CpuSample {
  totalTicks: number;
  idleTicks: number;
  byRole: Map<string, number>;
}

/** Machine-wide and per-role CPU ticks from /proc (Linux); undefined elsewhere. */
function sampleCpu(roles: ReadonlyMap<number, string>): CpuSample | undefined {
  if (!existsSync('/proc/stat')) return undefined;
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const totalTicks = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idleTicks = (fields[3] ?? 0) + (fields[4] ?? 0);
  const byRole = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const role =
      roles.get(pid) ?? (pid === process.pid ? 'bench' : comm === 'postgres' ? 'postgres' : comm === 'redis-server' ? 'redis' : undefined);
    if (role === undefined) continue;
    byRole.set(role, (byRole.get(role) ?? 0) + Number(rest[11]) + Number(rest[12]));
  }
  return { totalTicks, idleTicks, byRole };
}

interface CpuUse {
  /** Share of all cores busy over the window (every process on the machine). */
  busy_pct: number;
  /** Busy CPU seconds of processes that are not part of the bench (another job on the machine). */
  outside_fleet_s: number;
  /** CPU seconds of each role over the window (processes that exited inside it are not counted). */
  seconds_by_role: Record<string, number>;
}

function cpuBetween(before: CpuSample | undefined, after: CpuSample | undefined): CpuUse | null {
  if (!before || !after) return null;
  const total = after.totalTicks - before.totalTicks;
  const busy = total - (after.idleTicks - before.idleTicks);
  const seconds: Record<string, number> = {};
  let ours = 0;
  for (const [role, ticks] of [...after.byRole].sort(([left], [right]) => left.localeCompare(right))) {
    const used = ticks - (before.byRole.get(role) ?? 0);
    ours += used;
    seconds[role] = round(used / CLOCK_TICKS, 2);
  }
  return {
    busy_pct: total > 0 ? round((100 * busy) / total, 1) : 0,
    outside_fleet_s: round(Math.max(0, busy - ours) / CLOCK_TICKS, 2),
    seconds_by_role: seconds,
  };
}

interface LockWaits {
  samples: number;
  /** Mean number of store connections waiting for a lock (the run row's `SELECT … FOR UPDATE`). */
  waiting_mean: number;
  waiting_max: number;
  /** Mean number of connections inside a transaction, neither running a statement nor waiting: the worker holds the row while busy. */
  idle_in_transaction_mean: number;
  active_mean: number;
}

/** Samples pg_stat_activity of the store every 50 ms until `stop()`. */
function samplePostgresLocks(url: string): { stop(): Promise<LockWaits | null> } {
  const client = new pg.Client({ connectionString: url });
  // a store stopped under it (an interrupted bench) ends the loop through the failing query
  client.on('error', () => undefined);
  let running = true;
  const rows: Array<{ waiting: number; idle: number; active: number }> = [];
  const loop = (async () => {
    await client.connect();
    while (running) {
      const {
        rows: [row],
      } = await client.query<{ waiting: string; idle: string; active: string }>(
        `SELECT count(*) FILTER (WHERE wait_event_type = 'Lock') AS waiting,
                count(*) FILTER (WHERE state = 'idle in transaction') AS idle,
                count(*) FILTER (WHERE state = 'active' AND wait_event_type IS DISTINCT FROM 'Lock') AS active
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      if (row) rows.push({ waiting: Number(row.waiting), idle: Number(row.idle), active: Number(row.active) });
      await sleep(50);
    }
  })().then(
    () => false,
    () => true,
  );
  return {
    async stop() {
      running = false;
      const failed = await loop;
      await client.end().catch(() => undefined);
      if (failed || rows.length === 0) return null;
      const mean = (pick: (row: (typeof rows)[number]) => number) => round(rows.reduce((sum, row) => sum + pick(row), 0) / rows.length, 2);
      return {
        samples: rows.length,
        waiting_mean: mean((row) => row.waiting),
        waiting_max: Math.max(...rows.map((row) => row.waiting)),
        idle_in_transaction_mean: mean((row) => row.idle),
        active_mean: mean((row) => row.active),
      };
    },
  };
}

interface StoreCounters {
  transactions: number;
  rolled_back: number;
  rows_returned: number;
  rows_fetched: number;
  /** Rows written per table: inserted + updated + deleted. */
  writes_by_table: Record<string, number>;
}

type StoreWork = StoreCounters;

/** The store database's cumulative counters (statistics are flushed about once a second: wait before reading). */
async function sampleStoreWork(url: string): Promise<StoreCounters | null> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await sleep(1_100);
    await client.query('SELECT pg_stat_clear_snapshot()');
    const database = (
      await client.query<{ commits: string; rollbacks: string; returned: string; fetched: string }>(
        `SELECT xact_commit AS commits, xact_rollback AS rollbacks, tup_returned AS returned, tup_fetched AS fetched
           FROM pg_stat_database WHERE datname = current_database()`,
      )
    ).rows[0];
    const tables = await client.query<{ name: string; writes: string }>(
      'SELECT relname AS name, n_tup_ins + n_tup_upd + n_tup_del AS writes FROM pg_stat_user_tables ORDER BY relname',
    );
    if (!database) return null;
    return {
      transactions: Number(database.commits),
      rolled_back: Number(database.rollbacks),
      rows_returned: Number(database.returned),
      rows_fetched: Number(database.fetched),
      writes_by_table: Object.fromEntries(tables.rows.map((row) => [row.name, Number(row.writes)])),
    };
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function storeWorkBetween(before: StoreCounters | null, after: StoreCounters | null): StoreWork | null {
  if (!before || !after) return null;
  const writes: Record<string, number> = {};
  for (const [table, count] of Object.entries(after.writes_by_table)) {
    const delta = count - (before.writes_by_table[table] ?? 0);
    if (delta > 0) writes[table] = delta;
  }
  return {
    transactions: after.transactions - before.transactions,
    rolled_back: after.rolled_back - before.rolled_back,
    rows_returned: after.rows_returned - before.rows_returned,
    rows_fetched: after.rows_fetched - before.rows_fetched,
    writes_by_table: writes,
  };
}

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  intervalMs = 200,
  state?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${state ? `: ${state()}` : ''}`);
    await sleep(intervalMs);
  }
}

/** Everything the phases share: the long-lived processes, the store, the queues. */
interface Bed {
  /** Workers start through bin/assay.js (the fresh build), not the sources through tsx. */
  launcher: boolean;
  workDir: string;
  logDir: string;
  prefix: string;
  store: RunStore;
  storeUrl: string;
  redis: Redis;
  queues: Map<QueueName, Queue>;
  slowSimulator: SimulatorProcess;
  zeroSimulator: SimulatorProcess;
  realisticSimulator: SimulatorProcess;
  api: ApiProcess;
  apiKey: string;
  /** The environment of a fleet process whose model is `simulator`. */
  env(simulator: SimulatorProcess): Record<string, string>;
  /** Every run started, for the integrity check. */
  runIds: string[];
  nextWorker: number;
  /** pid → role (analyze, explore, control, other, api, simulator) for the CPU meter. */
  roles: Map<number, string>;
}

function queueOf(bed: Bed, name: QueueName): Queue {
  let queue = bed.queues.get(name);
  if (!queue) {
    queue = new Queue(name, { connection: bed.redis, prefix: bed.prefix });
    queue.on('error', () => undefined);
    bed.queues.set(name, queue);
  }
  return queue;
}

async function startWorkerIn(
  bed: Bed,
  group: ProcessGroup,
  role: string,
  queues: readonly QueueName[],
  env: Record<string, string>,
): Promise<WorkerHandle> {
  bed.nextWorker += 1;
  // diagnostics, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (a worker writes its profile when stopped)
  const nodeArgs = process.env.FLEET_BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean);
  const handle = await startWorker({
    name: `${role}-${bed.nextWorker}`,
    queues,
    env,
    logDir: bed.logDir,
    isolateHostname: true,
    launcher: bed.launcher,
    ...(nodeArgs ? { nodeArgs } : {}),
  });
  group.add(handle.process);
  bed.roles.set(handle.process.pid, `worker:${role}`);
  return handle;
}

async function callApi<T>(bed: Bed, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${bed.api.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bed.apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

async function createProjects(bed: Bed, label: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${label}-${index + 1}`);
  for (const id of ids) await callApi(bed, 'POST', '/api/v1/projects', { id, name: `fleet bench ${id}`, domain: PACK });
  return ids;
}

async function discover(bed: Bed, projectId: string): Promise<string> {
  const started = await callApi<{ run_id: string }>(bed, 'POST', `/api/v1/projects/${projectId}/discover`, { max_steps: MAX_STEPS });
  bed.runIds.push(started.run_id);
  return started.run_id;
}

async function readRuns(bed: Bed, ids: readonly string[]): Promise<Run[]> {
  const runs = await Promise.all(ids.map((id) => bed.store.getRun(id)));
  return runs.map((run, index) => {
    if (!run) throw new Error(`run ${ids[index]} is not in the store`);
    return run;
  });
}

async function waitForCompletion(bed: Bed, ids: readonly string[]): Promise<Run[]> {
  let last: Run[] = [];
  return until(
    `${ids.length} runs to complete`,
    RUN_TIMEOUT_MS,
    async () => {
      last = await readRuns(bed, ids);
      return last.every((run) => run.phase === 'complete' && isTerminal(run.status)) ? last : undefined;
    },
    250,
    () => last.map((run) => `${run.id} ${run.status}/${run.phase} ${run.phase_detail}`).join('; '),
  );
}

/** Analysis and verification are over for this run: every area settled, every insight validated. */
function analysisSettled(run: Run): boolean {
  return (
    run.areas.length > 0 &&
    run.areas.every(
      (area) =>
        ['completed', 'failed', 'skipped'].includes(area.status) && area.insights.every((insight) => insight.validation !== undefined),
    )
  );
}

async function jobsOfRuns(bed: Bed, name: QueueName, runIds: readonly string[]): Promise<Job[]> {
  const wanted = new Set(runIds);
  const jobs = await queueOf(bed, name).getJobs(['completed', 'failed'], 0, -1);
  return jobs.filter((job) => wanted.has((job.data as { runId?: string }).runId ?? ''));
}

// ---------------------------------------------------------------------------------------------
// 1. speedup

interface StageMeasurement {
  analyze_workers: number;
  simulator_latency_ms: number;
  runs: number;
  /** Wall time from the first run's start to the analysis barrier (everything explored). */
  exploration_wall_s: number;
  /** Barrier release → the last run document showing analysis and verification settled (its `updated_at`). */
  stage_wall_ms: number;
  /** Barrier release → the last `finishedOn` of the batch's analyze-area and verify jobs (cross-check). */
  stage_wall_ms_jobs: number;
  analyze_jobs: number;
  verify_jobs: number;
  insights: number;
  /** Σ telemetry.phase_durations_ms analysis + verification over the runs: work inside the phases, not wall time. */
  phase_work_ms: number;
  /** Model calls of analysis and verification as the workers timed them (telemetry latency_ms; the simulator waits 300 ms). */
  llm_latency_ms_p50: number | null;
  llm_latency_ms_p95: number | null;
  /** Over the stage window. */
  cpu: CpuUse | null;
  store_locks: LockWaits | null;
  /** What the store did over the stage (pg_stat_database / pg_stat_user_tables deltas). */
  store_work: StoreWork | null;
}

async function measureStage(bed: Bed, analyzeWorkers: number, simulator: SimulatorProcess): Promise<StageMeasurement> {
  const group = new ProcessGroup();
  const analyzeQueue = queueOf(bed, 'analyze-area');
  try {
    const env = bed.env(simulator);
    await Promise.all([
      startWorkerIn(bed, group, 'other', OTHER_QUEUES, env),
      ...Array.from({ length: analyzeWorkers }, () => startWorkerIn(bed, group, 'analyze', ANALYZE_QUEUES, env)),
    ]);
    const label = `speedup-${analyzeWorkers}w-${simulator.latencyMs}ms-${bed.nextWorker}`;
    const warmUp = await createProjects(bed, `${label}-warmup`, SPEEDUP_WARMUP_RUNS);
    await waitForCompletion(bed, await Promise.all(warmUp.map((project) => discover(bed, project))));
    await analyzeQueue.pause();
    const projects = await createProjects(bed, label, SPEEDUP_RUNS);
    const startedAt = Date.now();
    const runIds = await Promise.all(projects.map((project) => discover(bed, project)));
    let state = '';
    await until(
      'every run of the batch at the analysis barrier',
      RUN_TIMEOUT_MS,
      async () => {
        const runs = await readRuns(bed, runIds);
        const ended = runs.find((run) => isTerminal(run.status));
        if (ended) throw new Error(`run ${ended.id} ended (${ended.status}) before analysis: ${ended.error ?? ended.phase_detail}`);
        const counts = await analyzeQueue.getJobCounts('wait', 'waiting', 'prioritized');
        const waiting = Object.values(counts).reduce((sum, count) => sum + count, 0);
        const areas = runs.reduce((sum, run) => sum + run.areas.length, 0);
        state = `${runs.filter((run) => run.phase === 'analysis').length}/${runs.length} runs in analysis, ${waiting}/${areas} area jobs waiting`;
        return runs.every((run) => run.phase === 'analysis') && waiting >= areas ? true : undefined;
      },
      200,
      () => state,
    );
    const locks = samplePostgresLocks(bed.storeUrl);
    const storeBefore = await sampleStoreWork(bed.storeUrl);
    const cpuBefore = sampleCpu(bed.roles);
    const releasedAt = Date.now();
    await analyzeQueue.resume();
    const settledAt = new Map<string, number>();
    await until(
      'analysis and verification of every run',
      RUN_TIMEOUT_MS,
      async () => {
        for (const run of await readRuns(
          bed,
          runIds.filter((id) => !settledAt.has(id)),
        ))
          if (analysisSettled(run) || isTerminal(run.status)) settledAt.set(run.id, Date.parse(run.updated_at));
        return settledAt.size === runIds.length ? true : undefined;
      },
      100,
    );
    const cpu = cpuBetween(cpuBefore, sampleCpu(bed.roles));
    const storeLocks = await locks.stop();
    const storeWork = storeWorkBetween(storeBefore, await sampleStoreWork(bed.storeUrl));
    const runs = await waitForCompletion(bed, runIds);
    const latencies = runs.flatMap((run) =>
      run.telemetry.llm_calls.filter((call) => call.phase === 'analysis' || call.phase === 'verification').map((call) => call.latency_ms),
    );
    const [areaJobs, verifyJobs] = await Promise.all([jobsOfRuns(bed, 'analyze-area', runIds), jobsOfRuns(bed, 'verify', runIds)]);
    const lastFinished = Math.max(...[...areaJobs, ...verifyJobs].map((job) => job.finishedOn ?? 0));
    return {
      analyze_workers: analyzeWorkers,
      simulator_latency_ms: simulator.latencyMs,
      runs: runIds.length,
      exploration_wall_s: round((releasedAt - startedAt) / 1_000, 1),
      stage_wall_ms: Math.max(...settledAt.values()) - releasedAt,
      stage_wall_ms_jobs: lastFinished - releasedAt,
      analyze_jobs: areaJobs.length,
      verify_jobs: verifyJobs.length,
      insights: runs.reduce((sum, run) => sum + run.areas.reduce((count, area) => count + area.insights.length, 0), 0),
      phase_work_ms: Math.round(
        runs.reduce(
          (sum, run) => sum + (run.telemetry.phase_durations_ms.analysis ?? 0) + (run.telemetry.phase_durations_ms.verification ?? 0),
          0,
        ),
      ),
      llm_latency_ms_p50: roundOrNull(percentile(latencies, 0.5), 0),
      llm_latency_ms_p95: roundOrNull(percentile(latencies, 0.95), 0),
      cpu,
      store_locks: storeLocks,
      store_work: storeWork,
    };
  } finally {
    await analyzeQueue.resume().catch(() => undefined);
    await group.stopAll();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. overhead per job

interface JobTiming {
  queue: QueueName;
  /** `processedOn - timestamp`: enqueue to the worker taking it. */
  queue_to_start_ms: number;
  /** `finishedOn - processedOn - handler`: taking it to the handler, and the handler's end to BullMQ's finish. */
  completion_ms: number | null;
  /** `finishedOn - timestamp - handler`; null when the worker's log had no duration for the job. */
  overhead_ms: number | null;
}

/** `durationMs` of every "job completed" line of the workers' logs, keyed `queue/jobId`. */
function handlerDurations(logs: readonly string[]): Map<string, number> {
  const durations = new Map<string, number>();
  for (const log of logs) {
    for (const line of log.split('\n')) {
      if (!line.includes('"job completed"')) continue;
      try {
        const entry = JSON.parse(line) as { queue?: string; jobId?: string; durationMs?: number };
        if (entry.queue && entry.jobId && typeof entry.durationMs === 'number')
          durations.set(`${entry.queue}/${entry.jobId}`, entry.durationMs);
      } catch {
        // a line cut by a kill
      }
    }
  }
  return durations;
}

interface OverheadBatch {
  mode: 'concurrent' | 'sequential';
  runs: number;
  batch_wall_s: number;
  jobs: JobTiming[];
  jobs_without_logged_handler_time: number;
  cpu: CpuUse | null;
}

async function jobTimings(bed: Bed, runIds: readonly string[], durations: ReadonlyMap<string, number>): Promise<[JobTiming[], number]> {
  const jobs: JobTiming[] = [];
  let withoutHandlerTime = 0;
  for (const name of SINGLE_ENTRY_QUEUES) {
    for (const job of await jobsOfRuns(bed, name, runIds)) {
      if (job.failedReason || job.attemptsStarted !== 1 || job.stalledCounter !== 0) continue;
      if (job.processedOn === undefined || job.finishedOn === undefined || job.id === undefined) continue;
      const handler = durations.get(`${name}/${job.id}`);
      if (handler === undefined) withoutHandlerTime += 1;
      jobs.push({
        queue: name,
        queue_to_start_ms: job.processedOn - job.timestamp,
        completion_ms: handler === undefined ? null : job.finishedOn - job.processedOn - handler,
        overhead_ms: handler === undefined ? null : job.finishedOn - job.timestamp - handler,
      });
    }
  }
  return [jobs, withoutHandlerTime];
}

/** The concurrent batch (the measure), then runs one at a time on the same workers (the diagnostic). */
async function measureOverhead(bed: Bed): Promise<OverheadBatch[]> {
  const group = new ProcessGroup();
  try {
    const env = bed.env(bed.zeroSimulator);
    const workers = await Promise.all([
      startWorkerIn(bed, group, 'control', CONTROL_QUEUES, env),
      startWorkerIn(bed, group, 'explore', EXPLORE_QUEUES, env),
      startWorkerIn(bed, group, 'analyze', ANALYZE_QUEUES, env),
      startWorkerIn(bed, group, 'analyze', ANALYZE_QUEUES, env),
    ]);
    const batches: Array<Omit<OverheadBatch, 'jobs' | 'jobs_without_logged_handler_time'> & { runIds: string[] }> = [];
    for (const mode of ['concurrent', 'sequential'] as const) {
      const projects = await createProjects(bed, `overhead-${mode}`, mode === 'concurrent' ? OVERHEAD_RUNS : OVERHEAD_SEQUENTIAL_RUNS);
      const cpuBefore = sampleCpu(bed.roles);
      const started = Date.now();
      const runIds: string[] = [];
      if (mode === 'concurrent') {
        runIds.push(...(await Promise.all(projects.map((project) => discover(bed, project)))));
        await waitForCompletion(bed, runIds);
      } else {
        for (const project of projects) {
          const runId = await discover(bed, project);
          runIds.push(runId);
          await waitForCompletion(bed, [runId]);
        }
      }
      batches.push({
        mode,
        runs: runIds.length,
        batch_wall_s: round((Date.now() - started) / 1_000, 1),
        cpu: cpuBetween(cpuBefore, sampleCpu(bed.roles)),
        runIds,
      });
    }
    const durations = handlerDurations(workers.map((worker) => readFileSync(worker.process.logPath, 'utf8')));
    const measured: OverheadBatch[] = [];
    for (const { runIds, ...batch } of batches) {
      const [jobs, without] = await jobTimings(bed, runIds, durations);
      measured.push({ ...batch, jobs, jobs_without_logged_handler_time: without });
    }
    return measured;
  } finally {
    await group.stopAll();
  }
}

/** Percentiles of an overhead batch, overall and per queue. */
function summariseOverhead(batch: OverheadBatch) {
  const stats = (jobs: readonly JobTiming[]) => {
    const own = jobs.flatMap((job) => (job.overhead_ms === null ? [] : [job.overhead_ms]));
    const toStart = jobs.map((job) => job.queue_to_start_ms);
    const completion = jobs.flatMap((job) => (job.completion_ms === null ? [] : [job.completion_ms]));
    return {
      jobs: jobs.length,
      overhead_ms_p50: roundOrNull(percentile(own, 0.5), 1),
      overhead_ms_p95: roundOrNull(percentile(own, 0.95), 1),
      queue_to_start_ms_p50: roundOrNull(percentile(toStart, 0.5), 1),
      queue_to_start_ms_p95: roundOrNull(percentile(toStart, 0.95), 1),
      completion_ms_p50: roundOrNull(percentile(completion, 0.5), 1),
      completion_ms_p95: roundOrNull(percentile(completion, 0.95), 1),
    };
  };
  return {
    mode: batch.mode,
    runs: batch.runs,
    batch_wall_s: batch.batch_wall_s,
    jobs_without_logged_handler_time: batch.jobs_without_logged_handler_time,
    cpu: batch.cpu,
    ...stats(batch.jobs),
    by_queue: SINGLE_ENTRY_QUEUES.map((queue) => ({ queue, ...stats(batch.jobs.filter((job) => job.queue === queue)) })),
  };
}

// ---------------------------------------------------------------------------------------------
// 3. recovery after SIGKILL

interface HeldJob {
  queue: QueueName;
  id: string;
  run_id: string;
  processed_on: number;
  attempts_started: number;
  stalled_counter: number;
}

interface Kill {
  pool: PoolName;
  victim: string;
  killed_at: number;
  /** Seconds since the recovery batch started. */
  at_s: number;
  held: HeldJob[];
}

interface RecoverySample {
  /** Index of the kill in `recovery.kills`. */
  kill: number;
  victim: string;
  queue: QueueName;
  phase: string;
  job_id: string;
  outcome: 'recovered' | 'failed' | 'not_recovered' | 'vanished' | 'finished_before_kill' | 'not_held';
  recovery_s: number | null;
  /** The worker now processing it. */
  taken_by: string | null;
  /** The job had been re-entered again before it was seen (an analyze-area gather): the time is an upper bound. */
  upper_bound: boolean;
}

async function activeJobs(bed: Bed): Promise<Array<HeldJob & { processed_by: string | undefined }>> {
  const active = [];
  for (const name of KILLABLE_QUEUES) {
    for (const job of await queueOf(bed, name).getJobs(['active'], 0, -1)) {
      if (job.id === undefined || job.processedOn === undefined) continue;
      active.push({
        queue: name,
        id: job.id,
        run_id: (job.data as { runId?: string }).runId ?? '',
        processed_on: job.processedOn,
        attempts_started: job.attemptsStarted,
        stalled_counter: job.stalledCounter,
        processed_by: job.processedBy,
      });
    }
  }
  return active;
}

/**
 * Follows every job a killed worker held, from the moment of the kill (every 100 ms), until it is
 * processing again elsewhere (or settles otherwise): read later, a job recovered and then caught by
 * another kill, or an area job re-entered for its gather, would show a later `processedOn`.
 */
interface RecoveryTracker {
  add(kill: Kill, number: number): void;
  /** Resolves once every job added has settled one way or another. */
  finish(): Promise<RecoverySample[]>;
  /** Stops following (on an error of the bench). */
  stop(): void;
}

function trackRecoveries(bed: Bed, isolated: boolean): RecoveryTracker {
  const pending: Array<{ kill: Kill; number: number; held: HeldJob }> = [];
  const samples: RecoverySample[] = [];
  let closing = false;
  const classify = async ({ kill, number, held }: (typeof pending)[number]): Promise<RecoverySample | undefined> => {
    const job = await Job.fromId(queueOf(bed, held.queue), held.id);
    const base = {
      kill: number,
      victim: kill.victim,
      queue: held.queue,
      phase: PHASE_OF_QUEUE[held.queue] ?? held.queue,
      job_id: held.id,
    };
    let sample: RecoverySample | undefined;
    const startedAgain =
      job?.processedOn !== undefined &&
      job.processedOn > kill.killed_at &&
      (isolated ? job.processedBy !== kill.victim : job.stalledCounter > held.stalled_counter);
    if (!job) sample = { ...base, outcome: 'vanished', recovery_s: null, taken_by: null, upper_bound: false };
    else if (startedAgain)
      sample = {
        ...base,
        outcome: 'recovered',
        recovery_s: round(((job.processedOn as number) - kill.killed_at) / 1_000, 2),
        taken_by: job.processedBy ?? null,
        upper_bound: job.attemptsStarted > held.attempts_started + 1,
      };
    else if (job.finishedOn !== undefined && job.finishedOn <= kill.killed_at)
      sample = { ...base, outcome: 'finished_before_kill', recovery_s: null, taken_by: null, upper_bound: false };
    else if (job.finishedOn !== undefined && job.failedReason)
      sample = { ...base, outcome: 'failed', recovery_s: null, taken_by: job.processedBy ?? null, upper_bound: false };
    else if (job.finishedOn !== undefined)
      // without host names of their own, a job finished without a stall was held by a survivor
      sample = { ...base, outcome: 'not_held', recovery_s: null, taken_by: job.processedBy ?? null, upper_bound: false };
    else if (Date.now() - kill.killed_at > RECOVERY_GIVE_UP_MS)
      sample = { ...base, outcome: 'not_recovered', recovery_s: null, taken_by: null, upper_bound: false };
    return sample;
  };
  const loop = (async () => {
    while (!closing || pending.length > 0) {
      for (const entry of [...pending]) {
        const sample = await classify(entry);
        if (sample) {
          samples.push(sample);
          pending.splice(pending.indexOf(entry), 1);
        }
      }
      await sleep(100);
    }
  })();
  let failure: unknown;
  loop.catch((error: unknown) => (failure = error));
  return {
    add(kill, number) {
      if (failure) throw failure;
      pending.push(...kill.held.map((held) => ({ kill, number, held })));
    },
    async finish() {
      closing = true;
      await loop;
      return samples.sort((left, right) => left.kill - right.kill);
    },
    stop() {
      closing = true;
      pending.splice(0);
    },
  };
}

async function measureRecovery(
  bed: Bed,
  random: () => number,
): Promise<{ runs: number; isolated: boolean; kills: Kill[]; samples: RecoverySample[] }> {
  const group = new ProcessGroup();
  const env = bed.env(bed.slowSimulator);
  const pools: Record<PoolName, WorkerHandle[]> = { explore: [], analyze: [] };
  const addMember = async (pool: PoolName) => {
    const handle = await startWorkerIn(bed, group, pool, POOLS[pool], env);
    pools[pool].push(handle);
    return handle;
  };
  let tracker: RecoveryTracker | undefined;
  try {
    const [control] = await Promise.all([
      startWorkerIn(bed, group, 'control', CONTROL_QUEUES, env),
      addMember('explore'),
      addMember('explore'),
      addMember('analyze'),
      addMember('analyze'),
    ]);
    const isolated = control.isolated;
    const projects = await createProjects(bed, 'recovery', RECOVERY_RUNS);
    const runIds: string[] = [];
    const batchStarted = Date.now();
    const starting = (async () => {
      for (const project of projects) {
        runIds.push(await discover(bed, project));
        await sleep(RECOVERY_STAGGER_MS);
      }
    })();
    let startFailure: unknown;
    starting.catch((error: unknown) => (startFailure = error));
    const kills: Kill[] = [];
    tracker = trackRecoveries(bed, isolated);
    const replacements: Promise<unknown>[] = [];
    while (kills.length < RECOVERY_KILLS && Date.now() - batchStarted < RECOVERY_WINDOW_MS) {
      if (startFailure) throw startFailure;
      await sleep(KILL_GAP_MS.min + random() * (KILL_GAP_MS.max - KILL_GAP_MS.min));
      const active = await activeJobs(bed);
      const holding = (pool: PoolName) =>
        pools[pool]
          .filter((member) => member.process.isRunning())
          .map((member) => ({
            member,
            held: active.filter((job) => POOLS[pool].includes(job.queue) && (!isolated || job.processed_by === member.hostname)),
          }))
          .filter((candidate) => candidate.held.length > 0);
      // alternate between the pools, so exploration and analysis/verification are both hit
      const preferred: PoolName = kills.length % 2 === 0 ? 'explore' : 'analyze';
      const order: PoolName[] = [preferred, preferred === 'explore' ? 'analyze' : 'explore'];
      const pool = order.find((name) => holding(name).length > 0);
      if (!pool) {
        const runs = runIds.length === projects.length ? await readRuns(bed, runIds) : [];
        if (runs.length > 0 && runs.every((run) => analysisSettled(run) || isTerminal(run.status))) break;
        continue;
      }
      const candidates = holding(pool);
      const victim = candidates[Math.floor(random() * candidates.length)] as (typeof candidates)[number];
      const killedAt = Date.now();
      await victim.member.process.kill('SIGKILL');
      pools[pool] = pools[pool].filter((member) => member !== victim.member);
      kills.push({
        pool,
        victim: victim.member.hostname,
        killed_at: killedAt,
        at_s: round((killedAt - batchStarted) / 1_000, 1),
        held: victim.held.map(({ processed_by: _by, ...held }) => held),
      });
      tracker.add(kills.at(-1) as Kill, kills.length - 1);
      replacements.push(addMember(pool));
    }
    await starting;
    await Promise.all(replacements);
    const samples = await tracker.finish();
    await waitForCompletion(bed, runIds);
    return { runs: runIds.length, isolated, kills, samples };
  } finally {
    tracker?.stop();
    await group.stopAll();
  }
}

// ---------------------------------------------------------------------------------------------
// 4. integrity of the stored runs

async function checkIntegrity(bed: Bed, runIds: readonly string[]): Promise<RunIntegrity[]> {
  return checkRunIntegrity(bed.store, runIds, (pack) => loadPack(pack).areas.map((area) => area.id));
}

// ---------------------------------------------------------------------------------------------

/** A service the bench needs is not installed here: it says so and measures nothing. */
class Unavailable extends Error {}

const REPO_ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/**
 * The workers run `bin/assay.js`, which runs dist/ only while it is fresher than the sources (else tsx
 * compiles every module it loads). Builds it when stale, so the fleet runs what the image runs.
 * Returns what the workers will run.
 */
function ensureFreshBuild(progress: (message: string) => void): 'build' | 'sources' {
  if (isFreshBuild(REPO_ROOT)) return 'build';
  progress('dist/ is older than the sources: building it (scripts/build.mjs) so the workers run compiled code');
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs')], { cwd: REPO_ROOT, stdio: 'inherit' });
  } catch (error) {
    progress(`  the build failed (${(error as Error).message}); the workers run the sources through tsx`);
  }
  return isFreshBuild(REPO_ROOT) ? 'build' : 'sources';
}

async function setUp(cleanups: Array<() => Promise<void>>, launcher: boolean): Promise<Bed> {
  if (redisServerMissing) throw new Unavailable(REDIS_SKIP_REASON);
  const workDir = await mkdtemp(join(tmpdir(), 'assay-bench-fleet-'));
  cleanups.push(async () => {
    if (process.env.FLEET_BENCH_KEEP) process.stdout.write(`kept ${workDir} (process logs in logs/)\n`);
    else await rm(workDir, { recursive: true, force: true });
  });
  const logDir = join(workDir, 'logs');
  const dataDir = join(workDir, 'data');
  const [demo, postgres, redisServer] = await Promise.all([
    generateDemoWarehouse({ kind: PACK, out: join(workDir, `${PACK}.duckdb`), scale: DEMO_SCALE }),
    startTestPostgres(),
    startRedisServer(),
  ]);
  cleanups.push(() => redisServer.stop());
  if (!postgres.available) throw new Unavailable(`skipping: no PostgreSQL for the run store (${postgres.reason})`);
  cleanups.push(() => postgres.server.stop());
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  const base = {
    redisUrl: redisServer.url,
    store: postgres.server.adminUrl,
    warehouse: `duckdb:${demo.path}`,
    dataDir,
    queuePrefix: prefix,
    llm: MODEL,
    // runs start faster than the default 10 per key and minute
    extra: { ASSAY_API_RUNS_PER_MINUTE: '1000' },
  };
  const [slowSimulator, zeroSimulator, realisticSimulator] = await Promise.all([
    startSimulator({ name: 'simulator-300ms', logDir, latencyMs: SIMULATOR_LATENCY_MS, contextWindow: MODEL_CONTEXT_WINDOW }),
    startSimulator({ name: 'simulator-0ms', logDir, latencyMs: 0, contextWindow: MODEL_CONTEXT_WINDOW }),
    startSimulator({ name: 'simulator-3s', logDir, latencyMs: REALISTIC_LATENCY_MS, contextWindow: MODEL_CONTEXT_WINDOW }),
  ]);
  cleanups.push(async () => {
    await Promise.all([slowSimulator.process.stop(5_000), zeroSimulator.process.stop(5_000), realisticSimulator.process.stop(5_000)]);
  });
  const env = (simulator: SimulatorProcess) => fleetEnv({ ...base, openaiBaseUrl: `${simulator.url}/v1` });
  // the key is created against the shared store before the API starts, so the API never runs keyless
  const { key } = await createApiKeyViaCli(env(slowSimulator), { name: 'fleet-bench', scope: 'admin' });
  const api = await startApi({ env: env(slowSimulator), logDir, runner: 'bullmq' });
  cleanups.push(async () => {
    await api.process.stop(10_000);
  });
  const store = await openRunStore(postgres.server.adminUrl, { dataDir });
  cleanups.push(() => store.close());
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined);
  const bed: Bed = {
    launcher,
    workDir,
    logDir,
    prefix,
    store,
    storeUrl: postgres.server.adminUrl,
    redis,
    queues: new Map(),
    slowSimulator,
    zeroSimulator,
    realisticSimulator,
    api,
    apiKey: key,
    env,
    runIds: [],
    nextWorker: 0,
    roles: new Map([
      [slowSimulator.process.pid, 'simulator'],
      [zeroSimulator.process.pid, 'simulator'],
      [realisticSimulator.process.pid, 'simulator'],
      [api.process.pid, 'api'],
    ]),
  };
  cleanups.push(async () => {
    await Promise.allSettled([...bed.queues.values()].map((queue) => queue.close()));
    redis.disconnect();
  });
  return bed;
}

async function runCleanups(cleanups: Array<() => Promise<void>>): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse())
    await cleanup().catch((error: unknown) => process.stderr.write(`cleanup: ${String(error)}\n`));
}

interface Headline {
  speedup_4_workers: number;
  overhead_ms_per_job_p50: number | null;
  overhead_ms_per_job_p95: number | null;
  recovery_s_p50: number | null;
  recovery_s_p95: number | null;
  runs: number;
  lost_updates: number;
  duplicated_steps: number;
}

function printTables(
  result: Headline,
  stages: readonly StageMeasurement[],
  concurrent: ReturnType<typeof summariseOverhead>,
  sequential: ReturnType<typeof summariseOverhead>,
  recovery: { kills: readonly Kill[]; samples: readonly RecoverySample[] },
): void {
  const met = (value: number | null, ok: (value: number) => boolean) => (value === null ? 'n/a' : ok(value) ? 'yes' : 'NO');
  const out = (text: string) => process.stdout.write(`${text}\n`);
  out(
    renderTable(
      ['measure', 'value', 'target', 'met'],
      [
        ['speedup_4_workers', result.speedup_4_workers, TARGETS.speedup_4_workers, met(result.speedup_4_workers, (value) => value >= 3)],
        [
          'overhead_ms_per_job_p50',
          result.overhead_ms_per_job_p50,
          TARGETS.overhead_ms_per_job_p50,
          met(result.overhead_ms_per_job_p50, (value) => value <= 10),
        ],
        ['overhead_ms_per_job_p95', result.overhead_ms_per_job_p95, '', ''],
        ['recovery_s_p50', result.recovery_s_p50, '', ''],
        ['recovery_s_p95', result.recovery_s_p95, TARGETS.recovery_s_p95, met(result.recovery_s_p95, (value) => value <= 30)],
        ['runs', result.runs, '', ''],
        ['lost_updates', result.lost_updates, TARGETS.lost_updates, met(result.lost_updates, (value) => value === 0)],
        ['duplicated_steps', result.duplicated_steps, TARGETS.duplicated_steps, met(result.duplicated_steps, (value) => value === 0)],
      ],
    ),
  );
  out(
    renderTable(
      [
        'analyze workers',
        'stage ms',
        'stage (jobs) ms',
        'area / verify jobs',
        'phase work ms',
        'llm p50 / p95 ms',
        'cpu busy %',
        'cpu s outside fleet',
        'lock waiters',
        'idle in tx',
        'cpu s by role',
      ],
      stages.map((stage) => [
        stage.analyze_workers,
        stage.stage_wall_ms,
        stage.stage_wall_ms_jobs,
        `${stage.analyze_jobs} / ${stage.verify_jobs}`,
        stage.phase_work_ms,
        `${stage.llm_latency_ms_p50} / ${stage.llm_latency_ms_p95}`,
        stage.cpu?.busy_pct,
        stage.cpu?.outside_fleet_s,
        stage.store_locks ? `${stage.store_locks.waiting_mean} (max ${stage.store_locks.waiting_max})` : '',
        stage.store_locks?.idle_in_transaction_mean,
        stage.cpu
          ? Object.entries(stage.cpu.seconds_by_role)
              .map(([role, seconds]) => `${role} ${seconds}`)
              .join(', ')
          : '',
      ]),
    ),
  );
  out(
    renderTable(
      [
        'overhead',
        'queue',
        'jobs',
        'overhead p50 / p95 ms',
        'queue→start p50 / p95 ms',
        'completion p50 / p95 ms',
        'cpu busy % (outside fleet s)',
      ],
      [concurrent, sequential].flatMap((batch) =>
        [{ queue: 'all', ...batch }, ...batch.by_queue].map((row) => [
          `${batch.mode} (${batch.runs} runs)`,
          row.queue,
          row.jobs,
          `${row.overhead_ms_p50} / ${row.overhead_ms_p95}`,
          `${row.queue_to_start_ms_p50} / ${row.queue_to_start_ms_p95}`,
          `${row.completion_ms_p50} / ${row.completion_ms_p95}`,
          row.queue === 'all' && batch.cpu ? `${batch.cpu.busy_pct} (${batch.cpu.outside_fleet_s})` : '',
        ]),
      ),
    ),
  );
  out(
    renderTable(
      ['kill at s', 'victim', 'job', 'outcome', 'recovery s', 'taken by'],
      recovery.kills.flatMap((kill, number) =>
        recovery.samples
          .filter((sample) => sample.kill === number)
          .map((sample) => [
            kill.at_s,
            kill.victim,
            `${sample.queue}/${sample.job_id}`,
            sample.outcome,
            sample.recovery_s,
            sample.taken_by,
          ]),
      ),
    ),
  );
}

export const fleetBench: Bench = {
  name: 'fleet',
  description:
    'the BullMQ fleet as OS processes (redis, PostgreSQL, LLM simulator, API, workers): analysis speedup 1→4 workers, per-job overhead, SIGKILL recovery, lost updates',
  async run() {
    const benchStarted = Date.now();
    const seed = Number(process.env.FLEET_BENCH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const cleanups: Array<() => Promise<void>> = [];
    // one cleanup, whoever starts it: an interrupted phase fails against what the signal handler stops,
    // and its `finally` must wait for the same cleanup instead of ending the process half-way through it
    let cleaning: Promise<void> | undefined;
    const cleanUp = () => (cleaning ??= runCleanups(cleanups));
    const removeSignalHandlers = onTerminationSignal(cleanUp);
    const progress = (message: string) => process.stdout.write(`[${round((Date.now() - benchStarted) / 1_000, 0)} s] ${message}\n`);
    try {
      const workersFrom = ensureFreshBuild(progress);
      progress(
        `setting up (workers run the ${workersFrom === 'build' ? 'build in dist/' : 'sources through tsx'}; hostname isolation: ${canIsolateHostname() ? 'yes' : 'no'})`,
      );
      const bed = await setUp(cleanups, workersFrom === 'build');
      progress(
        `api at ${bed.api.url}, simulators at ${bed.slowSimulator.url} (${SIMULATOR_LATENCY_MS} ms), ${bed.realisticSimulator.url} (${REALISTIC_LATENCY_MS} ms) and ${bed.zeroSimulator.url} (0 ms)`,
      );

      const stages: StageMeasurement[] = [];
      // diagnostics: FLEET_BENCH_STAGES=1 (or 4, or 1,4) measures only those analysis stages, writes nothing
      const onlyStages = process.env.FLEET_BENCH_STAGES?.split(',').map(Number);
      const schedule = onlyStages
        ? onlyStages.map((workers) => [workers, bed.slowSimulator] as const)
        : [
            ...SPEEDUP_SCHEDULE.map((workers) => [workers, bed.slowSimulator] as const),
            ...REALISTIC_SCHEDULE.map((workers) => [workers, bed.realisticSimulator] as const),
          ];
      for (const [workers, simulator] of schedule) {
        progress(
          `speedup: ${SPEEDUP_RUNS} runs, ${workers} analyze-area,verify worker process(es), model latency ${simulator.latencyMs} ms`,
        );
        const stage = await measureStage(bed, workers, simulator);
        stages.push(stage);
        progress(`  analysis + verification stage: ${stage.stage_wall_ms} ms`);
      }
      if (onlyStages) {
        process.stdout.write(`${JSON.stringify(stages, null, 2)}\n`);
        return;
      }
      progress(`overhead: ${OVERHEAD_RUNS} runs at once, then ${OVERHEAD_SEQUENTIAL_RUNS} one at a time, at 0 ms simulator latency`);
      const [concurrent, sequential] = (await measureOverhead(bed)).map(summariseOverhead) as [
        ReturnType<typeof summariseOverhead>,
        ReturnType<typeof summariseOverhead>,
      ];
      progress(`recovery: ${RECOVERY_RUNS} runs, up to ${RECOVERY_KILLS} SIGKILLs (seed ${seed})`);
      const recovery = await measureRecovery(bed, seededRandom(seed));
      progress('integrity of every stored run');
      const integrity = await checkIntegrity(bed, bed.runIds);

      const stageMedian = (workers: number, latencyMs = SIMULATOR_LATENCY_MS) =>
        percentile(
          stages
            .filter((stage) => stage.analyze_workers === workers && stage.simulator_latency_ms === latencyMs)
            .map((stage) => stage.stage_wall_ms),
          0.5,
        ) as number;
      // if the fleet's CPU work of a one-worker stage were spread over every core with no waiting at all
      const ceilings = stages
        .filter((stage) => stage.analyze_workers === 1 && stage.simulator_latency_ms === SIMULATOR_LATENCY_MS && stage.cpu)
        .map((stage) => {
          const fleetCpuS = Object.values(stage.cpu?.seconds_by_role ?? {}).reduce((sum, seconds) => sum + seconds, 0);
          return stage.stage_wall_ms / 1_000 / (fleetCpuS / cpus().length);
        });
      const recovered = recovery.samples.filter((sample) => sample.outcome === 'recovered').map((sample) => sample.recovery_s as number);
      const result = {
        speedup_4_workers: round(stageMedian(1) / stageMedian(4), 2),
        speedup_4_workers_cpu_ceiling: roundOrNull(percentile(ceilings, 0.5), 2),
        speedup_4_workers_at_3s: round(stageMedian(1, REALISTIC_LATENCY_MS) / stageMedian(4, REALISTIC_LATENCY_MS), 2),
        overhead_ms_per_job_p50: sequential.overhead_ms_p50,
        overhead_ms_per_job_p95: sequential.overhead_ms_p95,
        overhead_ms_per_job_saturated_p50: concurrent.overhead_ms_p50,
        overhead_ms_per_job_saturated_p95: concurrent.overhead_ms_p95,
        recovery_s_p50: roundOrNull(percentile(recovered, 0.5), 2),
        recovery_s_p95: roundOrNull(percentile(recovered, 0.95), 2),
        runs: integrity.length,
        lost_updates: integrity.reduce((sum, run) => sum + run.missing_areas.length + run.missing_insights.length, 0),
        duplicated_steps: integrity.reduce((sum, run) => sum + run.duplicated_step_numbers + run.step_gaps, 0),
        targets: TARGETS,
        definitions: {
          speedup_4_workers:
            'median stage_wall_ms with 1 process consuming analyze-area,verify / median with 4 processes (same batch size, interleaved 1,4,1,4,1,4; everything else on one other process; simulator latency 300 ms; each set of processes first runs a warm-up batch to completion). stage_wall_ms: queue analyze-area is paused while the batch explores; from its resume (every run in phase analysis, all its area jobs waiting) to the largest updated_at among the first run documents (polled every 100 ms) that show every area settled and every insight validated.',
          speedup_4_workers_cpu_ceiling:
            'median over the one-worker stages at 300 ms of stage_wall / (CPU seconds of every fleet process, PostgreSQL and Redis over the stage / cores): the speedup no number of workers can beat on this machine if the fleet keeps doing that much CPU work; four workers do more of it, not less.',
          speedup_4_workers_at_3s:
            'as speedup_4_workers, one pair (1 then 4 processes) with the simulator at 3,000 ms, a latency closer to real analysis calls.',
          overhead_ms_per_job:
            'zero simulator latency, control + explore + 2 analyze processes, one run at a time, so a job never waits for a free slot; jobs of index, explore, verify and recommend that ran exactly once (attemptsStarted 1, no stall, no retry, no waiting-children): BullMQ finishedOn - timestamp (enqueue to end) minus the handler time the worker logged for the job ("job completed" durationMs, measured around the handler). It is queue_to_start (processedOn - timestamp: dispatch) plus completion (finishedOn - processedOn - handler).',
          overhead_ms_per_job_saturated:
            'the same with a batch of runs started at once: the 2 cores are saturated, so queue_to_start is mostly waiting for a free slot (capacity, not per-job cost); reported as overhead.concurrent.',
          recovery_s:
            'a worker process holding jobs of explore, analyze-area or verify is SIGKILLed at a random moment (seeded), a replacement started; per job it held: seconds from the kill until the same job id is processed again by another worker process (BullMQ processedOn after the kill, processedBy another worker: each worker runs with a host name of its own). Product defaults: lock 15 s, stalled check 10 s.',
          lost_updates:
            'over every run of the bench: pack areas missing from the run document or from its stored result, plus insight ids an area lists that are missing from the area or from the stored result.',
          duplicated_steps:
            'over every run of the bench: exploration steps stored twice under one number, plus gaps in 1..highest step, plus any difference between steps_completed and the distinct steps stored.',
        },
        settings: {
          machine: { cpus: cpus().length, node: process.version },
          workers_from: workersFrom,
          pack: PACK,
          demo_scale: DEMO_SCALE,
          max_steps: MAX_STEPS,
          model: MODEL,
          simulator_latency_ms: SIMULATOR_LATENCY_MS,
          lock_duration_ms: LLM_WORKER_DEFAULTS.lockDurationMs,
          stalled_interval_ms: LLM_WORKER_DEFAULTS.stalledIntervalMs,
          max_stalled_count: LLM_WORKER_DEFAULTS.maxStalledCount,
          worker_concurrency: Object.fromEntries(QUEUE_NAMES.map((name) => [name, queueContract(name).worker.concurrency])),
          topology: {
            speedup: { other: OTHER_QUEUES, analyze: ANALYZE_QUEUES },
            overhead: { control: CONTROL_QUEUES, explore: EXPLORE_QUEUES, 'analyze ×2': ANALYZE_QUEUES },
            recovery: { control: CONTROL_QUEUES, 'explore ×2': EXPLORE_QUEUES, 'analyze ×2': ANALYZE_QUEUES },
          },
          vector_index: 'embedded, in the data dir every process shares (no Qdrant here); index jobs on one process',
          seed,
          hostname_isolation: recovery.isolated,
        },
        speedup: {
          runs_per_batch: SPEEDUP_RUNS,
          stage_wall_ms_median: { '1': stageMedian(1), '4': stageMedian(4) },
          stages,
        },
        overhead: { concurrent, sequential },
        recovery: {
          runs: recovery.runs,
          kills: recovery.kills.map((kill) => ({
            pool: kill.pool,
            victim: kill.victim,
            at_s: kill.at_s,
            held: kill.held.map((held) => `${held.queue}/${held.id}`),
          })),
          samples: recovery.samples,
          recovered: recovered.length,
          max_s: recovered.length > 0 ? Math.max(...recovered) : null,
        },
        integrity: {
          not_completed: integrity.filter((run) => run.status !== 'completed').map((run) => `${run.run_id} ${run.status}`),
          unvalidated_insights: integrity.reduce((sum, run) => sum + run.unvalidated_insights, 0),
          repeated_exploration_calls: integrity.reduce((sum, run) => sum + run.repeated_exploration_calls, 0),
          run_types: Object.fromEntries(
            [...new Set(integrity.map((run) => run.run_type ?? 'none'))].map((type) => [
              type,
              integrity.filter((run) => (run.run_type ?? 'none') === type).length,
            ]),
          ),
          problems: integrity.filter(
            (run) => run.missing_areas.length + run.missing_insights.length + run.duplicated_step_numbers + run.step_gaps > 0,
          ),
        },
        bench_wall_s: 0,
      };
      result.bench_wall_s = round((Date.now() - benchStarted) / 1_000, 1);
      printTables(result, stages, concurrent, sequential, recovery);
      process.stdout.write(`wrote ${writeBenchResult('fleet', result)} (bench wall ${result.bench_wall_s} s)\n`);
    } catch (error) {
      if (!(error instanceof Unavailable)) throw error;
      process.stdout.write(`${error.message}\n`);
    } finally {
      await cleanUp();
      removeSignalHandlers();
    }
  },
};
