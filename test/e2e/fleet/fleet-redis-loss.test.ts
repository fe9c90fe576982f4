/**
 * The fleet heals itself after Redis loses its data, as a fleet: redis-server (no persistence), a
 * PostgreSQL run store, the LLM simulator, the API and three worker pools as separate OS processes.
 * Three runs are started through the API; Redis is flushed (`FLUSHALL`) while they explore. Three
 * more are started; redis-server is stopped and started again, empty, on the same port once one of
 * them analyzes. Nobody restarts a worker: each time, the workers abandon the jobs whose locks vanished,
 * the control pool re-creates the maintenance schedules, and the stuck-run reconciler re-enqueues
 * every run's coordinator. Afterwards the run documents must show complete runs with every area,
 * every insight and every exploration step exactly once, and one recovery each.
 *
 * Shortened so two losses fit in a test: lock 5 s / stalled check 2 s (instead of 15 s / 10 s),
 * reconciler and schedule check every 2 s (30 s), stuck-run grace 6 s (60 s) — longer than a lock,
 * so a job abandoned on its next renewal has stopped before its run is re-enqueued. The times it
 * prints are measured with these settings; docs/fleet.md gives the bound with the defaults.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_TASKS } from '../../../src/fleet/bullmq/queues/index.js';
import { loadPack } from '../../support/packs.js';
import { isTerminal, type Run } from '../../../src/domain/index.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openRunStore } from '../../../src/store/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { REDIS_SKIP_REASON, redisServerMissing, startRedisServer, type RedisServer } from '../../integration/fleet/redis-server.js';
import {
  createApiKeyViaCli,
  fleetEnv,
  ProcessGroup,
  startApi,
  startSimulator,
  startWorker,
  type ApiProcess,
  type SimulatorProcess,
} from '../../support/fleet-processes.js';
import { startTestPostgres, type TestPostgresStart } from '../../support/postgres.js';
import { checkRunIntegrity } from '../../support/run-integrity.js';
import { waitFor } from '../../support/wait-for.js';

const RUNS_PER_LOSS = 3;
const MAX_STEPS = 8;
const RECONCILE_INTERVAL_MS = 2_000;
const STUCK_RUN_GRACE_MS = 6_000;
const POOLS = {
  control: ['coordinator', 'recommend', 'maintenance'],
  explore: ['explore', 'index'],
  analyze: ['mine', 'analyze-area', 'verify'],
} as const;
type Pool = keyof typeof POOLS;

const postgres: TestPostgresStart = redisServerMissing ? { available: false, reason: 'not started' } : await startTestPostgres();
const skipReason = redisServerMissing ? REDIS_SKIP_REASON : postgres.available ? undefined : `skipping: ${postgres.reason}`;
if (skipReason) console.log(`fleet Redis-loss e2e: ${skipReason}`);

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe.skipIf(skipReason !== undefined)('a fleet of OS processes when Redis loses its data mid-run', () => {
  let workDir: string;
  let redisServer: RedisServer;
  let simulator: SimulatorProcess;
  let api: ApiProcess;
  let apiKey: string;
  let store: RunStore;
  let redis: Redis;
  let maintenance: Queue;
  let prefix: string;
  const group = new ProcessGroup();
  const projects = Array.from({ length: RUNS_PER_LOSS }, (_, index) => `shop-${index + 1}`);

  async function callApi(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  }

  async function startRuns(): Promise<string[]> {
    const started = await Promise.all(projects.map((id) => callApi('POST', `/api/v1/projects/${id}/discover`, { max_steps: MAX_STEPS })));
    for (const response of started) expect(response.status, JSON.stringify(response.json)).toBe(202);
    return started.map((response) => response.json.run_id as string);
  }

  async function readRuns(runIds: readonly string[]): Promise<Run[]> {
    return Promise.all(
      runIds.map(async (id) => {
        const run = await store.getRun(id);
        if (!run) throw new Error(`run ${id} vanished from the store`);
        return run;
      }),
    );
  }

  const describeRuns = (runs: readonly Run[]) =>
    runs.map((run) => `${run.id} ${run.status}/${run.phase} steps ${run.steps_completed} recoveries ${run.recoveries}`).join('; ');

  /**
   * From the loss on: when the schedules are back, when each run's coordinator was re-enqueued, when
   * each run completed (ms after the loss). Every wait has a ceiling for a broken fleet, never a measure.
   */
  async function healAfter(loss: () => Promise<void>, runIds: readonly string[]) {
    const lostAt = performance.now();
    await loss();
    await waitFor(
      'the maintenance schedules to be back in Redis',
      async () => {
        try {
          const present = await Promise.all(MAINTENANCE_TASKS.map((task) => maintenance.getJobScheduler(task)));
          return present.every((scheduler) => scheduler !== undefined);
        } catch {
          return false; // Redis still restarting
        }
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const schedulesMs = performance.now() - lostAt;
    const requeuedMs = new Map<string, number>();
    const completedMs = new Map<string, number>();
    await waitFor(
      'every run to end',
      async () => {
        for (const run of await readRuns(runIds)) {
          if (run.recoveries > 0 && !requeuedMs.has(run.id)) requeuedMs.set(run.id, performance.now() - lostAt);
          if (run.phase === 'complete' && isTerminal(run.status) && !completedMs.has(run.id))
            completedMs.set(run.id, performance.now() - lostAt);
        }
        return completedMs.size === runIds.length;
      },
      { timeoutMs: 240_000, intervalMs: 100, lastSeen: async () => describeRuns(await readRuns(runIds)) },
    );
    return { schedulesMs, requeuedMs: [...requeuedMs.values()], completedMs: [...completedMs.values()] };
  }

  async function expectCompleteOnce(runIds: readonly string[]): Promise<void> {
    const runs = await readRuns(runIds);
    for (const run of runs) expect(`${run.id}: ${run.status}/${run.phase} ${run.error ?? ''}`).toBe(`${run.id}: completed/complete `);
    // the loss cost each run exactly one re-enqueue of its coordinator, whatever the workers saw
    expect(runs.map((run) => run.recoveries)).toEqual(runIds.map(() => 1));
    for (const report of await checkRunIntegrity(store, runIds, (pack) => loadPack(pack).areas.map((area) => area.id))) {
      expect(report.run_type, report.run_id).toBe('full');
      expect(report.missing_areas, report.run_id).toEqual([]);
      expect(report.missing_insights, report.run_id).toEqual([]);
      expect(report.duplicated_insights, report.run_id).toEqual([]);
      expect(report.unvalidated_insights, report.run_id).toBe(0);
      expect(report.steps, report.run_id).toBeGreaterThan(0);
      expect(report.duplicated_step_numbers, report.run_id).toBe(0);
      expect(report.step_gaps, report.run_id).toBe(0);
      // the step in flight at the loss may have been answered and then asked again: at most once per run
      expect(report.repeated_exploration_calls, report.run_id).toBeLessThanOrEqual(1);
    }
  }

  function report(loss: string, healed: Awaited<ReturnType<typeof healAfter>>): void {
    const max = (values: number[]) => Math.max(...values);
    console.log(
      `fleet Redis-loss e2e: ${loss}: schedules back after ${seconds(healed.schedulesMs)}, coordinators re-enqueued after ` +
        `${healed.requeuedMs.map(seconds).join(', ')}, runs completed after ${healed.completedMs.map(seconds).join(', ')} ` +
        `(last ${seconds(max(healed.completedMs))})`,
    );
  }

  beforeAll(async () => {
    if (!postgres.available) return;
    workDir = await mkdtemp(join(tmpdir(), 'assay-fleet-loss-e2e-'));
    prefix = `e2e-${randomBytes(3).toString('hex')}`;
    const shop = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb'), scale: 0.3 });
    redisServer = await startRedisServer();
    simulator = await startSimulator({ name: 'simulator', logDir: join(workDir, 'logs'), latencyMs: 300, contextWindow: 400_000 });
    const env = fleetEnv({
      redisUrl: redisServer.url,
      store: postgres.server.adminUrl,
      warehouse: `duckdb:${shop.path}`,
      dataDir: join(workDir, 'data'),
      queuePrefix: prefix,
      llm: 'openai:gpt-5.4-mini',
      openaiBaseUrl: `${simulator.url}/v1`,
      extra: {
        ASSAY_LOCK_DURATION_MS: '5000',
        ASSAY_STALLED_INTERVAL_MS: '2000',
        ASSAY_RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
        ASSAY_STUCK_RUN_GRACE_MS: String(STUCK_RUN_GRACE_MS),
      },
    });
    apiKey = (await createApiKeyViaCli(env, { name: 'fleet-loss-e2e', scope: 'admin' })).key;
    api = await startApi({ env, logDir: join(workDir, 'logs'), runner: 'bullmq' });
    group.add(api.process);
    for (const [pool, queues] of Object.entries(POOLS) as [Pool, readonly string[]][])
      group.add((await startWorker({ name: pool, queues, env, logDir: join(workDir, 'logs') })).process);
    store = await openRunStore(postgres.server.adminUrl, { dataDir: join(workDir, 'data') });
    redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    maintenance = new Queue('maintenance', { connection: redis, prefix });
    maintenance.on('error', () => undefined);
    for (const id of projects)
      expect((await callApi('POST', '/api/v1/projects', { id, name: `Shop ${id}`, domain: 'ecommerce' })).status).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await maintenance?.close();
    redis?.disconnect();
    await store?.close();
    await group.stopAll(5_000);
    await simulator?.process.stop(5_000);
    await redisServer?.stop();
    if (postgres.available) await postgres.server.stop();
    if (workDir && !process.env.FLEET_E2E_KEEP) await rm(workDir, { recursive: true, force: true });
  }, 120_000);

  it('completes every run flushed mid-exploration, with every step, area and insight once', async () => {
    const runIds = await startRuns();
    await waitFor(
      'every run to be exploring with two steps stored',
      async () => {
        const runs = await readRuns(runIds);
        if (runs.some((run) => isTerminal(run.status))) throw new Error(`a run ended before the flush: ${describeRuns(runs)}`);
        return runs.every((run) => run.phase === 'exploration' && run.steps_completed >= 2);
      },
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    const healed = await healAfter(async () => {
      expect(await redis.flushall()).toBe('OK');
    }, runIds);
    report('FLUSHALL', healed);
    await expectCompleteOnce(runIds);
  }, 400_000);

  it('completes every run whose Redis restarted empty mid-analysis, with every step, area and insight once', async () => {
    const runIds = await startRuns();
    await waitFor(
      'a run to be analyzing, none finished',
      async () => {
        const runs = await readRuns(runIds);
        if (runs.some((run) => isTerminal(run.status))) throw new Error(`a run ended before the restart: ${describeRuns(runs)}`);
        return runs.some((run) => run.phase === 'analysis' || run.phase === 'validation');
      },
      { timeoutMs: 180_000, intervalMs: 50 },
    );
    const healed = await healAfter(async () => {
      const port = Number(new URL(redisServer.url).port);
      await redisServer.stop();
      redisServer = await startRedisServer({ port });
    }, runIds);
    report('redis-server restarted without persistence', healed);
    await expectCompleteOnce(runIds);
  }, 400_000);
});
