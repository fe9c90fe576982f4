/**
 * One server, two projects on two warehouses: the served DuckDB shop and a PostgreSQL games
 * warehouse whose password is a secret reference resolved from the environment. Both runs go
 * through the API and the local launcher at the same time; each explores its own warehouse, the
 * password appears in no document, and a project whose secret is missing fails with the
 * reference named (never a value).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../../src/api/auth/keys.js';
import { createApi } from '../../../src/api/index.js';
import { composeRuntime, type Runtime } from '../../../src/composition.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Run } from '../../../src/domain/index.js';
import { startLocalRunLauncher, type LocalRunLauncher } from '../../../src/fleet/local/launcher.js';
import { silentLogger } from '../../../src/logging/index.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres } from '../../support/postgres.js';

const postgres = await startTestPostgres();
if (!postgres.available) console.log(`skipping the per-project providers test: ${postgres.reason}`);

describe.skipIf(!postgres.available)('projects with their own warehouses and secrets', () => {
  let dir: string;
  let runtime: Runtime;
  let launcher: LocalRunLauncher;
  let app: Hono;
  let admin: string;
  let password: string;
  let gamesUrl: string;
  let postgresHost: string;

  beforeAll(async () => {
    if (!postgres.available) return;
    dir = mkdtempSync(join(tmpdir(), 'assay-per-project-'));
    const shop = await generateDemoWarehouse({ kind: 'ecommerce', out: join(dir, 'shop.duckdb'), scale: 0.3 });
    const games = await generateDemoWarehouse({ kind: 'gaming', out: join(dir, 'games.duckdb'), scale: 0.3 });
    const source = await openWarehouse(`duckdb:${games.path}`);
    await copyDemo(source, postgres.server.adminUrl);
    await source.close();
    password = postgres.server.readerPassword;
    gamesUrl = postgres.server.readerUrl.replace(`:${password}@`, '@');
    postgresHost = new URL(gamesUrl).host;
    vi.stubEnv('ASSAY_SECRET_GAMES_PG', password);
    const config = loadConfig({
      env: {
        ASSAY_DATA_DIR: join(dir, 'data'),
        ASSAY_WAREHOUSE: `duckdb:${shop.path}`,
        ASSAY_LLM: 'offline:analyst',
        ASSAY_MAX_STEPS: '8',
      },
      cwd: dir,
    });
    runtime = await composeRuntime(config, { logger: silentLogger });
    launcher = await startLocalRunLauncher({ runtime, clients: runtime.clients, maxConcurrentRuns: 3, sweepIntervalMs: 0 });
    app = createApi({
      runtime,
      launcher,
      config: {
        ...config,
        api: { ...config.api, allow: { duckdbRoots: [], postgresHosts: [postgresHost], warehouseHosts: [], modelHosts: [] } },
      },
      logger: silentLogger,
    });
    admin = (await createApiKey(runtime.store, { name: 'admin', scope: 'admin' }, new Date())).key;
  }, 120_000);

  afterAll(async () => {
    vi.unstubAllEnvs();
    await launcher?.close();
    await runtime?.close();
    if (postgres.available) await postgres.server.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown, key = admin) {
    const response = await app.request(path, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as any };
  }

  async function finished(runId: string): Promise<Run> {
    await launcher.settled(runId);
    return (await runtime.store.getRun(runId))!;
  }

  it('runs each project on its own warehouse at the same time, with the password only in the secret', async () => {
    const runKey = (await createApiKey(runtime.store, { name: 'runner', scope: 'run' }, new Date())).key;
    const gamesBody = {
      id: 'games',
      name: 'Games',
      domain: 'gaming',
      warehouse: { url: gamesUrl },
      secrets: { warehouse_password: 'secret:GAMES_PG' },
    };
    expect((await call('POST', '/api/v1/projects', gamesBody, runKey)).status).toBe(403);
    const withPassword = await call('POST', '/api/v1/projects', {
      ...gamesBody,
      warehouse: { url: postgres.available ? postgres.server.readerUrl : '' },
    });
    expect(withPassword.status).toBe(400);
    expect(withPassword.json.error.message).toMatch(/secrets.warehouse_password/);

    expect((await call('POST', '/api/v1/projects', gamesBody)).status).toBe(201);
    expect((await call('POST', '/api/v1/projects', { id: 'shop', name: 'Shop', domain: 'ecommerce' })).status).toBe(201);
    const [games, shop] = await Promise.all([
      call('POST', '/api/v1/projects/games/discover', {}),
      call('POST', '/api/v1/projects/shop/discover', {}),
    ]);
    const [gamesRun, shopRun] = await Promise.all([finished(games.json.run_id), finished(shop.json.run_id)]);
    expect(gamesRun.status, gamesRun.error).toBe('completed');
    expect(shopRun.status, shopRun.error).toBe('completed');

    const gamesSql = (await runtime.store.listSteps(gamesRun.id)).map((step) => step.query ?? '').join('\n');
    const shopSql = (await runtime.store.listSteps(shopRun.id)).map((step) => step.query ?? '').join('\n');
    expect(gamesSql).toMatch(/players|sessions|levels/i);
    expect(gamesSql).not.toMatch(/\borders\b/i);
    expect(shopSql).toMatch(/\borders\b/i);
    expect(gamesRun.context?.warehouse_hash).not.toBe(shopRun.context?.warehouse_hash);
    expect(runtime.clients.openSets()).toBe(1);

    const stored = JSON.stringify([
      await runtime.store.getProject('games'),
      gamesRun,
      await runtime.store.listSteps(gamesRun.id),
      await runtime.store.getResult(gamesRun.id),
    ]);
    expect(stored).not.toContain(password);
    expect(stored).toContain('secret:GAMES_PG');
  }, 180_000);

  it('fails a run whose secret is missing, naming the reference and the variable, never a value', async () => {
    const created = await call('POST', '/api/v1/projects', {
      id: 'games-unset',
      name: 'Games without a secret',
      domain: 'gaming',
      warehouse: { url: gamesUrl },
      secrets: { warehouse_password: 'secret:NOT_THERE' },
    });
    expect(created.status).toBe(201);
    const started = await call('POST', '/api/v1/projects/games-unset/discover', {});
    const run = await finished(started.json.run_id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/secret:NOT_THERE is not set: define the environment variable ASSAY_SECRET_NOT_THERE/);
  }, 60_000);
});
