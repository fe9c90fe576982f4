/**
 * Per-project providers: a project names its warehouse, models and embedder (credentials by
 * `secret:NAME` reference), and a process running its jobs opens that connection set here. Sets are
 * pooled by a hash of what they connect to (one per warehouse + models combination, however many
 * projects share it), at most `projectClients.maxOpen` open, least recently used closed first, and
 * closed after `projectClients.idleMs` unused. A project on the server's own settings uses the
 * server's runtime. Resolved secrets live only inside the clients.
 */
import { createHash } from 'node:crypto';
import { type AssayConfig, redactUrl } from './config/index.js';
import type { DiscoveryDeps } from './discovery/context.js';
import { createSchemaSource } from './discovery/schema-source.js';
import type { Project, Run } from './domain/index.js';
import { createEmbedder } from './embed/index.js';
import { AssayError, ConfigError, describeError } from './errors/index.js';
import { bindLlm } from './llm/bind.js';
import { parseLlmSpec } from './llm/factory.js';
import type { OfflineBrain } from './llm/providers/offline.js';
import type { SecretProvider } from './secrets/index.js';
import type { RunStore } from './store/port.js';
import type { Warehouse } from './warehouse/port.js';
import { openWarehouse, warehouseResourcesFrom } from './warehouse/index.js';

/**
 * A project's connections could not be opened (a missing secret, an unreachable warehouse, an
 * unusable model spec). With a `config` code no job of the run can succeed until an operator fixes
 * it, so drivers finish the run failed with this message instead of retrying.
 */
export class ProjectClientsUnavailableError extends AssayError {
  constructor(projectId: string, cause: unknown) {
    // keeps the cause's code: an unreachable warehouse may come back (retry), a missing secret will not
    super(
      cause instanceof AssayError ? cause.code : 'config',
      `the connections of project ${projectId} could not be opened: ${describeError(cause)}`,
      { cause },
    );
  }
}

/**
 * The store as one job sees it: its first read of the run and of the project is answered with the
 * documents `withRun` has just read to choose the job's connections, so a job reads each once (its
 * `assertRunActive` / `requireProject` do not read them again). Every later read goes to the store.
 */
function servingFirstReads(store: RunStore, run: Run, project: Project): RunStore {
  let unreadRun: Run | undefined = run;
  let unreadProject: Project | undefined = project;
  const getRun: RunStore['getRun'] = async (id) => {
    if (unreadRun?.id !== id) return store.getRun(id);
    const first = unreadRun;
    unreadRun = undefined;
    return first;
  };
  const getProject: RunStore['getProject'] = async (id) => {
    if (unreadProject?.id !== id) return store.getProject(id);
    const first = unreadProject;
    unreadProject = undefined;
    return first;
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'getRun') return getRun;
      if (property === 'getProject') return getProject;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface ProjectClients {
  /**
   * Runs `work` on the ports of the project `runId` belongs to. The connection set stays open while
   * any work uses it (the cap may be exceeded for that long); unknown runs get the server's ports.
   */
  withRun<T>(runId: string, work: (deps: DiscoveryDeps) => Promise<T>): Promise<T>;
  /** Same, for a project. */
  withProject<T>(project: Project, work: (deps: DiscoveryDeps) => Promise<T>): Promise<T>;
  /** Connection sets open now (for tests and metrics). */
  openSets(): number;
  close(): Promise<void>;
}

interface OpenSet {
  deps: DiscoveryDeps;
  warehouse: Warehouse;
  lastUsed: number;
  /** Jobs using the set now: an in-use set is never closed. */
  users: number;
}

/** The settings that decide which connections a project needs; equal settings share one set. */
function settingsOf(project: Project) {
  return {
    warehouse: project.warehouse.url,
    llm: project.llm,
    fast_llm: project.fast_llm ?? null,
    embedder: project.embedder,
    secrets: project.secrets,
  };
}

/** True when the project runs on exactly what the server itself is configured with. */
export function usesServedSettings(project: Project, config: AssayConfig): boolean {
  const secrets = Object.values(project.secrets).filter((value) => value !== undefined);
  return (
    secrets.length === 0 &&
    project.warehouse.url === redactUrl(config.warehouse) &&
    project.llm === config.llm &&
    (project.fast_llm === undefined || project.fast_llm === (config.fastLlm ?? config.llm)) &&
    project.embedder === config.embedder
  );
}

const PASSWORD_SCHEMES = new Set([
  'postgres',
  'postgresql',
  'mysql',
  'mariadb',
  'clickhouse',
  'clickhouse+http',
  'clickhouse+https',
  'snowflake',
  'bigquery',
]);

/** The project's warehouse URL with the password (BigQuery: the service-account key) from its secret reference put back. */
export function warehouseUrlWithPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const scheme = /^([a-z+]+):\/\//.exec(url)?.[1] ?? '';
  if (!PASSWORD_SCHEMES.has(scheme)) {
    throw new ConfigError(
      `secrets.warehouse_password is set but a ${scheme || 'file'} warehouse takes no password (postgres, mysql, clickhouse and snowflake URLs take one; bigquery takes a service-account key)`,
    );
  }
  const parsed = new URL(url);
  if (scheme === 'bigquery') {
    // the service-account key travels in the URL's password slot, only in memory (the description never shows it)
    parsed.password = encodeURIComponent(password);
    return parsed.toString();
  }
  if (!parsed.username)
    throw new ConfigError(`secrets.warehouse_password is set but the warehouse URL names no user (${scheme}://USER@host/…)`);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/** The config a project's model clients are built from: the server's, with the project's keys. */
function configWithKeys(config: AssayConfig, spec: string, apiKey: string | undefined): AssayConfig {
  if (apiKey === undefined) return config;
  const { provider } = parseLlmSpec(spec);
  if (provider === 'anthropic') return { ...config, anthropicApiKey: apiKey };
  if (provider === 'openai' || provider === 'openai-compatible') return { ...config, openaiApiKey: apiKey };
  throw new ConfigError(`a per-project API key is not supported for "${provider}" models (they use the process's credentials)`);
}

function embedderConfig(config: AssayConfig, spec: string, apiKey: string | undefined): AssayConfig {
  if (apiKey === undefined) return config;
  if (spec.startsWith('openai')) return { ...config, openaiApiKey: apiKey };
  throw new ConfigError(`a per-project embedder key is not supported for "${spec}"`);
}

export interface ProjectClientsOptions {
  /** The server's own ports: the store, vector index, packs and clock are shared by every project. */
  base: DiscoveryDeps;
  secrets: SecretProvider;
  offlineBrain: OfflineBrain;
  /** @defaultValue base.config.projectClients.maxOpen */
  maxOpen?: number;
  /** @defaultValue base.config.projectClients.idleMs */
  idleMs?: number;
  now?: () => number;
}

export function createProjectClients(options: ProjectClientsOptions): ProjectClients {
  const { base, secrets } = options;
  const config = base.config;
  const maxOpen = options.maxOpen ?? config.projectClients.maxOpen;
  const idleMs = options.idleMs ?? config.projectClients.idleMs;
  const now = options.now ?? Date.now;
  const sets = new Map<string, Promise<OpenSet>>();

  async function open(project: Project): Promise<OpenSet> {
    const resolve = (reference: string | undefined) => (reference === undefined ? undefined : secrets.resolve(reference));
    const warehouse = await openWarehouse(warehouseUrlWithPassword(project.warehouse.url, resolve(project.secrets.warehouse_password)), {
      files: {},
      maxRows: config.sql.maxRows,
      timeoutMs: config.sql.timeoutMs,
      maxStoredBytes: config.sql.maxStoredBytes,
      resources: warehouseResourcesFrom(config.sql),
    }).catch((error: unknown) => {
      // a refused login or a missing file is the project's setting to fix: say which one
      if (!(error instanceof ConfigError)) throw error;
      const settings = project.secrets.warehouse_password === undefined ? 'warehouse.url' : 'warehouse.url / secrets.warehouse_password';
      throw new ConfigError(`the project's warehouse (${settings}): ${error.message}`, { cause: error, details: error.details });
    });
    try {
      const llm = bindLlm(
        project.llm,
        configWithKeys(config, project.llm, resolve(project.secrets.llm_api_key)),
        base.logger,
        options.offlineBrain,
      );
      const fastSpec = project.fast_llm;
      const fastLlm =
        fastSpec === undefined
          ? llm
          : bindLlm(
              fastSpec,
              configWithKeys(config, fastSpec, resolve(project.secrets.fast_llm_api_key ?? project.secrets.llm_api_key)),
              base.logger,
              options.offlineBrain,
            );
      const embedder = createEmbedder(
        project.embedder,
        embedderConfig(config, project.embedder, resolve(project.secrets.embedder_api_key)),
      );
      const schema = createSchemaSource({
        config,
        store: base.store,
        warehouse,
        embedder,
        vectorIndex: base.vectorIndex,
        logger: base.logger,
      });
      const deps: DiscoveryDeps = { ...base, warehouse, llm, fastLlm, embedder, schema };
      return { deps, warehouse, lastUsed: now(), users: 0 };
    } catch (error) {
      await warehouse.close().catch(() => undefined);
      throw error;
    }
  }

  async function closeSet(key: string): Promise<void> {
    const entry = sets.get(key);
    sets.delete(key);
    const set = await entry?.catch(() => undefined);
    await set?.warehouse.close().catch(() => undefined);
  }

  /** Closes idle sets, then least recently used unused ones while over the cap. */
  async function evict(): Promise<void> {
    const settled = await Promise.all([...sets.entries()].map(async ([key, entry]) => ({ key, set: await entry.catch(() => undefined) })));
    const unused = settled.filter((item) => item.set !== undefined && item.set.users === 0);
    for (const item of unused) if (now() - item.set!.lastUsed >= idleMs) await closeSet(item.key);
    const remaining = unused.filter((item) => sets.has(item.key)).sort((left, right) => left.set!.lastUsed - right.set!.lastUsed);
    while (sets.size > maxOpen && remaining.length > 0) await closeSet(remaining.shift()!.key);
  }

  async function acquire(project: Project): Promise<{ deps: DiscoveryDeps; release: () => void }> {
    if (usesServedSettings(project, config)) return { deps: base, release: () => undefined };
    const key = createHash('sha256')
      .update(JSON.stringify(settingsOf(project)))
      .digest('hex');
    let entry = sets.get(key);
    if (!entry) {
      entry = open(project);
      sets.set(key, entry);
      // a set that failed to open is not kept: the next job tries again (a secret may have been fixed)
      entry.catch(() => sets.delete(key));
    }
    const set = await entry;
    set.users += 1;
    set.lastUsed = now();
    await evict();
    return {
      deps: set.deps,
      release: () => {
        set.users -= 1;
        set.lastUsed = now();
      },
    };
  }

  const clients: ProjectClients = {
    async withProject(project, work) {
      let acquired: Awaited<ReturnType<typeof acquire>>;
      try {
        acquired = await acquire(project);
      } catch (error) {
        throw new ProjectClientsUnavailableError(project.id, error);
      }
      const { deps, release } = acquired;
      try {
        return await work(deps);
      } finally {
        release();
      }
    },
    async withRun(runId, work) {
      const run = await base.store.getRun(runId);
      const project = run ? await base.store.getProject(run.project_id) : null;
      if (!run || !project) return work(base);
      return clients.withProject(project, (deps) => work({ ...deps, store: servingFirstReads(deps.store, run, project) }));
    },
    openSets: () => sets.size,
    async close() {
      await Promise.all([...sets.keys()].map((key) => closeSet(key)));
    },
  };
  return clients;
}
