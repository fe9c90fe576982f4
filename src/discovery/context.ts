/**
 * What the phase functions run against: the ports (store, warehouse, models, embedder, vector
 * index, schema source) plus a clock and a logger. Handlers and the local runner build one of these
 * in the composition root; phases never import an adapter.
 */
import type { AssayConfig } from '../config/index.js';
import type { Project, Run } from '../domain/index.js';
import type { Embedder } from '../embed/port.js';
import { CancelledError, NotFoundError } from '../errors/index.js';
import type { LlmBinding } from '../llm/catalog.js';
import type { Logger } from '../logging/index.js';
import type { PackLibrary } from '../pack-files/port.js';
import type { Catalog } from '../schema/catalog.js';
import type { TableSampler } from '../schema/table-samples.js';
import type { RunStore } from '../store/port.js';
import type { VectorIndex } from '../vector/port.js';
import type { TableSchema, Warehouse } from '../warehouse/port.js';
import type { DomainPack } from './packs/pack-schema.js';

/** The project's schema as a run sees it: cached tables, the Level-0 catalog and the search collection. */
export interface ProjectSchema {
  /** From the catalog: a table carries no samples until it is looked up (see `samples`). */
  tables: TableSchema[];
  /** Reads a table's sample rows the first time one is needed, then serves them from the shared schema cache. */
  samples: TableSampler;
  catalog: Catalog;
  /** The vector collection search_tables queries. */
  collection: string;
  warehouseHash: string;
}

export interface SchemaSource {
  /**
   * The project's schema, rebuilding the cache and index when missing or stale (never failing
   * silently on an expired cache). Throws with a clear message when it cannot be rebuilt.
   */
  load(
    project: Project,
    options: { areaKeywords: readonly string[]; catalogBudgetTokens: number; signal?: AbortSignal },
  ): Promise<ProjectSchema>;
}

export interface DiscoveryDeps {
  config: AssayConfig;
  store: RunStore;
  warehouse: Warehouse;
  /** The analysis model (exploration, analysis, verification, recommendations). */
  llm: LlmBinding;
  /** The fast tier (SQL fixes). */
  fastLlm: LlmBinding;
  embedder: Embedder;
  vectorIndex: VectorIndex;
  schema: SchemaSource;
  /** Where packs' files come from (the pack-file port): what `loadPack` reads and `GET /packs` lists. */
  packs: PackLibrary;
  /** A pack by slug or directory, validated and cached; hidden packs only with `enableSystemTestPack`. */
  loadPack(slug: string): DomainPack;
  logger: Logger;
  now(): Date;
}

export type TieredPhase = keyof AssayConfig['compaction']['tiers'];

/**
 * The model a phase runs on, from `compaction.tiers` (model tiering): `strong` is the analysis model,
 * `fast` the fast one. Spread into `askLlm` options, so every call records the tier that served it.
 */
export function modelFor(
  deps: Pick<DiscoveryDeps, 'config' | 'llm' | 'fastLlm'>,
  phase: TieredPhase,
): { binding: LlmBinding; tier: 'fast' | 'strong' } {
  const tier = deps.config.compaction.tiers[phase];
  return tier === 'fast' ? { binding: deps.fastLlm, tier } : { binding: deps.llm, tier };
}

export async function requireRun(deps: Pick<DiscoveryDeps, 'store'>, runId: string): Promise<Run> {
  const run = await deps.store.getRun(runId);
  if (!run) throw new NotFoundError(`run ${runId} does not exist`, { runId });
  return run;
}

export async function requireProject(deps: Pick<DiscoveryDeps, 'store'>, projectId: string): Promise<Project> {
  const project = await deps.store.getProject(projectId);
  if (!project) throw new NotFoundError(`project ${projectId} does not exist`, { projectId });
  return project;
}

/** Every job checks this before spending tokens: a cancelled run or an aborted job stops here. */
export async function assertRunActive(deps: Pick<DiscoveryDeps, 'store'>, runId: string, signal?: AbortSignal): Promise<Run> {
  if (signal?.aborted) throw new CancelledError(`run ${runId}: job aborted`);
  const run = await requireRun(deps, runId);
  if (run.status === 'cancelled') throw new CancelledError(`run ${runId} was cancelled`);
  return run;
}
