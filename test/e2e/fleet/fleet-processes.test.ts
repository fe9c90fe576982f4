/**
 * The fleet as a fleet: redis-server, a PostgreSQL run store, the LLM simulator, the API and every
 * worker as separate OS processes. Two projects on two warehouses — the served DuckDB shop and a
 * PostgreSQL games warehouse whose password is a secret reference — run at the same time. A worker
 * is SIGKILLed while it holds an exploration job, again while it holds an analysis job and again
 * while it holds a verification job (at a random step, seed printed); a replacement starts as an
 * orchestrator would start one. Afterwards, the run documents alone must show complete runs: every
 * area, every insight once, exploration steps 1..N each exactly once, and usage totals that add up
 * to the recorded calls. Model calls are recorded as they happen (a crash loses no accounting), so a
 * step whose worker died after the model answered but before the step was stored is asked again, and
 * both real calls are recorded: at most one extra exploration call per explore-worker kill.
 *
 * Lock and stalled-check intervals are shortened (5 s / 2 s instead of 15 s / 10 s) so that three
 * recoveries fit in a test; `npm run bench -- fleet` measures recovery with the product defaults.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack } from '../../support/packs.js';
import { isTerminal, type Run } from '../../../src/domain/index.js';
import { openRunStore } from '../../../src/store/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
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
  type WorkerHandle,
} from '../../support/fleet-processes.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres, type TestPostgresStart } from '../../support/postgres.js';
import { checkRunIntegrity } from '../../support/run-integrity.js';

const MAX_STEPS = 10;
const POOLS = {
  control: ['coordinator', 'recommend', 'maintenance'],
  explore: ['explore', 'index'],
  analyze: ['mine', 'analyze-area', 'verify'],
} as const;
type Pool = keyof typeof POOLS;

const postgres: TestPostgresStart = redisServerMissing ? { available: false, reason: 'not started' } : await startTestPostgres();
const skipReason = redisServerMissing ? REDIS_SKIP_REASON : postgres.available ? undefined : `skipping: ${postgres.reason}`;
if (skipReason) console.log(`fleet processes e2e: ${skipReason}`);

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.skipIf(skipReason !== undefined)('a fleet of OS processes serving two projects, with workers SIGKILLed mid-run', () => {
  let workDir: string;
  let redisServer: RedisServer;
  let simulator: SimulatorProcess;
  let api: ApiProcess;
  let apiKey: string;
  let store: RunStore;
  let redis: Redis;
  let env: Record<string, string>;
  const group = new ProcessGroup();
  const workers = new Map<Pool, WorkerHandle>();
  const queues = new Map<string, Queue>();
  let nextWorker = 0;
  let prefix: string;

  async function startPool(pool: Pool): Promise<void> {
    nextWorker += 1;
    const handle = await startWorker({ name: `${pool}-${nextWorker}`, queues: POOLS[pool], env, logDir: join(workDir, 'logs') });
    group.add(handle.process);
    workers.set(pool, handle);
  }

  function queue(name: string): Queue {
    let found = queues.get(name);
    if (!found) {
      found = new Queue(name, { connection: redis, prefix });
      found.on('error', () => undefined);
      queues.set(name, found);
    }
    return found;
  }

  async function callApi(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  }

  beforeAll(async () => {
    if (!postgres.available) return;
    workDir = await mkdtemp(join(tmpdir(), 'assay-fleet-e2e-'));
    prefix = `e2e-${randomBytes(3).toString('hex')}`;
    const [shop, games] = await Promise.all([
      generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb'), scale: 0.3 }),
      generateDemoWarehouse({ kind: 'gaming', out: join(workDir, 'games.duckdb'), scale: 0.3 }),
    ]);
    const source = await openWarehouse(`duckdb:${games.path}`);
    await copyDemo(source, postgres.server.adminUrl);
    await source.close();
    redisServer = await startRedisServer();
    simulator = await startSimulator({ name: 'simulator', logDir: join(workDir, 'logs'), latencyMs: 300, contextWindow: 400_000 });
    const postgresHost = new URL(postgres.server.readerUrl).host;
    env = fleetEnv({
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
        ASSAY_API_ALLOW: JSON.stringify({ duckdbRoots: [], postgresHosts: [postgresHost], modelHosts: [] }),
        ASSAY_SECRET_GAMES_PG: postgres.server.readerPassword,
      },
    });
    apiKey = (await createApiKeyViaCli(env, { name: 'fleet-e2e', scope: 'admin' })).key;
    api = await startApi({ env, logDir: join(workDir, 'logs'), runner: 'bullmq' });
    group.add(api.process);
    await Promise.all((Object.keys(POOLS) as Pool[]).map((pool) => startPool(pool)));
    store = await openRunStore(postgres.server.adminUrl, { dataDir: join(workDir, 'data') });
    redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
  }, 240_000);

  afterAll(async () => {
    await Promise.allSettled([...queues.values()].map((open) => open.close()));
    redis?.disconnect();
    await store?.close();
    await group.stopAll(5_000);
    await simulator?.process.stop(5_000);
    await redisServer?.stop();
    if (postgres.available) await postgres.server.stop();
    if (workDir && !process.env.FLEET_E2E_KEEP) await rm(workDir, { recursive: true, force: true });
  }, 120_000);

  /** Waits until `queueName` has a job in progress (and, for explore, at least `minStep` steps committed), then SIGKILLs the pool's worker. */
  async function killWhileActive(queueName: string, pool: Pool, runIds: readonly string[], minStep = 0): Promise<string> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const runs = await Promise.all(runIds.map((id) => store.getRun(id)));
      const active = await queue(queueName).getActive();
      const ready = runs.some((run) => run && run.steps_completed >= minStep);
      if (active.length > 0 && ready) {
        const victim = workers.get(pool)!;
        await victim.process.kill('SIGKILL');
        await startPool(pool);
        return `${victim.name} killed holding ${active.map((job) => job.id).join(', ')}`;
      }
      if (runs.every((run) => run && isTerminal(run.status)))
        throw new Error(
          `the runs ended before a ${queueName} job could be killed: ${runs.map((run) => `${run?.id} ${run?.status}/${run?.phase} ${run?.error ?? ''}`).join('; ')}`,
        );
      if (Date.now() > deadline) throw new Error(`no ${queueName} job became active within 120 s`);
      await sleep(25);
    }
  }

  it('completes both runs with every step, area and insight exactly once', async () => {
    const games = await callApi('POST', '/api/v1/projects', {
      id: 'games',
      name: 'Games on PostgreSQL',
      domain: 'gaming',
      warehouse: { url: postgres.available ? postgres.server.readerUrl.replace(`:${postgres.server.readerPassword}@`, '@') : '' },
      secrets: { warehouse_password: 'secret:GAMES_PG' },
    });
    expect(games.status, JSON.stringify(games.json)).toBe(201);
    expect((await callApi('POST', '/api/v1/projects', { id: 'shop', name: 'Shop on DuckDB', domain: 'ecommerce' })).status).toBe(201);
    const started = await Promise.all(
      ['games', 'shop'].map((id) => callApi('POST', `/api/v1/projects/${id}/discover`, { max_steps: MAX_STEPS })),
    );
    for (const response of started) expect(response.status, JSON.stringify(response.json)).toBe(202);
    const runIds = started.map((response) => response.json.run_id as string);

    const killStep = randomInt(2, 6);
    console.log(`fleet e2e: killing the explore worker once a run has ${killStep} steps`);
    const kills = [
      await killWhileActive('explore', 'explore', runIds, killStep),
      await killWhileActive('analyze-area', 'analyze', runIds),
      await killWhileActive('verify', 'analyze', runIds),
    ];
    console.log(`fleet e2e: ${kills.join('; ')}`);

    let runs: Run[] = [];
    const deadline = Date.now() + 240_000;
    while (Date.now() < deadline) {
      runs = (await Promise.all(runIds.map((id) => store.getRun(id)))) as Run[];
      if (runs.every((run) => run.phase === 'complete' && isTerminal(run.status))) break;
      await sleep(500);
    }
    for (const run of runs) expect(`${run.id}: ${run.status}/${run.phase} ${run.error ?? ''}`).toBe(`${run.id}: completed/complete `);

    const integrity = await checkRunIntegrity(store, runIds, (pack) => loadPack(pack).areas.map((area) => area.id));
    for (const report of integrity) {
      expect(report.run_type).toBe('full');
      expect(report.missing_areas).toEqual([]);
      expect(report.missing_insights).toEqual([]);
      expect(report.duplicated_insights).toEqual([]);
      expect(report.unvalidated_insights).toBe(0);
      expect(report.steps).toBeGreaterThan(0);
      expect(report.duplicated_step_numbers).toBe(0);
      expect(report.step_gaps).toBe(0);
      // only the kill during exploration can make a step's call happen twice
      expect(report.repeated_exploration_calls).toBeLessThanOrEqual(1);
    }
    for (const run of runs) {
      // what the run documents hold, for the log: a reader can check the kills against it
      const insights = run.areas.flatMap((area) => area.insights);
      const statuses = insights.map((insight) => insight.validation?.status ?? 'none');
      console.log(
        `fleet e2e: ${run.id} ${run.run_type}: ${run.steps_completed} steps, areas ${run.areas.map((area) => `${area.area_id}=${area.status}`).join(' ')}, ` +
          `${insights.length} insights (${[...new Set(statuses)].map((status) => `${statuses.filter((other) => other === status).length} ${status}`).join(', ')}), ` +
          `${run.telemetry.llm_calls.length} model calls`,
      );
    }
    for (const run of runs) {
      const recorded = run.telemetry.llm_calls.filter((call) => call.phase === 'exploration').length;
      const totalled = Object.values(run.telemetry.usage_by_phase.exploration ?? {}).reduce((sum, usage) => sum + usage.calls, 0);
      expect(totalled, `${run.id}: exploration calls in usage_by_phase vs recorded`).toBe(recorded);
    }
    // each project explored its own warehouse
    const sql = await Promise.all(runIds.map(async (id) => (await store.listSteps(id)).map((step) => step.query ?? '').join('\n')));
    expect(sql[0]).toMatch(/players|sessions|levels/i);
    expect(sql[1]).toMatch(/\borders\b/i);
  }, 600_000);
});
