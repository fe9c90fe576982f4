/**
 * Builds real discovery dependencies for tests — embedded store, DuckDB warehouse file, local
 * embedder, embedded vector index, the shipped packs — around a model brain the test chooses.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadConfig } from '../../src/config/index.js';
import type { DiscoveryDeps } from '../../src/discovery/context.js';
import type { LlmBinding } from '../../src/llm/catalog.js';
import { createRun } from '../../src/discovery/phases/create-run.js';
import { loadPack, SHIPPED_PACKS } from './packs.js';
import { createSchemaSource } from '../../src/discovery/schema-source.js';
import { projectSchema, type Project, type Run } from '../../src/domain/index.js';
import { createLocalEmbedder } from '../../src/embed/index.js';
import { lookupModel } from '../../src/llm/catalog.js';
import { createOfflineProvider, type OfflineBrain } from '../../src/llm/providers/offline.js';
import { silentLogger } from '../../src/logging/index.js';
import { createEmbeddedRunStore } from '../../src/store/index.js';
import { createEmbeddedVectorIndex } from '../../src/vector/index.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import type { Warehouse } from '../../src/warehouse/port.js';
import { tempDir } from './temp-dir.js';

/**
 * A small shop: sessions by device with a planted mobile checkout problem, and orders. Built once per
 * test process into a template file and copied for every caller: most harnesses need the same shop,
 * and a copy costs a few milliseconds where building it costs a DuckDB instance and two CREATE TABLEs.
 */
export async function createShopWarehouse(path: string): Promise<void> {
  // the template goes with the temporary directories of the test file that built it: the next file builds it again
  if (shopTemplate && !existsSync(await shopTemplate)) shopTemplate = undefined;
  shopTemplate ??= buildShopTemplate();
  copyFileSync(await shopTemplate, path);
}

let shopTemplate: Promise<string> | undefined;

async function buildShopTemplate(): Promise<string> {
  const dir = tempDir('assay-shop-template-');
  const path = join(dir, 'shop.duckdb');
  await buildShopWarehouse(path);
  return path;
}

async function buildShopWarehouse(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`
    CREATE TABLE sessions AS
      SELECT i AS session_id,
             CASE WHEN i % 3 = 0 THEN 'desktop' ELSE 'mobile' END AS device,
             (i % 2 = 0) AS reached_checkout,
             (i % 2 = 0 AND (i % 3 = 0 OR i % 5 = 0)) AS ordered,
             TIMESTAMP '2024-01-01' + to_days(CAST(i % 90 AS INTEGER)) AS started_at
      FROM range(1, 601) t(i);
    CREATE TABLE orders AS
      SELECT session_id AS order_id, session_id, 20 + (session_id % 7) * 5 AS amount, started_at AS ordered_at
      FROM sessions WHERE ordered;
  `);
  connection.closeSync();
  instance.closeSync();
}

export interface Harness {
  deps: DiscoveryDeps;
  project: Project;
  newRun(overrides?: { maxSteps?: number; minSteps?: number; areas?: string[] }): Promise<Run>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  pack?: string;
  contextWindow?: number;
  /** Use this warehouse file instead of the small generated shop. */
  warehousePath?: string;
  /** Use this model binding instead of the brain behind the offline provider. */
  llm?: LlmBinding;
  /** Wraps the opened warehouse (e.g. to count what is read through the port); closing still closes the real one. */
  wrapWarehouse?: (warehouse: Warehouse) => Warehouse;
}

export async function createHarness(brain: OfflineBrain, options: HarnessOptions = {}): Promise<Harness> {
  const dir = tempDir('assay-engine-');
  const warehousePath = options.warehousePath ?? join(dir, 'shop.duckdb');
  if (!options.warehousePath) await createShopWarehouse(warehousePath);
  const config = loadConfig({ env: { ASSAY_DATA_DIR: dir, ASSAY_WAREHOUSE: `duckdb:${warehousePath}` }, cwd: dir });
  const opened = await openWarehouse(config.warehouse);
  const warehouse = options.wrapWarehouse ? options.wrapWarehouse(opened) : opened;
  const embedder = createLocalEmbedder();
  const vectorIndex = createEmbeddedVectorIndex({ dir: join(dir, 'vectors') });
  const store = createEmbeddedRunStore({ dir: join(dir, 'store') });
  const { entry } = lookupModel('offline:analyst');
  const llm = options.llm ?? {
    provider: createOfflineProvider({ brain }),
    entry: { ...entry, contextWindow: options.contextWindow ?? entry.contextWindow },
  };
  let tick = 0;
  const deps: DiscoveryDeps = {
    config,
    store,
    warehouse,
    llm,
    fastLlm: llm,
    embedder,
    vectorIndex,
    schema: createSchemaSource({ config, store, warehouse, embedder, vectorIndex, logger: silentLogger }),
    packs: SHIPPED_PACKS,
    loadPack: (slug) => loadPack(slug, { includeHidden: true }),
    logger: silentLogger,
    // a deterministic clock: one second per reading
    now: () => new Date(Date.UTC(2026, 10, 23, 9, 0, tick++)),
  };
  const stamp = '2026-11-23T09:00:00.000Z';
  const project = projectSchema.parse({
    id: 'shop',
    name: 'Shop',
    domain: options.pack ?? 'ecommerce',
    warehouse: { url: config.warehouse },
    llm: 'offline:analyst',
    created_at: stamp,
    updated_at: stamp,
  });
  await store.upsertProject(project);
  return {
    deps,
    project,
    newRun: (overrides = {}) =>
      createRun(
        store,
        project,
        {
          maxSteps: overrides.maxSteps ?? 8,
          minSteps: overrides.minSteps ?? 0,
          areas: overrides.areas ?? [],
          llm: 'offline:analyst',
          pack: project.domain,
          analysisBudgetTokens: 200_000,
        },
        deps.now(),
      ),
    close: async () => {
      await opened.close();
      await vectorIndex.close();
    },
  };
}

/**
 * Makes the harness's run updates fail where `fault` says so: it sees each update's run before and
 * after, and the error it returns is thrown (none: the update goes through). The fault schedules of
 * the fleet and pipeline-driver tests break the store this way.
 */
export function failRunUpdates(harness: Harness, fault: (before: Run, after: Run) => Error | undefined): void {
  const store = harness.deps.store;
  harness.deps.store = {
    ...store,
    updateRun: (id: string, mutate: (run: Run) => Run) =>
      store.updateRun(id, (run) => {
        const next = mutate(run);
        const error = fault(run, next);
        if (error) throw error;
        return next;
      }),
  };
}

/** Makes the harness's run updates fail as the run enters `phase`, whenever `fault` returns an error. */
export function failRunUpdatesEntering(harness: Harness, phase: Run['phase'], fault: () => Error | undefined): void {
  failRunUpdates(harness, (before, after) => (after.phase === phase && before.phase !== phase ? fault() : undefined));
}
