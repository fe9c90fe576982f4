/**
 * RunStore on MongoDB (`MONGO_URL`): the document-database twin of the PostgreSQL store, for a fleet of
 * processes and pods. One collection per kind of document — `projects`, `runs`, `steps` (one document per
 * step, unique on {run_id, step}, so no run document grows towards the 16 MB limit), `results`,
 * `feedback`, `api_keys` and `cache` (a TTL index on `expires_at`) — plus `counters`, which hands out
 * the write sequence that orders feedback (PostgreSQL's bigserial). Indexes are declared in code at
 * open; `createIndexes` with the same specs is a no-op, so several pods can open at once.
 *
 * A run's insights are documents of their own in `insights` (mongo-insights.ts), like PostgreSQL's
 * insight rows: the run document lists their ids per area, an update inserts only the insights it
 * changed and deletes the ones it replaced once the run document points past them, so the run
 * document stays small and a verification writes one insight, not every area's. Run documents that
 * still hold their insights inline (written before) are read as they are and moved out on their next
 * update.
 *
 * `updateRun` is optimistic: the run document carries a `_version`; the read-modify-write replaces the
 * document only if `_version` is still the one read, and retries (bounded, jittered) when another
 * process got there first. Updates of one run from this process queue behind each other first, so the
 * retries only pay for races between processes. The mutator may therefore run more than once; callers
 * pass pure functions of the current run. `_id` and `_version` never leave this module.
 *
 * Documents are stored as their JSON form (undefined fields dropped, as in PostgreSQL's jsonb) and parsed
 * with the domain's zod schemas when read back. Field names inside free-form records (result rows,
 * metrics) may contain `.` or start with `$`, which MongoDB accepts in inserts and replacements from 5.0
 * on: MongoDB 5.0 or newer is required. Cache values are opaque, so they are kept as a JSON string.
 */
import { randomBytes } from 'node:crypto';
import { type Collection, type Db, type Document, MongoClient, MongoServerError } from 'mongodb';
import { z } from 'zod';
import {
  apiKeyRecordSchema,
  discoveryResultSchema,
  explorationStepSchema,
  feedbackSchema,
  projectSchema,
  runSchema,
  type ApiKeyRecord,
  type DiscoveryResult,
  type ExplorationStep,
  type Feedback,
  type Project,
  type Run,
} from '../domain/index.js';
import { KeyedLock } from '../concurrency/keyed-lock.js';
import { ConfigError, ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import { SAFE_ID, assertSafeId } from './ids.js';
import type { CacheEntry, RunStore } from './port.js';
import { reviseRun } from './run-revision.js';
import { type InsightDocument, type InsightWrite, joinInsights, planInsightWrite, type StoredInsights } from './mongo-insights.js';

/** The database used when the URL names none (`mongodb://host:27017`). */
export const DEFAULT_MONGO_DATABASE = 'assay';
/** Optimistic `updateRun` attempts before giving up with a ConflictError. */
const UPDATE_RUN_ATTEMPTS = 50;
/** Upper bound of the jittered pause between two attempts, in milliseconds. */
const UPDATE_RUN_MAX_BACKOFF_MS = 100;
/** MongoDB's duplicate-key error. */
const DUPLICATE_KEY = 11000;
/** Attempts of an upsert that lost a race on a unique index to a concurrent upsert of the same key. */
const UPSERT_ATTEMPTS = 3;
const FEEDBACK_SEQUENCE = 'feedback_written';
/** Attempts of declaring the indexes at open (a concurrent identical build can make one attempt fail). */
const INDEX_ATTEMPTS = 3;

export interface MongoRunStoreOptions {
  /** `mongodb://user:password@host:27017/db` or `mongodb+srv://…` (from MONGO_URL; never logged). */
  url: string;
  /** The database holding Assay's collections. @defaultValue the URL's path, else `assay` */
  database?: string;
}

const MONGO_URL_PREFIX = /^mongodb(?:\+srv)?:\/\//;
/** Characters MongoDB refuses in a database name on some platform (it refuses them all on Windows). */
const BAD_DATABASE_CHARACTERS = /[/\\. "$*<>:|?\0]/;

function assertDatabaseName(name: string): string {
  if (name.length === 0 || Buffer.byteLength(name) > 63 || BAD_DATABASE_CHARACTERS.test(name))
    throw new ConfigError(`MongoDB database name "${name}" must be 1-63 bytes without / \\ . space " $ * < > : | ? (check MONGO_URL)`);
  return name;
}

/**
 * The database a MongoDB connection string names in its path (`mongodb://host/<database>?options`),
 * or `assay` when it names none. The host list may hold several hosts and credentials; neither contains
 * an unescaped `/`, `?` or `@`, which the connection-string spec requires to be percent-encoded.
 */
export function mongoDatabaseName(url: string): string {
  const prefix = MONGO_URL_PREFIX.exec(url);
  if (!prefix) throw new ConfigError('a MongoDB URL starts with mongodb:// or mongodb+srv:// (check MONGO_URL)');
  const rest = url.slice(prefix[0].length);
  const slash = rest.indexOf('/');
  const query = rest.indexOf('?');
  if (slash === -1 || (query !== -1 && query < slash)) return DEFAULT_MONGO_DATABASE;
  const path = rest.slice(slash + 1, query === -1 ? undefined : query);
  if (path === '') return DEFAULT_MONGO_DATABASE;
  let name: string;
  try {
    name = decodeURIComponent(path);
  } catch {
    throw new ConfigError('the database name in the MongoDB URL is not valid percent-encoding (check MONGO_URL)');
  }
  return assertDatabaseName(name);
}

/** Removes the URL's password from a driver message, raw and decoded, in case the driver ever echoes it. */
function scrubSecret(url: string, message: string): string {
  const password = /^mongodb(?:\+srv)?:\/\/[^:@/]*:([^@/]+)@/.exec(url)?.[1];
  if (!password) return message;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // keep the raw form only
  }
  return message.replaceAll(password, '***').replaceAll(decoded, '***');
}

function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/** The JSON form of a document: what PostgreSQL's jsonb keeps (no undefined fields, no class instances). */
function plain<T>(value: T): Document {
  return JSON.parse(JSON.stringify(value)) as Document;
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return schema.parse(value) as z.infer<S>;
}

function validLimit(limit: number | undefined): number | undefined {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
    throw new ValidationError(`limit must be a whole number of at least 0, not ${limit}`, [{ path: 'limit', message: 'invalid limit' }]);
  return limit;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs one upsert again when a concurrent upsert of the same key won the insert (E11000 on a unique index). */
async function upsertRetrying<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isDuplicateKey(error) || attempt >= UPSERT_ATTEMPTS) throw error;
    }
  }
}

/** A document keyed by its natural id (projects, runs, results, API keys, counters). */
interface Keyed extends Document {
  _id: string;
}

const cacheDocumentSchema = z.object({ value_json: z.string(), stored_at: z.date(), expires_at: z.date() });

/** Hides the storage fields from every document read back. */
const HIDDEN = { projection: { _id: 0, _version: 0 } } as const;

async function declareIndexes(db: Db): Promise<void> {
  await Promise.all([
    db.collection('runs').createIndexes([{ key: { project_id: 1, created_at: -1, _id: -1 }, name: 'runs_project_created' }]),
    db.collection('steps').createIndexes([{ key: { run_id: 1, step: 1 }, name: 'steps_run_step', unique: true }]),
    // read by _id from the run's lists; this one finds a run's insight documents (inspection, clean-up)
    db.collection('insights').createIndexes([{ key: { run_id: 1, area: 1, position: 1 }, name: 'insights_run_position' }]),
    db.collection('results').createIndexes([{ key: { project_id: 1 }, name: 'results_project' }]),
    db.collection('feedback').createIndexes([
      { key: { run_id: 1, target_type: 1, target_id: 1 }, name: 'feedback_target', unique: true },
      { key: { project_id: 1, written: 1 }, name: 'feedback_project_written' },
    ]),
    db.collection('api_keys').createIndexes([{ key: { created_at: 1, _id: 1 }, name: 'api_keys_created' }]),
    db.collection('cache').createIndexes([
      { key: { namespace: 1, key: 1 }, name: 'cache_key', unique: true },
      // the server deletes an entry some time after it expires; reads check expiry themselves
      { key: { expires_at: 1 }, name: 'cache_expiry', expireAfterSeconds: 0 },
    ]),
  ]);
}

export async function createMongoRunStore(options: MongoRunStoreOptions): Promise<RunStore> {
  const databaseName = options.database === undefined ? mongoDatabaseName(options.url) : assertDatabaseName(options.database);
  let client: MongoClient;
  try {
    client = new MongoClient(options.url, { appName: 'assay', ignoreUndefined: true });
  } catch (error) {
    throw new ConfigError(
      `the MongoDB run store could not be opened: ${scrubSecret(options.url, (error as Error).message)} (check MONGO_URL)`,
      { cause: error },
    );
  }
  const db = client.db(databaseName);
  try {
    await client.connect();
    // pods opening at once build the same indexes at once; a build that lost such a race succeeds on a retry
    for (let attempt = 1; ; attempt++) {
      try {
        await declareIndexes(db);
        break;
      } catch (error) {
        if (!(error instanceof MongoServerError) || attempt >= INDEX_ATTEMPTS) throw error;
        await sleep(100 * attempt);
      }
    }
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new ConfigError(
      `the MongoDB run store could not be opened: ${scrubSecret(options.url, (error as Error).message)} (check MONGO_URL)`,
      { cause: error },
    );
  }

  const projects = db.collection<Keyed>('projects');
  const runs = db.collection<Keyed>('runs');
  const insights = db.collection<InsightDocument>('insights');
  const steps: Collection = db.collection('steps');
  const results = db.collection<Keyed>('results');
  const feedback: Collection = db.collection('feedback');
  const apiKeys = db.collection<Keyed>('api_keys');
  const cache: Collection = db.collection('cache');
  const counters = db.collection<Keyed>('counters');
  const runLocks = new KeyedLock();

  const one = async <S extends z.ZodType>(
    schema: S,
    collection: Collection<Keyed> | Collection,
    filter: Document,
  ): Promise<z.infer<S> | null> => {
    const found = await collection.findOne(filter, HIDDEN);
    return found === null ? null : parseWith(schema, found);
  };
  const all = async <S extends z.ZodType>(
    schema: S,
    collection: Collection<Keyed> | Collection,
    filter: Document,
    sort: Document,
    limit?: number,
  ): Promise<z.infer<S>[]> => {
    if (limit === 0) return [];
    const cursor = collection.find(filter, HIDDEN).sort(sort);
    if (limit !== undefined) cursor.limit(limit);
    return (await cursor.toArray()).map((found) => parseWith(schema, found));
  };

  /** A token no other write shares: names the insight documents one write inserts. */
  const writeToken = () => randomBytes(6).toString('base64url');

  async function insertInsights(write: InsightWrite): Promise<void> {
    if (write.inserts.length > 0) await insights.insertMany(write.inserts.map((document) => plain(document) as InsightDocument));
  }

  async function deleteInsights(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await insights.deleteMany({ _id: { $in: [...ids] } });
  }

  async function insightsById(ids: readonly string[]): Promise<Map<string, unknown>> {
    if (ids.length === 0) return new Map();
    const found = await insights.find({ _id: { $in: [...ids] } }, { projection: { doc: 1 } }).toArray();
    return new Map(found.map((document) => [document._id, document.doc]));
  }

  /** A stored run document with its insights put back and validated; null when an insight it lists is gone. */
  function joinStoredRun(stored: Document, found: ReadonlyMap<string, unknown>): (StoredInsights & { version: number | null }) | null {
    const { _id, _version, ...fields } = stored;
    const joined = joinInsights(fields, found);
    if ('missing' in joined) return null;
    return { run: runSchema.parse(joined.document), refs: joined.refs, version: typeof _version === 'number' ? _version : null };
  }

  /**
   * The run as stored now, with its insights and the version read. The run document and its insight
   * documents are two reads; when the run was rewritten between them (an insight it listed is gone),
   * both are read again.
   */
  async function readRun(id: string): Promise<(StoredInsights & { version: number | null }) | null> {
    for (let attempt = 0; attempt < UPDATE_RUN_ATTEMPTS; attempt++) {
      const stored = await runs.findOne({ _id: id });
      if (!stored) return null;
      const joined = joinStoredRun(stored, await insightsById((stored._insights as string[][] | undefined)?.flat() ?? []));
      if (joined) return joined;
    }
    throw new ConflictError(`run ${id} was rewritten ${UPDATE_RUN_ATTEMPTS} times in a row while it was read; try again`, {
      runId: id,
      attempts: UPDATE_RUN_ATTEMPTS,
    });
  }

  async function nextFeedbackSequence(): Promise<number> {
    const counter = await upsertRetrying(() =>
      counters.findOneAndUpdate({ _id: FEEDBACK_SEQUENCE }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }),
    );
    const seq = counter?.seq;
    if (typeof seq !== 'number') throw new Error('the MongoDB feedback sequence returned no number');
    return seq;
  }

  const store: RunStore = {
    async upsertProject(project: Project) {
      assertSafeId('project', project.id);
      const doc = projectSchema.parse(project);
      await upsertRetrying(() => projects.replaceOne({ _id: doc.id }, plain(doc), { upsert: true }));
    },
    async getProject(id) {
      assertSafeId('project', id);
      return one(projectSchema, projects, { _id: id });
    },
    async listProjects() {
      return all(projectSchema, projects, {}, { _id: 1 });
    },

    async createRun(run: Run) {
      assertSafeId('run', run.id);
      const doc = runSchema.parse(run);
      const write = planInsightWrite(doc, undefined, writeToken());
      await insertInsights(write);
      try {
        await runs.insertOne({ _id: doc.id, ...plain(write.document), _version: 1 });
        return doc;
      } catch (error) {
        await deleteInsights(write.inserts.map((inserted) => inserted._id));
        if (!isDuplicateKey(error)) throw error;
      }
      return (await store.getRun(run.id)) as Run;
    },
    async getRun(id) {
      assertSafeId('run', id);
      return (await readRun(id))?.run ?? null;
    },
    async updateRun(id, mutate) {
      assertSafeId('run', id);
      return runLocks.run(id, async () => {
        for (let attempt = 0; attempt < UPDATE_RUN_ATTEMPTS; attempt++) {
          if (attempt > 0) await sleep(Math.random() * Math.min(UPDATE_RUN_MAX_BACKOFF_MS, 2 ** attempt));
          const current = await readRun(id);
          if (!current) throw new NotFoundError(`run ${id} does not exist`, { runId: id });
          const next = reviseRun(current.run, mutate);
          const write = planInsightWrite(next, current, writeToken());
          await insertInsights(write);
          // a document without a version (written by hand) matches `_version: null` until its first update
          const replaced = await runs.replaceOne(
            { _id: id, _version: current.version },
            { ...plain(write.document), _version: (current.version ?? 0) + 1 },
          );
          if (replaced.matchedCount === 1) {
            // the run no longer lists them: readers of the version before find them gone and read again
            await deleteInsights(write.replaced);
            return next;
          }
          // another process changed (or deleted) the run between the read and the write: read it again
          await deleteInsights(write.inserts.map((inserted) => inserted._id));
        }
        throw new ConflictError(
          `run ${id} was changed by other processes ${UPDATE_RUN_ATTEMPTS} times in a row while this update was applied; try again`,
          { runId: id, attempts: UPDATE_RUN_ATTEMPTS },
        );
      });
    },
    async listRuns(projectId, listOptions) {
      const limit = validLimit(listOptions?.limit);
      if (limit === 0) return [];
      const cursor = runs.find({ project_id: projectId }).sort({ created_at: -1, _id: -1 });
      if (limit !== undefined) cursor.limit(limit);
      const found = await cursor.toArray();
      const byId = await insightsById(found.flatMap((stored) => (stored._insights as string[][] | undefined)?.flat() ?? []));
      const listed: Run[] = [];
      for (const stored of found) {
        // rewritten between the two reads: read that run again
        const run = joinStoredRun(stored, byId)?.run ?? (await readRun(stored._id))?.run;
        if (run) listed.push(run);
      }
      return listed;
    },

    async upsertStep(step: ExplorationStep) {
      assertSafeId('run', step.run_id);
      const doc = explorationStepSchema.parse(step);
      await upsertRetrying(() => steps.replaceOne({ run_id: doc.run_id, step: doc.step }, plain(doc), { upsert: true }));
    },
    async listSteps(runId) {
      assertSafeId('run', runId);
      return all(explorationStepSchema, steps, { run_id: runId }, { step: 1 });
    },

    async putResult(result: DiscoveryResult) {
      assertSafeId('run', result.run_id);
      const doc = discoveryResultSchema.parse(result);
      await upsertRetrying(() => results.replaceOne({ _id: doc.run_id }, plain(doc), { upsert: true }));
    },
    async getResult(runId) {
      assertSafeId('run', runId);
      return one(discoveryResultSchema, results, { _id: runId });
    },
    async listResults(projectId, listOptions) {
      const limit = validLimit(listOptions?.limit);
      if (limit === 0) return [];
      // like PostgreSQL's join: only results whose run exists, ordered by the run, newest first
      const pipeline: Document[] = [
        { $match: { project_id: projectId } },
        {
          $lookup: {
            from: 'runs',
            let: { runId: '$run_id' },
            pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$runId'] } } }, { $project: { _id: 1, created_at: 1 } }],
            as: 'run',
          },
        },
        { $unwind: '$run' },
        { $sort: { 'run.created_at': -1, 'run._id': -1 } },
        ...(limit === undefined ? [] : [{ $limit: limit }]),
        { $project: { _id: 0, run: 0 } },
      ];
      return (await results.aggregate(pipeline).toArray()).map((found) => parseWith(discoveryResultSchema, found));
    },

    async upsertFeedback(entry: Feedback) {
      assertSafeId('project', entry.project_id);
      const doc = feedbackSchema.parse(entry);
      // a changed verdict moves to the end, like a new one
      const written = await nextFeedbackSequence();
      await upsertRetrying(() =>
        feedback.replaceOne(
          { run_id: doc.run_id, target_type: doc.target_type, target_id: doc.target_id },
          { ...plain(doc), written },
          { upsert: true },
        ),
      );
    },
    async listFeedback(projectId) {
      assertSafeId('project', projectId);
      return all(feedbackSchema, feedback, { project_id: projectId }, { written: 1 });
    },

    async putApiKey(key: ApiKeyRecord) {
      assertSafeId('api_key', key.id);
      const doc = apiKeyRecordSchema.parse(key);
      await upsertRetrying(() => apiKeys.replaceOne({ _id: doc.id }, plain(doc), { upsert: true }));
    },
    async getApiKey(id) {
      if (!SAFE_ID.test(id)) return null;
      return one(apiKeyRecordSchema, apiKeys, { _id: id });
    },
    async listApiKeys() {
      return all(apiKeyRecordSchema, apiKeys, {}, { created_at: 1, _id: 1 });
    },

    async cacheGet(namespace, key) {
      // the TTL monitor deletes expired entries lazily (about once a minute): compare with the server's clock here too
      const found = await cache.findOne({ namespace, key, $expr: { $gt: ['$expires_at', '$$NOW'] } }, { projection: { _id: 0 } });
      if (found === null) return null;
      const entry = cacheDocumentSchema.parse(found);
      return {
        value: JSON.parse(entry.value_json) as unknown,
        stored_at: entry.stored_at.toISOString(),
        expires_at: entry.expires_at.toISOString(),
      } satisfies CacheEntry;
    },
    async cachePut(namespace, key, value, { ttlMs }) {
      if (value === undefined) throw new ValidationError(`cache ${namespace}/${key}: a value is required`);
      const json = JSON.stringify(value) as string | undefined;
      if (json === undefined) throw new ValidationError(`cache ${namespace}/${key}: the value has no JSON form`);
      // times come from the server's clock, as PostgreSQL's now(): the same clock the TTL monitor and cacheGet use
      await upsertRetrying(() =>
        cache.updateOne(
          { namespace, key },
          [{ $set: { value_json: { $literal: json }, stored_at: '$$NOW', expires_at: { $add: ['$$NOW', ttlMs] } } }],
          { upsert: true },
        ),
      );
    },
    async cacheDelete(namespace, key, deleteOptions) {
      if (key !== undefined) {
        await cache.deleteOne({ namespace, key });
        return;
      }
      const prefix = (deleteOptions?.prefix ?? '').replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
      await cache.deleteMany({ namespace, key: { $regex: `^${prefix}` } });
    },

    async close() {
      await client.close();
    },
  };
  return store;
}
