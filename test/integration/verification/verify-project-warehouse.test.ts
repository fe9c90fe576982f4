/**
 * POST /api/v1/projects/:id/verify on a project with its own PostgreSQL warehouse (password by secret
 * reference), beside a project on the served DuckDB one: each claim is recounted on its project's
 * warehouse, in that warehouse's dialect, and the PostgreSQL recount of the gaming demo gives the same
 * numbers and verdicts as the corpus's own SQL on the DuckDB original. Skipped, with the reason, when no
 * PostgreSQL server can be started here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../../src/api/auth/keys.js';
import { createApi } from '../../../src/api/index.js';
import { composeRuntime, type Runtime } from '../../../src/composition.js';
import { loadConfig } from '../../../src/config/index.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { startLocalRunLauncher, type LocalRunLauncher } from '../../../src/fleet/local/launcher.js';
import { silentLogger } from '../../../src/logging/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { countGap, medianGap, rateGap, shareOfTotal, trendOf } from '../../support/claim-corpus.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres } from '../../support/postgres.js';

const postgres = await startTestPostgres();
if (!postgres.available) console.log(`skipping the verify-on-a-project-warehouse test: ${postgres.reason}`);

/** Claims on the gaming demo, named by bare table names (main.* in DuckDB, public.* in PostgreSQL), and the corpus's SQL for their numbers. */
const GAMING_CLAIMS = [
  {
    sql: rateGap(`SELECT coalesce(level_number = 12, false) AS inside, (completed_at IS NOT NULL)::INTEGER AS y FROM main.level_progress`),
    claim: {
      kind: 'difference',
      metric: { kind: 'rate', table: 'level_progress', condition: { column: 'completed_at', op: 'not_null' }, label: 'completion rate' },
      segment: { column: 'level_number', value: 12 },
      comparison: { kind: 'rest' },
    },
  },
  {
    sql: medianGap(
      `SELECT coalesce(level_number = 12, false) AS inside, (epoch(completed_at) - epoch(started_at)) / 60.0 AS y FROM main.level_progress`,
    ),
    claim: {
      kind: 'difference',
      metric: { kind: 'duration_median', table: 'level_progress', start_column: 'started_at', end_column: 'completed_at', unit: 'minutes' },
      segment: { column: 'level_number', value: 12 },
      comparison: { kind: 'rest' },
    },
  },
  {
    sql: countGap(`SELECT CASE platform WHEN 'iOS' THEN true WHEN 'Android' THEN false END AS inside FROM main.sessions`),
    claim: {
      kind: 'difference',
      metric: { kind: 'count', table: 'sessions' },
      segment: { column: 'platform', value: 'iOS' },
      comparison: { kind: 'group', group: { column: 'platform', value: 'Android' } },
    },
  },
  {
    sql: shareOfTotal(`SELECT product_id = 4 AS inside, price_usd::DOUBLE AS y FROM main.purchases`),
    claim: {
      kind: 'share',
      metric: { kind: 'sum', table: 'purchases', column: 'price_usd' },
      segment: { column: 'product_id', value: 4 },
      comparison: { kind: 'rest' },
    },
  },
  {
    sql: trendOf(`SELECT epoch(date_trunc('week', started_at)) / 604800 AS x, count(*) AS v
                  FROM main.sessions WHERE started_at >= TIMESTAMP '2024-01-01' AND started_at < TIMESTAMP '2024-03-04' GROUP BY date_trunc('week', started_at)`),
    claim: {
      kind: 'trend',
      metric: { kind: 'count', table: 'sessions' },
      series: { column: 'started_at', grain: 'week', from: '2024-01-01', to: '2024-03-04' },
    },
  },
] as const;

describe.skipIf(!postgres.available)('when claims are checked against a project with its own PostgreSQL warehouse', () => {
  let dir: string;
  let runtime: Runtime;
  let launcher: LocalRunLauncher;
  let app: Hono;
  let admin: string;
  const measured: Array<Record<string, number | string>> = [];

  beforeAll(async () => {
    if (!postgres.available) return;
    dir = mkdtempSync(join(tmpdir(), 'assay-verify-project-'));
    const shop = await generateDemoWarehouse({ kind: 'ecommerce', out: join(dir, 'shop.duckdb'), scale: 0.3 });
    const games = await generateDemoWarehouse({ kind: 'gaming', out: join(dir, 'games.duckdb'), scale: 0.3 });
    const source = await openWarehouse(`duckdb:${games.path}`);
    await copyDemo(source, postgres.server.adminUrl);
    await source.close();
    const raw = await DuckDBInstance.create(games.path, { access_mode: 'READ_ONLY' });
    const connection = await raw.connect();
    for (const { sql } of GAMING_CLAIMS)
      measured.push((await connection.runAndReadAll(sql)).getRowObjectsJS()[0] as Record<string, number | string>);
    connection.closeSync();
    raw.closeSync();

    const password = postgres.server.readerPassword;
    vi.stubEnv('ASSAY_SECRET_VERIFY_PG', password);
    const config = loadConfig({
      env: { ASSAY_DATA_DIR: join(dir, 'data'), ASSAY_WAREHOUSE: `duckdb:${shop.path}`, ASSAY_LLM: 'offline:analyst' },
      cwd: dir,
    });
    runtime = await composeRuntime(config, { logger: silentLogger });
    launcher = await startLocalRunLauncher({ runtime, clients: runtime.clients, maxConcurrentRuns: 1, sweepIntervalMs: 0 });
    const gamesUrl = postgres.server.readerUrl.replace(`:${password}@`, '@');
    app = createApi({
      runtime,
      launcher,
      config: {
        ...config,
        api: { ...config.api, allow: { duckdbRoots: [], postgresHosts: [new URL(gamesUrl).host], warehouseHosts: [], modelHosts: [] } },
      },
      logger: silentLogger,
    });
    admin = (await createApiKey(runtime.store, { name: 'admin', scope: 'admin' }, new Date())).key;
    const created = await call('POST', '/api/v1/projects', {
      id: 'games',
      name: 'Games',
      domain: 'gaming',
      warehouse: { url: gamesUrl },
      secrets: { warehouse_password: 'secret:VERIFY_PG' },
    });
    expect(created.status).toBe(201);
    expect((await call('POST', '/api/v1/projects', { id: 'shop', name: 'Shop', domain: 'ecommerce' })).status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    vi.unstubAllEnvs();
    await launcher?.close();
    await runtime?.close();
    if (postgres.available) await postgres.server.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown) {
    const response = await app.request(path, {
      method,
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as any };
  }

  it('recounts each claim in PostgreSQL to the numbers the DuckDB original gives, and confirms them', async () => {
    const claims = GAMING_CLAIMS.map(({ claim }, index) => {
      const row = measured[index] as Record<string, number | string>;
      const value = Number(row.value);
      const comparison = Number(row.comparison_value);
      const direction = row.direction === 'higher' || row.direction === 'lower' ? row.direction : value > comparison ? 'higher' : 'lower';
      return { ...claim, value, comparison_value: comparison, direction };
    });
    const response = await call('POST', '/api/v1/projects/games/verify', { claims });
    expect(response.status).toBe(200);
    response.json.verdicts.forEach((verdict: any, index: number) => {
      expect(verdict.status, `${index}: ${verdict.reasoning}`).toBe('confirmed');
      expect(verdict.recount.value).toBeCloseTo(claims[index]?.value as number, 6);
      expect(verdict.recount.comparison_value).toBeCloseTo(claims[index]?.comparison_value as number, 6);
      expect(verdict.sql).toContain('"public"');
    });
  });

  it('recounts on the project’s own warehouse: the shop’s tables are not the games project’s, nor the other way round', async () => {
    const orders = {
      kind: 'difference',
      metric: { kind: 'count', table: 'orders' },
      segment: { column: 'device_type', value: 'desktop' },
      comparison: { kind: 'rest' },
      value: 1,
      comparison_value: 1,
      direction: 'higher',
    };
    const onGames = await call('POST', '/api/v1/projects/games/verify', orders);
    expect(onGames.json.verdicts[0]).toMatchObject({
      status: 'rejected',
      reasoning: expect.stringContaining('table "orders" is not in the warehouse schema'),
    });
    const onShop = await call('POST', '/api/v1/projects/shop/verify', orders);
    expect(onShop.json.verdicts[0].recount.n).toBeGreaterThan(0);
    expect(onShop.json.verdicts[0].sql).toContain('"main"."orders"');
  });
});
