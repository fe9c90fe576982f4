/**
 * Phase 0 for one project: describe the warehouse (or reuse a fresh cache), store the schemas in
 * the cache, build the schema index. What `assay index` and the `index` queue's schema jobs run.
 */
import type { Embedder } from '../embed/port.js';
import { NotFoundError } from '../errors/index.js';
import type { VectorIndex } from '../vector/port.js';
import type { TableRef, TableSchema, Warehouse } from '../warehouse/port.js';
import type { SchemaCache } from './cache.js';
import { discoverSchema } from './schema-discovery.js';
import { buildSchemaIndex, readSchemaIndexPointer, type BlurbWriter, type SchemaIndexBuild } from './index-builder.js';
import type { SchemaProgressListener } from './progress.js';

export interface IndexProjectSchemaOptions {
  projectId: string;
  warehouse: Warehouse;
  /** warehouseConfigHash(...) of the project's warehouse (src/warehouse): the cache key. */
  warehouseHash: string;
  cache: SchemaCache;
  embedder: Embedder;
  vectorIndex: VectorIndex;
  blurb?: BlurbWriter;
  areaKeywords?: readonly string[];
  /** Describe the warehouse again even when the cache is fresh. @defaultValue false */
  refresh?: boolean;
  onProgress?: SchemaProgressListener;
  onTableError?: (table: TableRef, error: Error) => void;
  signal?: AbortSignal;
}

export interface ProjectSchemaIndex {
  tables: TableSchema[];
  tablesFrom: 'cache' | 'warehouse';
  build: SchemaIndexBuild;
}

export async function indexProjectSchema(options: IndexProjectSchemaOptions): Promise<ProjectSchemaIndex> {
  const { projectId, cache, warehouseHash, onProgress } = options;
  const cached = options.refresh ? null : await cache.get(projectId, warehouseHash);
  let tables: TableSchema[];
  let tablesFrom: ProjectSchemaIndex['tablesFrom'];
  if (cached?.status === 'fresh') {
    tables = cached.tables;
    tablesFrom = 'cache';
    onProgress?.({ phase: 'listing_tables', done: tables.length, total: tables.length });
    onProgress?.({ phase: 'schema_discovery', done: tables.length, total: tables.length });
  } else {
    tables = await discoverSchema(options.warehouse, { signal: options.signal, onProgress, onTableError: options.onTableError });
    if (tables.length === 0) throw new NotFoundError(`warehouse ${options.warehouse.description} has no tables to index`, { projectId });
    await cache.put(projectId, warehouseHash, tables);
    tablesFrom = 'warehouse';
  }
  const build = await buildSchemaIndex({
    projectId,
    tables,
    embedder: options.embedder,
    vectorIndex: options.vectorIndex,
    blurb: options.blurb,
    areaKeywords: options.areaKeywords,
    onProgress,
    signal: options.signal,
  });
  return { tables, tablesFrom, build };
}

export type SchemaIndexAssessment =
  | {
      ready: true;
      tables: TableSchema[];
      collection: string /** The schema entry's generation: its samples are kept under it. */;
      builtAt: string;
    }
  | {
      ready: false;
      reason: 'cache_missing' | 'cache_stale' | 'index_missing' | 'embedder_changed';
      detail: string;
      tables?: TableSchema[];
    };

/**
 * Whether a run can use the project's schema as it is. Anything but `ready` means: enqueue a
 * re-index (a stale cache still returns its tables, so the run may proceed on them meanwhile).
 */
export async function assessSchemaIndex(options: {
  projectId: string;
  warehouseHash: string;
  cache: SchemaCache;
  vectorIndex: VectorIndex;
  embedderId: string;
}): Promise<SchemaIndexAssessment> {
  const entry = await options.cache.get(options.projectId, options.warehouseHash);
  if (entry.status === 'missing')
    return { ready: false, reason: 'cache_missing', detail: `no schema cache for this warehouse (${entry.reason})` };
  if (entry.status === 'stale')
    return { ready: false, reason: 'cache_stale', detail: `schema cache built ${entry.builtAt} is past its TTL`, tables: entry.tables };
  const pointer = await readSchemaIndexPointer(options.vectorIndex, options.projectId);
  if (!pointer) return { ready: false, reason: 'index_missing', detail: 'the project has no schema index', tables: entry.tables };
  if (pointer.embedderId !== options.embedderId) {
    return {
      ready: false,
      reason: 'embedder_changed',
      detail: `index built with ${pointer.embedderId}, embedder is now ${options.embedderId}`,
      tables: entry.tables,
    };
  }
  return { ready: true, tables: entry.tables, collection: pointer.collection, builtAt: entry.builtAt };
}
