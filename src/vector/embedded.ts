/**
 * The embedded vector index: exact cosine over every point, one JSON file per collection under `dir`.
 * Made for one writer process (the laptop run); the fleet uses Qdrant. Other processes may read: a
 * collection is reloaded when its file changed on disk. Writes are crash-safe (temp file, fsync,
 * rename), so a killed process leaves either the old or the new collection, never half of one.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import { readJsonFile, writeFileAtomic } from '../common/atomic-file.js';
import type { CollectionInfo, Payload, VectorHit, VectorIndex, VectorPoint, VectorSearchOptions } from './port.js';
import { assertCollectionName } from './collection-name.js';
import { compareHits, matchesFilter } from './similarity.js';

const FILE_SUFFIX = '.collection.json';
const FORMAT_VERSION = 1;

interface StoredPoint {
  vector: Float32Array;
  norm: number;
  payload: Payload;
}

interface Collection {
  dimensions: number;
  createdAt: string;
  points: Map<string, StoredPoint>;
}

/** A loaded collection and the file version it came from. */
interface Loaded {
  collection: Collection;
  fileVersion: string;
}

/** On disk, vectors are base64 float32: a third of the size of JSON numbers, and exactly what search uses. */
interface CollectionFile {
  version: number;
  name: string;
  dimensions: number;
  created_at: string;
  points: Array<{ id: string; vector: string; payload: Payload }>;
}

export interface EmbeddedVectorIndexOptions {
  dir: string;
}

function normOf(vector: Float32Array): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

function toFloat32(vector: number[]): { vector: Float32Array; norm: number } {
  const stored = Float32Array.from(vector);
  return { vector: stored, norm: normOf(stored) };
}

function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

function decodeVector(encoded: string): Float32Array {
  const bytes = Buffer.from(encoded, 'base64');
  // Copy into a fresh, aligned buffer: Buffer pools may hand back an unaligned offset.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

export function createEmbeddedVectorIndex(options: EmbeddedVectorIndexOptions): VectorIndex {
  const { dir } = options;
  const loaded = new Map<string, Loaded>();
  const locks = new Map<string, Promise<unknown>>();

  const fileOf = (name: string): string => join(dir, `${name}${FILE_SUFFIX}`);

  /** Serialises every operation on one collection so a read never sees a write half-applied. */
  function withLock<T>(name: string, operation: () => Promise<T>): Promise<T> {
    const previous = locks.get(name) ?? Promise.resolve();
    const result = previous.then(operation, operation);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    locks.set(name, settled);
    void settled.then(() => {
      if (locks.get(name) === settled) locks.delete(name);
    });
    return result;
  }

  async function fileVersionOf(name: string): Promise<string | null> {
    try {
      const info = await stat(fileOf(name));
      return `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Reads a collection lazily, on first use, and again only when its file changed. */
  async function load(name: string): Promise<Collection | null> {
    const version = await fileVersionOf(name);
    if (version === null) {
      loaded.delete(name);
      return null;
    }
    const cached = loaded.get(name);
    if (cached && cached.fileVersion === version) return cached.collection;
    const raw = (await readJsonFile(fileOf(name))) as CollectionFile | null;
    if (raw === null) return null;
    if (raw.version !== FORMAT_VERSION || !Array.isArray(raw.points)) {
      throw new ValidationError(`vector collection file ${fileOf(name)} has an unknown format (version ${String(raw.version)})`);
    }
    const points = new Map<string, StoredPoint>();
    for (const point of raw.points) {
      const vector = decodeVector(point.vector);
      points.set(point.id, { vector, norm: normOf(vector), payload: point.payload });
    }
    const collection: Collection = { dimensions: raw.dimensions, createdAt: raw.created_at, points };
    loaded.set(name, { collection, fileVersion: version });
    return collection;
  }

  async function persist(name: string, collection: Collection): Promise<void> {
    const file: CollectionFile = {
      version: FORMAT_VERSION,
      name,
      dimensions: collection.dimensions,
      created_at: collection.createdAt,
      points: [...collection.points].map(([id, point]) => ({ id, vector: encodeVector(point.vector), payload: point.payload })),
    };
    await writeFileAtomic(fileOf(name), JSON.stringify(file));
    // Memory follows the disk: a failed write leaves the collection as it was.
    loaded.set(name, { collection, fileVersion: (await fileVersionOf(name)) ?? '' });
  }

  async function existing(name: string): Promise<Collection> {
    const collection = await load(name);
    if (!collection) throw new NotFoundError(`vector collection "${name}" does not exist`, { collection: name });
    return collection;
  }

  function checkDimensions(name: string, collection: Collection, vector: number[]): void {
    if (vector.length !== collection.dimensions) {
      throw new ValidationError(`vector collection "${name}" holds ${collection.dimensions}-dimensional vectors, got ${vector.length}`);
    }
  }

  return {
    async ensureCollection(name, dimensions) {
      assertCollectionName(name);
      if (!Number.isInteger(dimensions) || dimensions < 1)
        throw new ValidationError(`vector collection "${name}": dimensions must be a positive integer, got ${dimensions}`);
      return withLock(name, async () => {
        const collection = await load(name);
        if (collection) {
          if (collection.dimensions !== dimensions) {
            throw new ConflictError(
              `vector collection "${name}" exists with ${collection.dimensions} dimensions, not ${dimensions}; delete it or use another name`,
              { collection: name },
            );
          }
          return;
        }
        const created: Collection = { dimensions, createdAt: new Date().toISOString(), points: new Map() };
        await persist(name, created);
      });
    },

    async upsert(name, points: VectorPoint[]) {
      assertCollectionName(name);
      return withLock(name, async () => {
        const collection = await existing(name);
        for (const point of points) checkDimensions(name, collection, point.vector);
        const next = new Map(collection.points);
        for (const point of points) next.set(point.id, { ...toFloat32(point.vector), payload: structuredClone(point.payload) });
        await persist(name, { ...collection, points: next });
      });
    },

    async search(name, vector, searchOptions: VectorSearchOptions) {
      assertCollectionName(name);
      return withLock(name, async () => {
        const collection = await existing(name);
        checkDimensions(name, collection, vector);
        if (searchOptions.topK <= 0) return [];
        const query = toFloat32(vector);
        const hits: VectorHit[] = [];
        for (const [id, point] of collection.points) {
          if (!matchesFilter(point.payload, searchOptions.filter)) continue;
          let dot = 0;
          for (let index = 0; index < query.vector.length; index++)
            dot += (query.vector[index] as number) * (point.vector[index] as number);
          const score = query.norm === 0 || point.norm === 0 ? 0 : dot / (query.norm * point.norm);
          if (searchOptions.minScore !== undefined && score < searchOptions.minScore) continue;
          hits.push({ id, score, payload: point.payload });
        }
        hits.sort(compareHits);
        return hits.slice(0, searchOptions.topK).map((hit) => ({ ...hit, payload: structuredClone(hit.payload) }));
      });
    },

    async deleteCollection(name) {
      assertCollectionName(name);
      return withLock(name, async () => {
        await rm(fileOf(name), { force: true });
        loaded.delete(name);
      });
    },

    async listCollections(): Promise<CollectionInfo[]> {
      let entries: string[];
      try {
        entries = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const names = entries.filter((entry) => entry.endsWith(FILE_SUFFIX)).map((entry) => entry.slice(0, -FILE_SUFFIX.length));
      const infos: CollectionInfo[] = [];
      for (const name of names.sort()) {
        const collection = await withLock(name, () => load(name));
        if (collection) infos.push({ name, createdAt: collection.createdAt, pointCount: collection.points.size });
      }
      return infos;
    },

    async close() {
      await Promise.all([...locks.values()]);
      loaded.clear();
    },
  };
}
