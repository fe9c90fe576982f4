/**
 * The Qdrant adapter. Qdrant point ids must be UUIDs or integers, so each string id becomes a
 * deterministic UUID (SHA-256 of the id) and the original id travels in the payload. Qdrant keeps no
 * creation time for collections, so a marker point per collection in a small side collection does,
 * which lets `listCollections` feed the orphan sweep.
 */
import { createHash } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { AssayError, ConflictError, NotFoundError, ValidationError, describeError } from '../errors/index.js';
import type { CollectionInfo, Payload, VectorHit, VectorIndex, VectorPoint } from './port.js';
import { assertCollectionName } from './collection-name.js';
import { compareHits } from './similarity.js';

/** Side collection of creation markers; never listed as one of ours. */
export const QDRANT_MARKER_COLLECTION = 'assay_collection_markers';
/** Payload key holding the caller's id. Leading underscore: cannot clash with Assay's snake_case payload fields. */
export const QDRANT_ORIGINAL_ID_KEY = '_assay_id';
/** Points per upsert request: well under Qdrant's 32 MB request limit even at 3072 dimensions. */
const UPSERT_BATCH_SIZE = 256;

export interface QdrantVectorIndexOptions {
  url: string;
  apiKey?: string | undefined;
}

/** A stable UUID for any string id: the first 16 bytes of its SHA-256, in 8-4-4-4-12 form. */
export function qdrantPointId(id: string): string {
  const hex = createHash('sha256').update(id).digest('hex').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Exact-match filter in Qdrant's shape; a `match` on an array field matches any element, as in the embedded index. */
export function qdrantFilter(
  filter: Record<string, string | number | boolean> | undefined,
): { must: Array<{ key: string; match: { value: string | number | boolean } }> } | undefined {
  if (!filter || Object.keys(filter).length === 0) return undefined;
  return { must: Object.entries(filter).map(([key, value]) => ({ key, match: { value } })) };
}

/** Splits Qdrant's payload back into the caller's id and payload. */
export function fromQdrantPayload(
  pointId: string | number,
  payload: Record<string, unknown> | null | undefined,
): { id: string; payload: Payload } {
  const { [QDRANT_ORIGINAL_ID_KEY]: originalId, ...rest } = payload ?? {};
  return { id: typeof originalId === 'string' ? originalId : String(pointId), payload: rest as Payload };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

function qdrantMessage(error: unknown): string {
  const data = (error as { data?: { status?: { error?: unknown } } }).data;
  return typeof data?.status?.error === 'string' ? data.status.error : describeError(error);
}

export function createQdrantVectorIndex(options: QdrantVectorIndexOptions): VectorIndex {
  const client = new QdrantClient({ url: options.url, apiKey: options.apiKey, checkCompatibility: false });
  const knownDimensions = new Map<string, number>();

  async function call<T>(what: string, collection: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof AssayError) throw error;
      const status = statusOf(error);
      const message = `qdrant ${what} on "${collection}": ${qdrantMessage(error)}`;
      if (status === 404) throw new NotFoundError(message, { collection });
      if (status === 400 || status === 422) throw new ValidationError(message);
      if (status === 409) throw new ConflictError(message, { collection });
      throw new AssayError('internal', message, { cause: error, details: { collection, status } });
    }
  }

  async function dimensionsOf(name: string): Promise<number | null> {
    const cached = knownDimensions.get(name);
    if (cached !== undefined) return cached;
    const { exists } = await call('collectionExists', name, () => client.collectionExists(name));
    if (!exists) return null;
    const info = await call('getCollection', name, () => client.getCollection(name));
    const vectors = info.config.params.vectors as { size?: number } | undefined;
    const size = vectors?.size;
    if (typeof size !== 'number')
      throw new ValidationError(`qdrant collection "${name}" uses named vectors; Assay expects one unnamed vector`);
    knownDimensions.set(name, size);
    return size;
  }

  async function requireDimensions(name: string, vectorLength: number): Promise<void> {
    const dimensions = await dimensionsOf(name);
    if (dimensions === null) throw new NotFoundError(`vector collection "${name}" does not exist`, { collection: name });
    if (dimensions !== vectorLength)
      throw new ValidationError(`vector collection "${name}" holds ${dimensions}-dimensional vectors, got ${vectorLength}`);
  }

  async function ensureMarkerCollection(): Promise<void> {
    if ((await dimensionsOf(QDRANT_MARKER_COLLECTION)) !== null) return;
    await createIfMissing(QDRANT_MARKER_COLLECTION, 1);
  }

  /** Creates a collection; losing a creation race to another worker is fine. */
  async function createIfMissing(name: string, dimensions: number): Promise<boolean> {
    try {
      await client.createCollection(name, { vectors: { size: dimensions, distance: 'Cosine' } });
    } catch (error) {
      if (statusOf(error) === 409 || /already exists/i.test(qdrantMessage(error))) return false;
      return call('createCollection', name, () => Promise.reject(error));
    }
    knownDimensions.set(name, dimensions);
    return true;
  }

  return {
    async ensureCollection(name, dimensions) {
      assertCollectionName(name);
      if (!Number.isInteger(dimensions) || dimensions < 1)
        throw new ValidationError(`vector collection "${name}": dimensions must be a positive integer, got ${dimensions}`);
      const existing = await dimensionsOf(name);
      if (existing === null && (await createIfMissing(name, dimensions))) {
        await ensureMarkerCollection();
        await call('upsert marker', QDRANT_MARKER_COLLECTION, () =>
          client.upsert(QDRANT_MARKER_COLLECTION, {
            wait: true,
            points: [{ id: qdrantPointId(name), vector: [1], payload: { collection: name, created_at: new Date().toISOString() } }],
          }),
        );
        return;
      }
      const actual = existing ?? (await dimensionsOf(name));
      if (actual !== dimensions) {
        throw new ConflictError(
          `vector collection "${name}" exists with ${String(actual)} dimensions, not ${dimensions}; delete it or use another name`,
          { collection: name },
        );
      }
    },

    async upsert(name, points: VectorPoint[]) {
      assertCollectionName(name);
      for (const point of points) await requireDimensions(name, point.vector.length);
      // Within one batch the last point with an id wins, as in the embedded index.
      const unique = [...new Map(points.map((point) => [point.id, point])).values()];
      for (let start = 0; start < unique.length; start += UPSERT_BATCH_SIZE) {
        const batch = unique.slice(start, start + UPSERT_BATCH_SIZE).map((point) => ({
          id: qdrantPointId(point.id),
          vector: point.vector,
          payload: { ...point.payload, [QDRANT_ORIGINAL_ID_KEY]: point.id },
        }));
        await call('upsert', name, () => client.upsert(name, { wait: true, points: batch }));
      }
    },

    async search(name, vector, searchOptions) {
      assertCollectionName(name);
      await requireDimensions(name, vector.length);
      if (searchOptions.topK <= 0) return [];
      const response = await call('query', name, () =>
        client.query(name, {
          query: vector,
          limit: searchOptions.topK,
          filter: qdrantFilter(searchOptions.filter),
          score_threshold: searchOptions.minScore,
          with_payload: true,
        }),
      );
      const hits: VectorHit[] = response.points.map((point) => ({ ...fromQdrantPayload(point.id, point.payload), score: point.score }));
      return hits.sort(compareHits);
    },

    async deleteCollection(name) {
      assertCollectionName(name);
      knownDimensions.delete(name);
      if ((await dimensionsOf(name)) !== null) await call('deleteCollection', name, () => client.deleteCollection(name));
      knownDimensions.delete(name);
      if ((await dimensionsOf(QDRANT_MARKER_COLLECTION)) !== null) {
        await call('delete marker', QDRANT_MARKER_COLLECTION, () =>
          client.delete(QDRANT_MARKER_COLLECTION, { wait: true, points: [qdrantPointId(name)] }),
        );
      }
    },

    async listCollections(): Promise<CollectionInfo[]> {
      const { collections } = await call('getCollections', '*', () => client.getCollections());
      const names = collections
        .map((collection) => collection.name)
        .filter((name) => name !== QDRANT_MARKER_COLLECTION)
        .sort();
      const createdAt = new Map<string, string>();
      if (names.length > 0 && (await dimensionsOf(QDRANT_MARKER_COLLECTION)) !== null) {
        const markers = await call('retrieve markers', QDRANT_MARKER_COLLECTION, () =>
          client.retrieve(QDRANT_MARKER_COLLECTION, { ids: names.map(qdrantPointId), with_payload: true }),
        );
        for (const marker of markers) {
          const payload = marker.payload as { collection?: unknown; created_at?: unknown } | null | undefined;
          if (typeof payload?.collection === 'string' && typeof payload.created_at === 'string')
            createdAt.set(payload.collection, payload.created_at);
        }
      }
      const infos: CollectionInfo[] = [];
      for (const name of names) {
        const info = await call('getCollection', name, () => client.getCollection(name));
        infos.push({ name, createdAt: createdAt.get(name) ?? null, pointCount: info.points_count ?? 0 });
      }
      return infos;
    },

    async close() {
      knownDimensions.clear();
    },
  };
}
