/** The fleet bench's test bed: the long-lived processes, the store and the queues, and how the phases drive them. */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { isFreshBuild } from '../../../bin/fresh-build.js';
import type { QueueName } from '../../../src/fleet/bullmq/queues/index.js';
import { loadPack } from '../../support/packs.js';
import { isTerminal, type Run } from '../../../src/domain/index.js';
import { openRunStore } from '../../../src/store/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { REDIS_SKIP_REASON, redisServerMissing, startRedisServer } from '../../integration/fleet/redis-server.js';
import {
  type ProcessGroup,
  createApiKeyViaCli,
  fleetEnv,
  startApi,
  startSimulator,
  startWorker,
  type ApiProcess,
  type SimulatorProcess,
  type WorkerHandle,
} from '../../support/fleet-processes.js';
import { startTestPostgres } from '../../support/postgres.js';
import { checkRunIntegrity, type RunIntegrity } from '../../support/run-integrity.js';
import {
  DEMO_SCALE,
  MAX_STEPS,
  MODEL,
  MODEL_CONTEXT_WINDOW,
  PACK,
  REALISTIC_LATENCY_MS,
  RUN_TIMEOUT_MS,
  SIMULATOR_LATENCY_MS,
} from './settings.js';
import { sleep } from './measures.js';

export async function until<T>(
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
export interface Bed {
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

export function queueOf(bed: Bed, name: QueueName): Queue {
  let queue = bed.queues.get(name);
  if (!queue) {
    queue = new Queue(name, { connection: bed.redis, prefix: bed.prefix });
    queue.on('error', () => undefined);
    bed.queues.set(name, queue);
  }
  return queue;
}

export async function startWorkerIn(
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

export async function callApi<T>(bed: Bed, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${bed.api.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bed.apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function createProjects(bed: Bed, label: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${label}-${index + 1}`);
  for (const id of ids) await callApi(bed, 'POST', '/api/v1/projects', { id, name: `fleet bench ${id}`, domain: PACK });
  return ids;
}

export async function discover(bed: Bed, projectId: string): Promise<string> {
  const started = await callApi<{ run_id: string }>(bed, 'POST', `/api/v1/projects/${projectId}/discover`, { max_steps: MAX_STEPS });
  bed.runIds.push(started.run_id);
  return started.run_id;
}

export async function readRuns(bed: Bed, ids: readonly string[]): Promise<Run[]> {
  const runs = await Promise.all(ids.map((id) => bed.store.getRun(id)));
  return runs.map((run, index) => {
    if (!run) throw new Error(`run ${ids[index]} is not in the store`);
    return run;
  });
}

export async function waitForCompletion(bed: Bed, ids: readonly string[]): Promise<Run[]> {
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
export function analysisSettled(run: Run): boolean {
  return (
    run.areas.length > 0 &&
    run.areas.every(
      (area) =>
        ['completed', 'failed', 'skipped'].includes(area.status) && area.insights.every((insight) => insight.validation !== undefined),
    )
  );
}

export async function jobsOfRuns(bed: Bed, name: QueueName, runIds: readonly string[]): Promise<Job[]> {
  const wanted = new Set(runIds);
  const jobs = await queueOf(bed, name).getJobs(['completed', 'failed'], 0, -1);
  return jobs.filter((job) => wanted.has((job.data as { runId?: string }).runId ?? ''));
}

export async function checkIntegrity(bed: Bed, runIds: readonly string[]): Promise<RunIntegrity[]> {
  return checkRunIntegrity(bed.store, runIds, (pack) => loadPack(pack).areas.map((area) => area.id));
}

// ---------------------------------------------------------------------------------------------

/** A service the bench needs is not installed here: it says so and measures nothing. */
export class Unavailable extends Error {}

/** test/bench/fleet/ is three levels below the repository. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

/**
 * The workers run `bin/assay.js`, which runs dist/ only while it is fresher than the sources (else tsx
 * compiles every module it loads). Builds it when stale, so the fleet runs what the image runs.
 * Returns what the workers will run.
 */
export function ensureFreshBuild(progress: (message: string) => void): 'build' | 'sources' {
  if (isFreshBuild(REPO_ROOT)) return 'build';
  progress('dist/ is older than the sources: building it (scripts/build.mjs) so the workers run compiled code');
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs')], { cwd: REPO_ROOT, stdio: 'inherit' });
  } catch (error) {
    progress(`  the build failed (${(error as Error).message}); the workers run the sources through tsx`);
  }
  return isFreshBuild(REPO_ROOT) ? 'build' : 'sources';
}

export async function setUp(cleanups: Array<() => Promise<void>>, launcher: boolean): Promise<Bed> {
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

export async function runCleanups(cleanups: Array<() => Promise<void>>): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse())
    await cleanup().catch((error: unknown) => process.stderr.write(`cleanup: ${String(error)}\n`));
}
