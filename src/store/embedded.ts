import { createHash } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  apiKeyRecordSchema,
  isTerminal,
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
import { NotFoundError, ValidationError } from '../errors/index.js';
import { KeyedLock } from '../concurrency/keyed-lock.js';
import { readJsonFile, readTextFile, syncDirectory, writeFileAtomic } from '../common/atomic-file.js';
import { SAFE_ID, assertSafeId } from './ids.js';
import { applyJsonOperations, cloneJson, diffJson, jsonEqual, type JsonOperation } from './json-document.js';
import { JournalFiles, journalLine, readJournal } from './journal.js';
import { lockStoreDirectory } from './process-lock.js';
import type { CacheEntry, RunStore } from './port.js';
import { RecentMap } from '../common/recent-map.js';
import { reviseRun } from './run-revision.js';

const cacheEntrySchema = z.object({ value: z.unknown(), stored_at: z.string(), expires_at: z.string() });

/** Cache namespaces and keys become path segments: encode them so none can leave the cache folder. */
function cacheName(namespace: string): string {
  if (!SAFE_ID.test(namespace)) throw new ValidationError(`cache namespace "${namespace}" must be 1-80 letters, digits, _ or -`);
  return namespace;
}

async function listJsonFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function readParsed<S extends z.ZodType>(schema: S, path: string): Promise<z.infer<S> | null> {
  const raw = await readJsonFile(path);
  return raw === null ? null : (schema.parse(raw) as z.infer<S>);
}

/** Runs (with their steps) kept in memory at once; others are read from their files when asked for. */
const CACHED_RUNS = 32;
/** A run's journal is folded into a new run.json once it is this large and larger than twice the snapshot. */
const JOURNAL_FOLD_MIN_BYTES = 256 * 1024;

const STEPS_JOURNAL = 'steps.jsonl';

function digest(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The first line of a run journal: which run.json (by digest) its operations apply to. */
const journalHeaderSchema = z.object({ base: z.string() });
const journalEntrySchema = z.object({ ops: z.array(z.unknown()) });

/** A run as this process holds it: the validated document and where its files stand. */
interface RunEntry {
  run: Run;
  /** Digest of run.json as last written or read: the base of the journal. */
  snapshotDigest: string;
  snapshotBytes: number;
  /** 0 when there is no journal. */
  journalBytes: number;
  /** run.json must be written whole before anything is appended (torn or stale journal, or a run.json that is not the validated form). */
  needsSnapshot: boolean;
}

interface SharedStore {
  store: RunStore;
  opens: number;
}

const openStores = new Map<string, SharedStore>();

/**
 * RunStore on local files under `<dir>`, for one process (it takes the directory's lock). Projects,
 * results, feedback, API keys and cache entries are one JSON document each, written by atomic rename.
 *
 * A run is `runs/<id>/run.json` plus an append-only journal `run.journal`: each update appends the
 * operations that turn the previous version into the new one (an appended LLM call, a changed status),
 * not the whole document. The journal names the run.json it applies to by digest; it is folded into a new
 * run.json (atomic rename) when it grows large and when the run ends, so a finished run is one
 * run.json again. Steps are appended to `steps.jsonl` (the last line of a step number wins; step files
 * `steps/00001.json` of older stores are still read). Since this process is the only writer, runs and
 * steps in use are kept in memory, validated: reads copy them instead of reading and parsing files
 * (opens of one directory within the process share that memory).
 *
 * Crash safety: a killed process leaves whole files or journals whose last line is cut short, which
 * reading drops (see journal.ts). Appends are not fsynced one by one; the run's files are fsynced
 * (journal, steps, then their directory) when the run's status or phase changes, and a run.json written
 * whole is fsynced with its directory. A machine crash can so lose the updates since the last phase change,
 * which a resumed run does again; a process crash loses nothing that was written.
 */
export function createEmbeddedRunStore(options: { dir: string }): RunStore {
  const release = lockStoreDirectory(options.dir);
  const key = resolve(options.dir);
  let shared = openStores.get(key);
  if (!shared) {
    shared = { store: openDirectory(options.dir), opens: 0 };
    openStores.set(key, shared);
  }
  shared.opens++;
  const { store } = shared;
  let closed = false;
  return {
    ...store,
    async close() {
      if (closed) return;
      closed = true;
      try {
        if (--(shared as SharedStore).opens === 0) {
          openStores.delete(key);
          await store.close();
        }
      } finally {
        release();
      }
    },
  };
}

/** The directory's store, shared by every open of it in this process (so they see one another's writes). */
function openDirectory(root: string): RunStore {
  const mutex = new KeyedLock();
  const projectPath = (id: string) => join(root, 'projects', `${id}.json`);
  const runDir = (id: string) => join(root, 'runs', id);
  const runPath = (id: string) => join(runDir(id), 'run.json');
  const journalPath = (id: string) => join(runDir(id), 'run.journal');
  const stepsJournalPath = (runId: string) => join(runDir(runId), STEPS_JOURNAL);
  const legacyStepsDir = (runId: string) => join(runDir(runId), 'steps');
  const resultPath = (runId: string) => join(runDir(runId), 'result.json');
  const feedbackPath = (projectId: string) => join(root, 'feedback', `${projectId}.json`);
  const apiKeyPath = (id: string) => join(root, 'api-keys', `${id}.json`);
  const cachePath = (namespace: string, key: string) => join(root, 'cache', cacheName(namespace), `${encodeURIComponent(key)}.json`);
  const write = (path: string, value: unknown) => writeFileAtomic(path, `${JSON.stringify(value, null, 1)}\n`);

  const runs = new RecentMap<RunEntry>(CACHED_RUNS);
  /** Projects and cache entries read or written, validated (this process is the only writer). */
  const projects = new RecentMap<Project>(CACHED_RUNS);
  const cached = new RecentMap<CacheEntry>(CACHED_RUNS);
  let cacheWrites = 0;
  const steps = new RecentMap<Map<number, ExplorationStep>>(CACHED_RUNS);
  const journals = new JournalFiles();
  /** Directories given new names (a journal created) since their last fsync. */
  const unsyncedDirectories = new Set<string>();
  /** steps.jsonl files known to exist (so the first append to a new one also fsyncs its directory at the checkpoint). */
  const stepJournals = new Set<string>();

  /** fsync what a run has appended since the last checkpoint: steps, journal, then the names in its directory. */
  async function checkpoint(id: string, options: { journal: boolean } = { journal: true }): Promise<void> {
    for (const path of options.journal ? [stepsJournalPath(id), journalPath(id)] : [stepsJournalPath(id)]) await journals.sync(path);
    if (unsyncedDirectories.has(runDir(id))) {
      await syncDirectory(runDir(id));
      unsyncedDirectories.delete(runDir(id));
    }
  }

  async function appendTo(path: string, text: string, created: boolean): Promise<void> {
    if (created) unsyncedDirectories.add(dirname(path));
    await journals.append(path, text);
  }

  /** Reads a run from its files (run.json, then its journal). Call under the run's lock. */
  async function loadRun(id: string): Promise<RunEntry | null> {
    const snapshot = await readTextFile(runPath(id));
    if (snapshot === null) return null;
    const snapshotDigest = digest(snapshot);
    const journal = await readTextFile(journalPath(id));
    const operations: JsonOperation[][] = [];
    // the journal is appended to only while every line of it applies
    let journalUsable = journal !== null;
    if (journal !== null) {
      const { entries, torn } = readJournal(journal);
      const header = journalHeaderSchema.safeParse(entries[0]);
      if (!header.success || header.data.base !== snapshotDigest) {
        // left by a fold that crashed after writing run.json: run.json already holds all of it
        await journals.close(journalPath(id));
        await rm(journalPath(id), { force: true });
        journalUsable = false;
      } else {
        journalUsable = !torn;
        for (const entry of entries.slice(1)) {
          const parsed = journalEntrySchema.safeParse(entry);
          if (!parsed.success) {
            journalUsable = false;
            break;
          }
          operations.push(parsed.data.ops as JsonOperation[]);
        }
      }
    }
    let document = JSON.parse(snapshot) as unknown;
    for (let index = 0; index < operations.length; index++) {
      try {
        document = applyJsonOperations(document, operations[index] as JsonOperation[]);
      } catch {
        // an entry that does not apply (not written by this store): keep the entries before it
        document = operations.slice(0, index).reduce((current, ops) => applyJsonOperations(current, ops), JSON.parse(snapshot) as unknown);
        journalUsable = false;
        break;
      }
    }
    const run = runSchema.parse(document);
    // operations appended to a run.json that is not exactly the validated document (an older version wrote it) would not replay
    const canonical = jsonEqual(document, run);
    return {
      run,
      snapshotDigest,
      snapshotBytes: snapshot.length,
      journalBytes: journalUsable && journal !== null ? Buffer.byteLength(journal) : 0,
      needsSnapshot: !canonical || (journal !== null && !journalUsable),
    };
  }

  /** The run in memory, read from its files the first time. Call under the run's lock. */
  async function runEntry(id: string): Promise<RunEntry | null> {
    const cached = runs.get(id);
    if (cached) return cached;
    const loaded = await loadRun(id);
    if (loaded) runs.set(id, loaded);
    return loaded;
  }

  /** Writes run.json whole (atomic, fsynced with its directory) and drops the journal it replaces. */
  async function writeSnapshot(id: string, run: Run): Promise<Pick<RunEntry, 'snapshotDigest' | 'snapshotBytes'>> {
    const text = `${JSON.stringify(run, null, 1)}\n`;
    // the steps the run counts must be durable before it; the journal is replaced
    await checkpoint(id, { journal: false });
    await writeFileAtomic(runPath(id), text, { syncDirectory: true });
    await journals.close(journalPath(id));
    await rm(journalPath(id), { force: true });
    return { snapshotDigest: digest(text), snapshotBytes: text.length };
  }

  async function saveRevision(id: string, entry: RunEntry, next: Run): Promise<void> {
    const previous = entry.run;
    const phaseChanged = next.status !== previous.status || next.phase !== previous.phase;
    const fold =
      entry.needsSnapshot ||
      (phaseChanged && isTerminal(next.status)) ||
      (entry.journalBytes > JOURNAL_FOLD_MIN_BYTES && entry.journalBytes > 2 * entry.snapshotBytes);
    if (fold) {
      const written = await writeSnapshot(id, next);
      Object.assign(entry, written, { run: next, journalBytes: 0, needsSnapshot: false });
      return;
    }
    const created = entry.journalBytes === 0;
    const text = `${created ? journalLine({ base: entry.snapshotDigest }) : ''}${journalLine({ ops: diffJson(previous, next) })}`;
    try {
      await appendTo(journalPath(id), text, created);
    } catch (error) {
      // part of the line may be on disk: never append after it
      entry.needsSnapshot = true;
      throw error;
    }
    entry.run = next;
    entry.journalBytes += Buffer.byteLength(text);
    if (phaseChanged) await checkpoint(id);
  }

  /** A run's steps by number, read the first time from steps.jsonl (and step files of older stores). Call under the run's lock. */
  async function stepMap(runId: string): Promise<Map<number, ExplorationStep>> {
    const cached = steps.get(runId);
    if (cached) return cached;
    const map = new Map<number, ExplorationStep>();
    const legacyDir = legacyStepsDir(runId);
    for (const file of await listJsonFiles(legacyDir)) {
      const step = await readParsed(explorationStepSchema, join(legacyDir, file));
      if (step) map.set(step.step, step);
    }
    const journal = await readTextFile(stepsJournalPath(runId));
    if (journal !== null) {
      stepJournals.add(stepsJournalPath(runId));
      const { entries, torn } = readJournal(journal);
      for (const entry of entries) {
        const step = explorationStepSchema.parse(entry);
        map.set(step.step, step);
      }
      if (torn) {
        // rewrite it without the torn line before anything is appended after it
        const text = [...map.values()].map((step) => journalLine(step)).join('');
        await journals.close(stepsJournalPath(runId));
        await writeFileAtomic(stepsJournalPath(runId), text, { syncDirectory: true });
      }
    }
    steps.set(runId, map);
    return map;
  }

  async function allRuns(): Promise<Run[]> {
    let ids: string[];
    try {
      ids = (await readdir(join(root, 'runs'))).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const found = await Promise.all(
      // runs not in memory are read without being kept, so a listing does not push the runs in use out
      ids.map((id) => mutex.run(`run:${id}`, async () => (runs.get(id) ?? (await loadRun(id)))?.run ?? null)),
    );
    return found.filter((run): run is Run => run !== null).map((run) => cloneJson(run));
  }

  return {
    async upsertProject(project: Project) {
      assertSafeId('project', project.id);
      const parsed = projectSchema.parse(project);
      await mutex.run(`project:${project.id}`, async () => {
        await write(projectPath(project.id), parsed);
        projects.set(project.id, parsed);
      });
    },
    async getProject(id) {
      assertSafeId('project', id);
      let known = projects.get(id);
      if (!known) {
        const read = await readParsed(projectSchema, projectPath(id));
        if (!read) return null;
        // an upsert that finished while the file was read has already put the newer project here
        known = projects.get(id) ?? read;
        projects.set(id, known);
      }
      return cloneJson(known);
    },
    async listProjects() {
      const files = await listJsonFiles(join(root, 'projects'));
      const projects = await Promise.all(files.map((file) => readParsed(projectSchema, join(root, 'projects', file))));
      return projects.filter((project): project is Project => project !== null);
    },

    async createRun(run: Run) {
      assertSafeId('run', run.id);
      return mutex.run(`run:${run.id}`, async () => {
        const existing = await runEntry(run.id);
        if (existing) return cloneJson(existing.run);
        const parsed = runSchema.parse(run);
        await mkdir(runDir(run.id), { recursive: true });
        const written = await writeSnapshot(run.id, parsed);
        await syncDirectory(join(root, 'runs'));
        runs.set(run.id, { run: parsed, ...written, journalBytes: 0, needsSnapshot: false });
        return cloneJson(parsed);
      });
    },
    async getRun(id) {
      assertSafeId('run', id);
      const cached = runs.get(id);
      if (cached) return cloneJson(cached.run);
      const entry = await mutex.run(`run:${id}`, () => runEntry(id));
      return entry ? cloneJson(entry.run) : null;
    },
    async updateRun(id, mutate) {
      assertSafeId('run', id);
      return mutex.run(`run:${id}`, async () => {
        const entry = await runEntry(id);
        if (!entry) throw new NotFoundError(`run ${id} does not exist`, { runId: id });
        const next = reviseRun(entry.run, mutate);
        await saveRevision(id, entry, next);
        return cloneJson(next);
      });
    },
    async listRuns(projectId, listOptions) {
      const found = (await allRuns()).filter((run) => run.project_id === projectId);
      found.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
      return found.slice(0, listOptions?.limit ?? found.length);
    },

    async upsertStep(step: ExplorationStep) {
      assertSafeId('run', step.run_id);
      const parsed = explorationStepSchema.parse(step);
      await mutex.run(`run:${parsed.run_id}`, async () => {
        const map = await stepMap(parsed.run_id);
        const path = stepsJournalPath(parsed.run_id);
        const created = !stepJournals.has(path);
        if (created) await mkdir(dirname(path), { recursive: true });
        await appendTo(path, journalLine(parsed), created);
        stepJournals.add(path);
        map.set(parsed.step, parsed);
      });
    },
    async listSteps(runId) {
      assertSafeId('run', runId);
      const map = await mutex.run(`run:${runId}`, () => stepMap(runId));
      return [...map.values()].sort((a, b) => a.step - b.step).map((step) => cloneJson(step));
    },

    async putResult(result: DiscoveryResult) {
      assertSafeId('run', result.run_id);
      await write(resultPath(result.run_id), discoveryResultSchema.parse(result));
    },
    async getResult(runId) {
      assertSafeId('run', runId);
      return readParsed(discoveryResultSchema, resultPath(runId));
    },
    async listResults(projectId, listOptions) {
      const runs = await this.listRuns(projectId);
      const results: DiscoveryResult[] = [];
      for (const run of runs) {
        const result = await readParsed(discoveryResultSchema, resultPath(run.id));
        if (result) results.push(result);
        if (listOptions?.limit !== undefined && results.length >= listOptions.limit) break;
      }
      return results;
    },

    async upsertFeedback(feedback: Feedback) {
      assertSafeId('project', feedback.project_id);
      const parsed = feedbackSchema.parse(feedback);
      await mutex.run(`feedback:${feedback.project_id}`, async () => {
        const existing = ((await readJsonFile(feedbackPath(feedback.project_id))) as Feedback[] | null) ?? [];
        const key = (f: Feedback) => `${f.run_id}|${f.target_type}|${f.target_id}`;
        const merged = existing.filter((f) => key(f) !== key(parsed));
        merged.push(parsed);
        await write(feedbackPath(feedback.project_id), merged);
      });
    },
    async listFeedback(projectId) {
      assertSafeId('project', projectId);
      const raw = (await readJsonFile(feedbackPath(projectId))) as unknown[] | null;
      return (raw ?? []).map((entry) => feedbackSchema.parse(entry));
    },

    async putApiKey(key: ApiKeyRecord) {
      assertSafeId('api_key', key.id);
      await mutex.run(`api-key:${key.id}`, () => write(apiKeyPath(key.id), apiKeyRecordSchema.parse(key)));
    },
    async getApiKey(id) {
      if (!SAFE_ID.test(id)) return null;
      return readParsed(apiKeyRecordSchema, apiKeyPath(id));
    },
    async listApiKeys() {
      const files = await listJsonFiles(join(root, 'api-keys'));
      const keys = await Promise.all(files.map((file) => readParsed(apiKeyRecordSchema, join(root, 'api-keys', file))));
      return keys
        .filter((key): key is ApiKeyRecord => key !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },

    async cacheGet(namespace, key) {
      const path = cachePath(namespace, key);
      let entry = cached.get(path);
      if (!entry) {
        const generation = cacheWrites;
        const raw = await readJsonFile(path);
        if (raw === null) return null;
        const parsed = cacheEntrySchema.safeParse(raw);
        if (!parsed.success) return null;
        entry = parsed.data as CacheEntry;
        // kept only if no put or delete ran while the file was read (it could be older than theirs)
        if (generation === cacheWrites) cached.set(path, entry);
      }
      if (Date.parse(entry.expires_at) <= Date.now()) return null;
      return cloneJson(entry);
    },
    async cachePut(namespace, key, value, { ttlMs }) {
      const storedAt = Date.now();
      const path = cachePath(namespace, key);
      const entry: CacheEntry = {
        value: cloneJson(value),
        stored_at: new Date(storedAt).toISOString(),
        expires_at: new Date(storedAt + ttlMs).toISOString(),
      };
      cacheWrites++;
      cached.delete(path);
      await write(path, entry);
      cached.set(path, entry);
    },
    async cacheDelete(namespace, key, deleteOptions) {
      if (key !== undefined) {
        const path = cachePath(namespace, key);
        cacheWrites++;
        cached.delete(path);
        await rm(path, { force: true });
        return;
      }
      const prefix = deleteOptions?.prefix ?? '';
      const dir = join(root, 'cache', cacheName(namespace));
      cacheWrites++;
      cached.deleteWhere((path) => dirname(path) === dir);
      for (const file of await listJsonFiles(dir)) {
        if (decodeURIComponent(file.slice(0, -'.json'.length)).startsWith(prefix)) await rm(join(dir, file), { force: true });
      }
    },

    async close() {
      try {
        // a clean shutdown leaves everything durable
        await journals.syncAll();
        for (const directory of unsyncedDirectories) await syncDirectory(directory);
        unsyncedDirectories.clear();
      } finally {
        await journals.closeAll();
      }
    },
  };
}
