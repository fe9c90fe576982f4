/**
 * The schema cache: a project's described tables, keyed by (projectId, warehouseHash), kept in the run
 * store's TTL cache so every process and pod of a fleet shares it (no pod needs a local disk). Entries older than the TTL come back as `stale` with
 * their tables, so the caller can re-index (and keep working meanwhile) instead of failing a week
 * later as the reference did.
 *
 * Sample rows are read on demand (`table-samples.ts`) and kept beside the schema: one entry per table
 * under the schema entry's `built_at`, so a schema rebuilt (`put`) or dropped (`invalidate`) takes its
 * samples with it — they are deleted, and a generation that is not the current one is never read.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { cellSchema } from '../domain/index.js';
import { ValidationError } from '../errors/index.js';
import type { RunStore } from '../store/port.js';
import { warehouseConfigHash } from '../warehouse/warehouse-url.js';
import type { Row, TableSchema } from '../warehouse/port.js';
import { SCHEMA_CACHE_TTL_MS } from './constants.js';

/** The run-store cache namespace of schema entries. */
export const SCHEMA_CACHE_NAMESPACE = 'schema';
/** The run-store cache namespace of sample rows read on demand, one entry per table. */
export const SCHEMA_SAMPLES_NAMESPACE = 'schema-samples';
/** Entries are stored for this many TTLs, so a stale one can still serve while it is rebuilt. */
const SCHEMA_CACHE_RETENTION_FACTOR = 10;

/**
 * The cache key of a project's warehouse: the warehouse's credential-free config hash over the
 * things that change which tables are seen (attached files, datasets, the tenant filter column).
 * Every writer and reader of the cache must use this one function, or they miss each other.
 */
export function schemaCacheKey(
  warehouseUrl: string,
  scope: { files?: Record<string, string>; datasets?: readonly string[]; filterField?: string | undefined } = {},
): string {
  return warehouseConfigHash(warehouseUrl, {
    files: scope.files ?? {},
    datasets: [...(scope.datasets ?? [])].sort(),
    filter_field: scope.filterField ?? null,
  });
}

/**
 * 2: tables and columns carry the warehouse's comments; entries of version 1 lack them and are rebuilt.
 * A table's `samples` are optional: absent in entries built since samples are read on demand.
 */
const CACHE_FORMAT_VERSION = 2;

const tableSchemaSchema = z.object({
  schema: z.string(),
  name: z.string(),
  qualified: z.string(),
  columns: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      nullable: z.boolean(),
      category: z.enum(['primary_key', 'time', 'metric', 'dimension']),
      comment: z.string().optional(),
    }),
  ),
  rowCount: z.number(),
  samples: z.array(z.record(z.string(), cellSchema)).optional(),
  comment: z.string().optional(),
});

const cacheFileSchema = z.object({
  version: z.literal(CACHE_FORMAT_VERSION),
  project_id: z.string(),
  warehouse_hash: z.string(),
  built_at: z.string(),
  tables: z.array(tableSchemaSchema),
});

const samplesEntrySchema = z.object({
  qualified: z.string(),
  built_at: z.string(),
  rows: z.array(z.record(z.string(), cellSchema)),
});

export type SchemaCacheEntry =
  | { status: 'fresh' | 'stale'; tables: TableSchema[]; builtAt: string; ageMs: number }
  /** `unreadable`: a file exists but is corrupt or of another format; treat as missing and rebuild. */
  | { status: 'missing'; reason: 'absent' | 'unreadable' };

export interface SchemaCache {
  get(projectId: string, warehouseHash: string): Promise<SchemaCacheEntry>;
  put(projectId: string, warehouseHash: string, tables: readonly TableSchema[]): Promise<{ builtAt: string }>;
  /** Forgets one warehouse's entry, or every entry of the project when no hash is given; their samples too. */
  invalidate(projectId: string, warehouseHash?: string): Promise<void>;
  /** The kept sample rows of these tables (qualified names) of the schema built at `builtAt`; tables never sampled are absent. */
  getSamples(projectId: string, warehouseHash: string, builtAt: string, qualified: readonly string[]): Promise<Map<string, Row[]>>;
  /** Keeps sample rows (qualified name → rows) of the schema built at `builtAt`, as long as that schema is kept. */
  putSamples(projectId: string, warehouseHash: string, builtAt: string, samples: ReadonlyMap<string, readonly Row[]>): Promise<void>;
}

export interface SchemaCacheOptions {
  /** Where entries live: the run store's TTL cache, shared by every process and pod of a fleet. */
  store: Pick<RunStore, 'cacheGet' | 'cachePut' | 'cacheDelete'>;
  /** @defaultValue 7 days (SCHEMA_CACHE_TTL_MS) */
  ttlMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

const SAFE_KEY = /^[A-Za-z0-9_-]{1,128}$/;

function checkKey(kind: string, value: string): void {
  if (!SAFE_KEY.test(value)) throw new ValidationError(`schema cache: ${kind} "${value}" must be letters, digits, _ and - (1-128)`);
}

/** A schema generation in a key: its `built_at` as milliseconds in base 36 (no `:`). */
function generationOf(builtAt: string): string {
  const ms = Date.parse(builtAt);
  if (Number.isNaN(ms)) throw new ValidationError(`schema cache: built_at "${builtAt}" is not an ISO timestamp`);
  return ms.toString(36);
}

export function createSchemaCache(options: SchemaCacheOptions): SchemaCache {
  const ttlMs = options.ttlMs ?? SCHEMA_CACHE_TTL_MS;
  const now = options.now ?? Date.now;
  const { store } = options;
  const keyOf = (projectId: string, hash: string): string => `${projectId}:${hash}`;
  const retentionMs = ttlMs * SCHEMA_CACHE_RETENTION_FACTOR;
  // a table name may hold any character; the key holds its digest (the entry holds the name, checked on read)
  const sampleKeyOf = (projectId: string, hash: string, builtAt: string, qualified: string): string =>
    `${keyOf(projectId, hash)}:${generationOf(builtAt)}:${createHash('sha256').update(qualified).digest('hex').slice(0, 32)}`;
  const dropSamples = (projectId: string, hash?: string): Promise<void> =>
    store.cacheDelete(SCHEMA_SAMPLES_NAMESPACE, undefined, { prefix: hash === undefined ? `${projectId}:` : `${keyOf(projectId, hash)}:` });

  return {
    async get(projectId, hash) {
      checkKey('project id', projectId);
      checkKey('warehouse hash', hash);
      const entry = await store.cacheGet(SCHEMA_CACHE_NAMESPACE, keyOf(projectId, hash));
      if (entry === null) return { status: 'missing', reason: 'absent' };
      const parsed = cacheFileSchema.safeParse(entry.value);
      if (!parsed.success || parsed.data.project_id !== projectId || parsed.data.warehouse_hash !== hash)
        return { status: 'missing', reason: 'unreadable' };
      const builtAtMs = Date.parse(parsed.data.built_at);
      if (Number.isNaN(builtAtMs)) return { status: 'missing', reason: 'unreadable' };
      const ageMs = Math.max(0, now() - builtAtMs);
      return { status: ageMs > ttlMs ? 'stale' : 'fresh', tables: parsed.data.tables, builtAt: parsed.data.built_at, ageMs };
    },

    async put(projectId, hash, tables) {
      checkKey('project id', projectId);
      checkKey('warehouse hash', hash);
      const builtAt = new Date(now()).toISOString();
      const entry = { version: CACHE_FORMAT_VERSION, project_id: projectId, warehouse_hash: hash, built_at: builtAt, tables };
      // kept well past the TTL: a stale entry still serves while the index is rebuilt
      await store.cachePut(SCHEMA_CACHE_NAMESPACE, keyOf(projectId, hash), entry, { ttlMs: retentionMs });
      // the previous generation's samples are never read again (their keys name its built_at): free them
      await dropSamples(projectId, hash);
      return { builtAt };
    },

    async invalidate(projectId, hash) {
      checkKey('project id', projectId);
      if (hash === undefined) {
        await store.cacheDelete(SCHEMA_CACHE_NAMESPACE, undefined, { prefix: `${projectId}:` });
        await dropSamples(projectId);
        return;
      }
      checkKey('warehouse hash', hash);
      await store.cacheDelete(SCHEMA_CACHE_NAMESPACE, keyOf(projectId, hash));
      await dropSamples(projectId, hash);
    },

    async getSamples(projectId, hash, builtAt, qualified) {
      checkKey('project id', projectId);
      checkKey('warehouse hash', hash);
      const found = new Map<string, Row[]>();
      const entries = await Promise.all(
        qualified.map((name) => store.cacheGet(SCHEMA_SAMPLES_NAMESPACE, sampleKeyOf(projectId, hash, builtAt, name))),
      );
      entries.forEach((entry, position) => {
        const name = qualified[position] as string;
        const parsed = entry === null ? null : samplesEntrySchema.safeParse(entry.value);
        if (parsed?.success && parsed.data.qualified === name && parsed.data.built_at === builtAt) found.set(name, parsed.data.rows);
      });
      return found;
    },

    async putSamples(projectId, hash, builtAt, samples) {
      checkKey('project id', projectId);
      checkKey('warehouse hash', hash);
      await Promise.all(
        [...samples].map(([qualified, rows]) =>
          store.cachePut(
            SCHEMA_SAMPLES_NAMESPACE,
            sampleKeyOf(projectId, hash, builtAt, qualified),
            { qualified, built_at: builtAt, rows },
            { ttlMs: retentionMs },
          ),
        ),
      );
    },
  };
}
