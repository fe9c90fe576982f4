/**
 * Builds a project's schema index: a blurb per table, embedded with the table's name and columns,
 * upserted into a fresh collection `assay_schema_{projectId}_{buildId}`. Only when that collection
 * is complete does the project's pointer move to it and older builds get deleted, so a failed or
 * cancelled rebuild leaves the previous index serving (the reference dropped it first).
 */
import { randomBytes } from 'node:crypto';
import type { Embedder } from '../embed/port.js';
import { mapWithConcurrency } from '../concurrency/index.js';
import { AssayError, CancelledError, NotFoundError, describeError } from '../errors/index.js';
import type { VectorIndex, VectorPoint } from '../vector/port.js';
import type { TableSchema } from '../warehouse/port.js';
import { schemaEmbeddingText, templateBlurb, type BlurbContext } from './blurb.js';
import {
  BLURB_CONCURRENCY,
  BLURB_FAILURE_TOLERANCE,
  BLURB_MAX_CHARS,
  CATALOG_MAX_JOINS_PER_TABLE,
  CATALOG_MAX_KEYWORDS_PER_TABLE,
} from './constants.js';
import { inferJoins } from './joins.js';
import { matchTableKeywords, prepareKeywords } from './keywords.js';
import type { SchemaProgressListener } from './progress.js';

/** One small collection of pointers, one point per project, naming its active schema collection. */
export const SCHEMA_POINTER_COLLECTION = 'assay_index_pointers';
export const SCHEMA_COLLECTION_PREFIX = 'assay_schema_';
/** Texts per embed call while building, so progress moves and one failure does not lose everything. */
const EMBED_CHUNK = 96;
/** Points per upsert call. */
const UPSERT_CHUNK = 256;
/** `b` + 9 base-36 digits of milliseconds + 4 random: sorts by build time as text. */
const BUILD_ID = /^b[0-9a-z]{13}$/;

export interface SchemaIndexPointer {
  projectId: string;
  collection: string;
  buildId: string;
  builtAt: string;
  embedderId: string;
  dimensions: number;
  tableCount: number;
}

export type BlurbWriter = (table: TableSchema, context: BlurbContext) => Promise<string>;

export interface BuildSchemaIndexOptions {
  projectId: string;
  tables: readonly TableSchema[];
  embedder: Embedder;
  vectorIndex: VectorIndex;
  /** Writes a table's blurb (usually the fast LLM). Default: the deterministic templateBlurb. */
  blurb?: BlurbWriter;
  /** Area keywords of the project's pack: stored per table and given to the blurb writer. */
  areaKeywords?: readonly string[];
  onProgress?: SchemaProgressListener;
  signal?: AbortSignal;
  /** @defaultValue 8 (BLURB_CONCURRENCY) */
  blurbConcurrency?: number;
}

export interface SchemaIndexBuild {
  pointer: SchemaIndexPointer;
  /** Tables whose blurb failed and which were indexed with the template blurb instead. */
  blurbFailures: Array<{ table: string; error: string }>;
  /** Older collections of this project deleted after the swap. */
  replaced: string[];
  /** True when a newer build of the same project finished first; this build was discarded. */
  superseded: boolean;
  /** Why deleting older builds failed, when it did (they are retried by the next build). */
  cleanupError?: string;
}

export function schemaCollectionName(projectId: string, buildId: string): string {
  return `${SCHEMA_COLLECTION_PREFIX}${projectId}_${buildId}`;
}

let lastBuildMillis = 0;

/** Strictly increasing within a process, so two builds in the same millisecond still order correctly. */
function newBuildId(now: number): string {
  lastBuildMillis = Math.max(now, lastBuildMillis + 1);
  return `b${lastBuildMillis.toString(36).padStart(9, '0')}${randomBytes(2).toString('hex')}`;
}

/** The build id of a collection of this project, or null for any other collection. */
function buildIdOf(projectId: string, collection: string): string | null {
  const prefix = `${SCHEMA_COLLECTION_PREFIX}${projectId}_`;
  if (!collection.startsWith(prefix)) return null;
  const rest = collection.slice(prefix.length);
  return BUILD_ID.test(rest) ? rest : null;
}

/** The project's active schema index, or null when it has none. */
export async function readSchemaIndexPointer(vectorIndex: VectorIndex, projectId: string): Promise<SchemaIndexPointer | null> {
  let hits: Awaited<ReturnType<VectorIndex['search']>>;
  try {
    hits = await vectorIndex.search(SCHEMA_POINTER_COLLECTION, [1], { topK: 1, filter: { project_id: projectId } });
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
  const payload = hits[0]?.payload;
  if (!payload || typeof payload.collection !== 'string') return null;
  return {
    projectId,
    collection: payload.collection,
    buildId: String(payload.build_id),
    builtAt: String(payload.built_at),
    embedderId: String(payload.embedder_id),
    dimensions: Number(payload.dimensions),
    tableCount: Number(payload.table_count),
  };
}

async function writePointer(vectorIndex: VectorIndex, pointer: SchemaIndexPointer): Promise<void> {
  await vectorIndex.ensureCollection(SCHEMA_POINTER_COLLECTION, 1);
  await vectorIndex.upsert(SCHEMA_POINTER_COLLECTION, [
    {
      id: pointer.projectId,
      vector: [1],
      payload: {
        project_id: pointer.projectId,
        collection: pointer.collection,
        build_id: pointer.buildId,
        built_at: pointer.builtAt,
        embedder_id: pointer.embedderId,
        dimensions: pointer.dimensions,
        table_count: pointer.tableCount,
      },
    },
  ]);
}

/** Most blurbs that may fail before the build fails: 5 % of the tables, at least one. */
export function tolerableBlurbFailures(tableCount: number): number {
  return Math.max(1, Math.floor(tableCount * BLURB_FAILURE_TOLERANCE));
}

export async function buildSchemaIndex(options: BuildSchemaIndexOptions): Promise<SchemaIndexBuild> {
  const { projectId, tables, embedder, vectorIndex, onProgress, signal } = options;
  const throwIfCancelled = (): void => {
    if (signal?.aborted) throw new CancelledError(`schema index build for project "${projectId}" cancelled`, { cause: signal.reason });
  };
  throwIfCancelled();
  const buildId = newBuildId(Date.now());
  const collection = schemaCollectionName(projectId, buildId);

  // 1. Blurbs. A failed blurb falls back to the template; too many failures fail the build before anything is written.
  const joins = inferJoins(tables, CATALOG_MAX_JOINS_PER_TABLE);
  const prepared = prepareKeywords(options.areaKeywords ?? []);
  const contexts = tables.map(
    (table): BlurbContext => ({
      keywords: matchTableKeywords(table, prepared, CATALOG_MAX_KEYWORDS_PER_TABLE),
      joins: joins.get(table.qualified) ?? [],
    }),
  );
  const blurbFailures: SchemaIndexBuild['blurbFailures'] = [];
  let described = 0;
  onProgress?.({ phase: 'describing_tables', done: 0, total: tables.length });
  const blurbs = await mapWithConcurrency(
    tables,
    options.blurbConcurrency ?? BLURB_CONCURRENCY,
    async (table, position) => {
      const context = contexts[position] as BlurbContext;
      let blurb: string;
      if (!options.blurb) {
        blurb = templateBlurb(table, context);
      } else {
        try {
          blurb = (await options.blurb(table, context)).trim();
          if (blurb.length === 0) throw new Error('empty blurb');
          if (blurb.length > BLURB_MAX_CHARS) throw new Error(`blurb of ${blurb.length} characters (limit ${BLURB_MAX_CHARS})`);
        } catch (error) {
          throwIfCancelled();
          if (error instanceof CancelledError) throw error;
          blurbFailures.push({ table: table.qualified, error: describeError(error) });
          blurb = templateBlurb(table, context);
        }
      }
      described += 1;
      onProgress?.({ phase: 'describing_tables', done: described, total: tables.length });
      return blurb;
    },
    signal,
  );
  const allowed = tolerableBlurbFailures(tables.length);
  if (blurbFailures.length > allowed) {
    throw new AssayError(
      'llm',
      `schema index for project "${projectId}": ${blurbFailures.length} of ${tables.length} table descriptions failed (at most ${allowed} tolerated, ${BLURB_FAILURE_TOLERANCE * 100} %); first: ${blurbFailures[0]?.table}: ${blurbFailures[0]?.error}`,
      { details: { failed: blurbFailures.length, total: tables.length, allowed } },
    );
  }
  throwIfCancelled();

  // 2. Embed and upsert into the new collection; on any failure the half-built collection is removed.
  let created = false;
  try {
    const texts = tables.map((table, position) => schemaEmbeddingText(table, blurbs[position] as string));
    const vectors: number[][] = [];
    onProgress?.({ phase: 'embedding', done: 0, total: texts.length });
    for (let start = 0; start < texts.length; start += EMBED_CHUNK) {
      throwIfCancelled();
      vectors.push(...(await embedder.embed(texts.slice(start, start + EMBED_CHUNK), { signal })));
      onProgress?.({ phase: 'embedding', done: vectors.length, total: texts.length });
    }
    // Size the collection from real vectors: some embedders learn their size from the first response.
    const dimensions = vectors[0]?.length ?? (embedder.dimensions || (await embedder.embed(['probe'], { signal }))[0]?.length || 1);
    throwIfCancelled();
    await vectorIndex.ensureCollection(collection, dimensions);
    created = true;
    const points: VectorPoint[] = tables.map((table, position) => ({
      id: table.qualified,
      vector: vectors[position] as number[],
      payload: {
        project_id: projectId,
        table: table.qualified,
        schema: table.schema,
        name: table.name,
        blurb: blurbs[position] as string,
        keywords: (contexts[position] as BlurbContext).keywords,
        row_count: table.rowCount,
        column_count: table.columns.length,
        embedding_model: embedder.id,
        blurb_source: options.blurb && !blurbFailures.some((failure) => failure.table === table.qualified) ? 'writer' : 'template',
      },
    }));
    for (let start = 0; start < points.length; start += UPSERT_CHUNK) {
      throwIfCancelled();
      await vectorIndex.upsert(collection, points.slice(start, start + UPSERT_CHUNK));
    }

    // 3. Swap: point the project at the new collection, unless a newer build already finished.
    const pointer: SchemaIndexPointer = {
      projectId,
      collection,
      buildId,
      builtAt: new Date().toISOString(),
      embedderId: embedder.id,
      dimensions,
      tableCount: tables.length,
    };
    const current = await readSchemaIndexPointer(vectorIndex, projectId);
    if (current && current.buildId > buildId && buildIdOf(projectId, current.collection) !== null) {
      await vectorIndex.deleteCollection(collection);
      onProgress?.({ phase: 'done', done: tables.length, total: tables.length });
      return { pointer: current, blurbFailures, replaced: [], superseded: true };
    }
    throwIfCancelled();
    await writePointer(vectorIndex, pointer);
    // From here the new collection is live: nothing below may delete it.
    created = false;

    // 4. Remove older builds of this project (the previous index, and leftovers of failed builds).
    // Best effort: the new index already serves, and the next build retries whatever is left.
    const replaced: string[] = [];
    let cleanupError: string | undefined;
    try {
      for (const info of await vectorIndex.listCollections()) {
        const otherBuild = buildIdOf(projectId, info.name);
        if (otherBuild === null || otherBuild >= buildId) continue;
        await vectorIndex.deleteCollection(info.name);
        replaced.push(info.name);
      }
    } catch (error) {
      cleanupError = describeError(error);
    }
    onProgress?.({ phase: 'done', done: tables.length, total: tables.length });
    return { pointer, blurbFailures, replaced, superseded: false, ...(cleanupError === undefined ? {} : { cleanupError }) };
  } catch (error) {
    if (created) await vectorIndex.deleteCollection(collection).catch(() => undefined);
    throw error;
  }
}
