/**
 * Secrets never leak: the served API runs a whole discovery with a known secret as the LLM key (the
 * OpenAI adapter talks to the LLM simulator) and another as the password in the PostgreSQL run
 * store's URL. Then every log line, run document, step, result, report, SSE event, /metrics,
 * /openapi.json, error body and stored row is searched for either secret.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/api/auth/keys.js';
import { serveApi, type ServedApi } from '../../../src/cli/commands/api.js';
import { loadConfig } from '../../../src/config/index.js';
import { lookupModel } from '../../../src/llm/catalog.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';
import { createLogger } from '../../../src/logging/index.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { startTestPostgres } from '../../support/postgres.js';

const LLM_KEY = 'sk-PLANTED-llm-key-7f3a9c';
const PG_PASSWORD = 'pgPLANTEDpw4e81b';

const postgres = await startTestPostgres();
if (!postgres.available) console.log(`skipping the secrets-leak test: ${postgres.reason}`);

describe.skipIf(!postgres.available)('secrets through a whole served run', () => {
  let dir: string;
  let simulator: LlmSimulator;
  let served: ServedApi;
  let key: string;
  let storeUrl: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    if (!postgres.available) return;
    dir = mkdtempSync(join(tmpdir(), 'assay-secrets-'));
    const analyst = createOfflineAnalyst();
    simulator = await startLlmSimulator({
      contextWindow: lookupModel('openai:gpt-5.4-mini').entry.contextWindow,
      brain: (call) =>
        analyst({ ...(call.system ? { system: call.system } : {}), messages: call.messages, maxOutputTokens: call.maxOutputTokens }),
    });
    const warehouse = await generateDemoWarehouse({ kind: 'ecommerce', out: join(dir, 'shop.duckdb'), scale: 0.3 });
    // trust authentication ignores the password, but it travels through every URL handling path
    storeUrl = postgres.server.adminUrl.replace('postgres@', `postgres:${PG_PASSWORD}@`);
    const config = loadConfig({
      env: {
        ASSAY_DATA_DIR: join(dir, 'data'),
        ASSAY_WAREHOUSE: `duckdb:${warehouse.path}`,
        ASSAY_LLM: 'openai:gpt-5.4-mini',
        OPENAI_API_KEY: LLM_KEY,
        OPENAI_BASE_URL: `${simulator.url}/v1`,
        ASSAY_STORE: storeUrl,
      },
      cwd: dir,
    });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'trace', format: 'json', destination: sink });
    served = await serveApi(config, { port: 0, host: '127.0.0.1', runner: 'local', maxConcurrentRuns: 1 }, logger);
    key = (await createApiKey(served.runtime.store, { name: 'leak-test', scope: 'admin' }, new Date())).key;
  }, 120_000);

  afterAll(async () => {
    await served?.stop();
    await simulator?.close();
    if (postgres.available) await postgres.server.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('appear in no log line, document, report, event, metric, error body or stored row', async () => {
    const seen: Array<[string, string]> = [];
    const get = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${served.url}${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, ...init.headers } });
      const text = await response.text();
      seen.push([`${init.method ?? 'GET'} ${path} → ${response.status}`, text]);
      return { status: response.status, text };
    };
    const post = (path: string, body: unknown) =>
      get(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

    expect((await post('/api/v1/projects', { id: 'shop', name: 'Shop', domain: 'ecommerce' })).status).toBe(201);
    const started = await post('/api/v1/projects/shop/discover', { max_steps: 8 });
    expect(started.status).toBe(202);
    const runId = (JSON.parse(started.text) as { run_id: string }).run_id;
    const events = await get(`/api/v1/runs/${runId}/events`);
    expect(events.text).toContain('event: end');

    const run = await get(`/api/v1/runs/${runId}`);
    expect(JSON.parse(run.text).status).toBe('completed');
    for (const path of [
      `/api/v1/runs/${runId}/steps`,
      `/api/v1/runs/${runId}/result`,
      `/api/v1/runs/${runId}/report`,
      '/api/v1/projects/shop',
      '/api/v1/projects',
      '/api/v1/api-keys',
      '/metrics',
      '/openapi.json',
      '/health/ready',
      '/api/v1/runs/nope',
      '/api/v1/nowhere',
    ]) {
      await get(path);
    }
    await post('/api/v1/projects', { name: 'x', domain: 'nope', warehouse: { url: storeUrl } });
    await post('/api/v1/projects', '{not json');
    expect(simulator.stats.completions.openai).toBeGreaterThan(0);

    // every stored row of the run store
    const client = new pg.Client({ connectionString: postgres.available ? postgres.server.adminUrl : '' });
    await client.connect();
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    for (const { table_name: table } of tables.rows) {
      const rows = await client.query(`SELECT * FROM "${table}"`);
      seen.push([`table ${table}`, JSON.stringify(rows.rows)]);
    }
    await client.end();
    expect(tables.rows.length).toBeGreaterThan(3);
    seen.push(['log', logLines.join('')]);
    expect(logLines.length).toBeGreaterThan(10);

    for (const [where, text] of seen) {
      expect(text.includes(LLM_KEY), `LLM key in ${where}`).toBe(false);
      expect(text.includes(PG_PASSWORD), `PostgreSQL password in ${where}`).toBe(false);
    }
  }, 120_000);
});
