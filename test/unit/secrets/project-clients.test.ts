/** Secret providers (environment, mounted directory) and the per-project connection pool (sharing, LRU cap, idle close, in-use sets kept). */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeRuntime, type Runtime } from '../../../src/composition.js';
import { loadConfig } from '../../../src/config/index.js';
import { projectSchema, type Project } from '../../../src/domain/index.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import { createProjectClients, ProjectClientsUnavailableError, warehouseUrlWithPassword } from '../../../src/project-clients.js';
import { createDirectorySecretProvider, createEnvSecretProvider, createSecretProvider } from '../../../src/secrets/index.js';
import { describeWarehouseTarget, parseWarehouseUrl } from '../../../src/warehouse/index.js';

describe('secret providers', () => {
  it('env: secret:NAME is ASSAY_SECRET_NAME, and a missing one names the variable, not a value', () => {
    const provider = createEnvSecretProvider({ ASSAY_SECRET_SHOP_PG: 'pw-1', REDIS_URL: 'redis://x' });
    expect(provider.resolve('secret:SHOP_PG')).toBe('pw-1');
    expect(() => provider.resolve('secret:REDIS_URL')).toThrow(/define the environment variable ASSAY_SECRET_REDIS_URL/);
    expect(() => provider.resolve('SHOP_PG')).toThrow(/not a secret reference/);
  });

  it('dir: reads mounted files (through Kubernetes-style symlinks), trims one newline, and stays inside', () => {
    const root = mkdtempSync(join(tmpdir(), 'assay-secrets-'));
    try {
      mkdirSync(join(root, '..data'));
      writeFileSync(join(root, '..data', 'shop_pg'), 'pw-2\n');
      symlinkSync(join('..data', 'shop_pg'), join(root, 'shop_pg'));
      writeFileSync(join(root, '..', `outside-${process.pid}`), 'nope');
      symlinkSync(join(root, '..', `outside-${process.pid}`), join(root, 'escape'));
      const provider = createDirectorySecretProvider(root);
      expect(provider.resolve('secret:shop_pg')).toBe('pw-2');
      expect(() => provider.resolve('secret:escape')).toThrow(/outside the secrets directory/);
      expect(() => provider.resolve('secret:..')).toThrow(/not a secret reference/);
      expect(() => provider.resolve('secret:absent')).toThrow(/no file absent/);
      rmSync(join(root, '..', `outside-${process.pid}`));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses an unknown provider spec', () => {
    expect(() => createSecretProvider('vault:x')).toThrow(/expected "env" or "dir:/);
  });
});

describe('warehouseUrlWithPassword', () => {
  it('puts the secret into a server URL, encoded, and refuses where a password cannot go', () => {
    expect(warehouseUrlWithPassword('postgres://reader@db:5432/a', 'p@ss/w')).toBe('postgres://reader:p%40ss%2Fw@db:5432/a');
    expect(warehouseUrlWithPassword('mysql://reader@db:3306/a', 'p@ss')).toBe('mysql://reader:p%40ss@db:3306/a');
    expect(warehouseUrlWithPassword('clickhouse+https://reader@ch:8443/a', 'pw')).toBe('clickhouse+https://reader:pw@ch:8443/a');
    expect(warehouseUrlWithPassword('duckdb:/x.duckdb', undefined)).toBe('duckdb:/x.duckdb');
    expect(() => warehouseUrlWithPassword('duckdb:/x.duckdb', 'pw')).toThrow(/a file warehouse takes no password/);
    expect(() => warehouseUrlWithPassword('postgres://db/a', 'pw')).toThrow(/names no user/);
    expect(() => warehouseUrlWithPassword('mysql://db/a', 'pw')).toThrow(/mysql:\/\/USER@host/);
  });

  it('carries a BigQuery service-account key in the URL, in memory only, where the adapter reads it', () => {
    const key = '{"client_email":"assay@p.iam.gserviceaccount.com","private_key":"-----BEGIN…"}';
    const url = warehouseUrlWithPassword('bigquery://p/ds', key);
    expect(parseWarehouseUrl(url)).toMatchObject({ engine: 'bigquery', project: 'p', datasets: ['ds'], credentialsJson: key });
    expect(describeWarehouseTarget(parseWarehouseUrl(url))).toBe('bigquery://p/ds');
  });
});

describe('the per-project connection pool', () => {
  let dir: string;
  let runtime: Runtime;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-pool-'));
    const config = loadConfig({ env: { ASSAY_DATA_DIR: dir, ASSAY_WAREHOUSE: 'duckdb::memory:', ASSAY_LLM: 'offline:analyst' }, cwd: dir });
    runtime = await composeRuntime(config, { logger: silentLogger });
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const project = (id: string, fast?: string, secrets: Record<string, string> = {}): Project =>
    projectSchema.parse({
      id,
      name: id,
      domain: 'ecommerce',
      warehouse: { url: 'duckdb::memory:' },
      llm: 'offline:analyst',
      ...(fast ? { fast_llm: fast } : {}),
      secrets,
      state: 'ready',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    });

  it("gives served projects the server's ports, shares one set between equal settings, and caps open sets (LRU)", async () => {
    let clock = 0;
    const clients = createProjectClients({
      base: runtime,
      secrets: createEnvSecretProvider({}),
      offlineBrain: createOfflineAnalyst(),
      maxOpen: 2,
      idleMs: 1_000,
      now: () => clock,
    });
    expect(await clients.withProject(project('served'), async (deps) => deps.warehouse === runtime.warehouse)).toBe(true);
    expect(clients.openSets()).toBe(0);
    const a1 = await clients.withProject(project('a1', 'offline:a'), async (deps) => deps.warehouse);
    const a2 = await clients.withProject(project('a2', 'offline:a'), async (deps) => deps.warehouse);
    expect(a1).toBe(a2);
    expect(a1).not.toBe(runtime.warehouse);
    clock = 10;
    await clients.withProject(project('b', 'offline:b'), async () => undefined);
    clock = 20;
    await clients.withProject(project('c', 'offline:c'), async () => undefined);
    expect(clients.openSets()).toBe(2);
    // a set in use is never closed, even past the idle time
    const held = clients.withProject(project('d', 'offline:d'), async () => {
      clock = 5_000;
      await clients.withProject(project('e', 'offline:e'), async () => undefined);
      return clients.openSets();
    });
    expect(await held).toBe(2);
    await clients.close();
    expect(clients.openSets()).toBe(0);
  });

  it('wraps a failure to open as ProjectClientsUnavailableError with the config code, and does not keep it', async () => {
    const clients = createProjectClients({ base: runtime, secrets: createEnvSecretProvider({}), offlineBrain: createOfflineAnalyst() });
    const failing = project('x', 'offline:x', { llm_api_key: 'secret:MISSING' });
    const error = await clients
      .withProject({ ...failing, llm: 'openai:gpt-5.4-mini' }, async () => undefined)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProjectClientsUnavailableError);
    expect((error as ProjectClientsUnavailableError).code).toBe('config');
    expect((error as Error).message).toMatch(/project x could not be opened: secret secret:MISSING is not set/);
    expect(clients.openSets()).toBe(0);
    await clients.close();
  });
});
