/**
 * The embedded vector index: exact cosine over every point, one JSON file per collection under `dir`,
 * plus a journal of the upserts made since that file was written (`<name>.collection.jsonl`, one line
 * per upsert, naming the collection file it follows by digest). An upsert appends its points instead of
 * rewriting the collection; the journal is folded into a new collection file once it outgrows it, so the
 * bytes written stay proportional to the points. Made for one writer process (the laptop run); the fleet
 * uses Qdrant. Other processes may read: a collection is reloaded when either file changed on disk.
 * The collection file is written by atomic rename (temp file, fsync, rename) and a journal line by one
 * append, so a killed process leaves whole files and at most a cut-short last journal line, which
 * reading drops. Appends are not fsynced: a machine crash may lose the latest upserts.
 */
import { createHash } from 'node:crypto';
import { appendFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import { readTextFile, writeFileAtomic } from '../common/atomic-file.js';
import type { CollectionInfo, Payload, VectorHit, VectorIndex, VectorPoint, VectorSearchOptions } from './port.js';
import { assertCollectionName } from './collection-name.js';
import { compareHits, matchesFilter } from './similarity.js';

const FILE_SUFFIX = '.collection.json';
const JOURNAL_SUFFIX = '.collection.jsonl';
const FORMAT_VERSION = 1;
/** The journal is folded into the collection file once it is this large and larger than the file. */
const JOURNAL_FOLD_MIN_BYTES = 256 * 1024;

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

/** Where a loaded collection's files stand. */
interface Files {
  /** Digest of the collection file: the base the journal's lines apply to. */
  digest: string;
  fileBytes: number;
  /** 0: no journal. */
  journalBytes: number;
  /** The journal cannot be appended to (cut short, or stale): the next write folds. */
  mustFold: boolean;
}

/** A loaded collection and the file version it came from. */
interface Loaded {
  collection: Collection;
  fileVersion: string;
  files: Files;
}

type FilePoint = { id: string; vector: string; payload: Payload };

/** On disk, vectors are base64 float32: a third of the size of JSON numbers, and exactly what search uses. */
interface CollectionFile {
  version: number;
  name: string;
  dimensions: number;
  created_at: string;
  points: FilePoint[];
}

function digestOf(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** Splits a journal into its parsed lines; `torn` when a line does not parse (only the last can be cut short). */
function journalLines(text: string): { lines: unknown[]; torn: boolean } {
  const lines: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      lines.push(JSON.parse(line) as unknown);
    } catch {
      return { lines, torn: true };
    }
  }
  return { lines, torn: false };
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
  const journalOf = (name: string): string => join(dir, `${name}${JOURNAL_SUFFIX}`);

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

  async function statVersion(path: string): Promise<string | null> {
    try {
      const info = await stat(path);
      return `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Changes whenever either file of the collection changed; null when the collection file does not exist. */
  async function fileVersionOf(name: string): Promise<string | null> {
    const [file, journal] = await Promise.all([statVersion(fileOf(name)), statVersion(journalOf(name))]);
    return file === null ? null : `${file}|${journal ?? '-'}`;
  }

  /** Reads a collection lazily, on first use, and again only when its files changed. */
  async function loadEntry(name: string): Promise<Loaded | null> {
    const version = await fileVersionOf(name);
    if (version === null) {
      loaded.delete(name);
      return null;
    }
    const cached = loaded.get(name);
    if (cached && cached.fileVersion === version) return cached;
    const text = await readTextFile(fileOf(name));
    if (text === null) return null;
    const raw = JSON.parse(text) as CollectionFile;
    if (raw.version !== FORMAT_VERSION || !Array.isArray(raw.points)) {
      throw new ValidationError(`vector collection file ${fileOf(name)} has an unknown format (version ${String(raw.version)})`);
    }
    const points = new Map<string, StoredPoint>();
    const add = (point: FilePoint) => {
      const vector = decodeVector(point.vector);
      points.set(point.id, { vector, norm: normOf(vector), payload: point.payload });
    };
    for (const point of raw.points) add(point);
    const digest = digestOf(text);
    const files: Files = { digest, fileBytes: text.length, journalBytes: 0, mustFold: false };
    const journal = await readTextFile(journalOf(name));
    if (journal !== null) {
      const { lines, torn } = journalLines(journal);
      const header = lines[0] as { base?: unknown } | undefined;
      if (header?.base !== digest) {
        // left behind by a fold or a delete that stopped half-way: the collection file does not follow it
        files.mustFold = true;
      } else {
        files.journalBytes = Buffer.byteLength(journal);
        files.mustFold = torn;
        for (const line of lines.slice(1)) {
          const batch = (line as { points?: unknown }).points;
          if (!Array.isArray(batch)) {
            files.mustFold = true;
            break;
          }
          for (const point of batch as FilePoint[]) add(point);
        }
      }
    }
    const collection: Collection = { dimensions: raw.dimensions, createdAt: raw.created_at, points };
    const entry: Loaded = { collection, fileVersion: version, files };
    loaded.set(name, entry);
    return entry;
  }

  async function load(name: string): Promise<Collection | null> {
    return (await loadEntry(name))?.collection ?? null;
  }

  /** Writes the whole collection file and drops the journal it replaces. */
  async function persist(name: string, collection: Collection): Promise<void> {
    const file: CollectionFile = {
      version: FORMAT_VERSION,
      name,
      dimensions: collection.dimensions,
      created_at: collection.createdAt,
      points: [...collection.points].map(([id, point]) => ({ id, vector: encodeVector(point.vector), payload: point.payload })),
    };
    const text = JSON.stringify(file);
    await writeFileAtomic(fileOf(name), text);
    await rm(journalOf(name), { force: true });
    // Memory follows the disk: a failed write leaves the collection as it was.
    const files: Files = { digest: digestOf(text), fileBytes: text.length, journalBytes: 0, mustFold: false };
    loaded.set(name, { collection, fileVersion: (await fileVersionOf(name)) ?? '', files });
  }

  /** Adds upserted points: one journal line, or a new collection file when the journal is due to be folded. */
  async function persistUpsert(name: string, entry: Loaded, collection: Collection, added: Map<string, StoredPoint>): Promise<void> {
    const { files } = entry;
    if (files.mustFold || (files.journalBytes > JOURNAL_FOLD_MIN_BYTES && files.journalBytes > files.fileBytes)) {
      await persist(name, collection);
      return;
    }
    const batch = [...added].map(([id, point]) => ({ id, vector: encodeVector(point.vector), payload: point.payload }));
    const header = files.journalBytes === 0 ? `${JSON.stringify({ base: files.digest })}\n` : '';
    const text = `${header}${JSON.stringify({ points: batch })}\n`;
    try {
      await appendFile(journalOf(name), text, 'utf8');
    } catch (error) {
      // part of the line may be on disk: the next write folds instead of appending after it
      files.mustFold = true;
      throw error;
    }
    loaded.set(name, {
      collection,
      fileVersion: (await fileVersionOf(name)) ?? '',
      files: { ...files, journalBytes: files.journalBytes + Buffer.byteLength(text) },
    });
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
        const entry = await loadEntry(name);
        if (!entry) throw new NotFoundError(`vector collection "${name}" does not exist`, { collection: name });
        const { collection } = entry;
        for (const point of points) checkDimensions(name, collection, point.vector);
        const added = new Map<string, StoredPoint>();
        for (const point of points) added.set(point.id, { ...toFloat32(point.vector), payload: structuredClone(point.payload) });
        const next = new Map(collection.points);
        for (const [id, point] of added) next.set(id, point);
        await persistUpsert(name, entry, { ...collection, points: next }, added);
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
        // the collection file first: a journal left alone names a file that is gone, and is never replayed
        await rm(fileOf(name), { force: true });
        await rm(journalOf(name), { force: true });
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
