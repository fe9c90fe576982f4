import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
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
import { NotFoundError, ValidationError } from '../errors/index.js';
import { KeyedLock } from '../concurrency/keyed-lock.js';
import { readJsonFile, writeFileAtomic } from '../common/atomic-file.js';
import { SAFE_ID, assertSafeId } from './ids.js';
import { lockStoreDirectory } from './process-lock.js';
import type { CacheEntry, RunStore } from './port.js';

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

/**
 * RunStore on local files under `<dir>`: one JSON document per project, run, step, result, and
 * feedback list; writes are atomic renames, so a crash never leaves a torn document.
 */
export function createEmbeddedRunStore(options: { dir: string }): RunStore {
  const root = options.dir;
  const release = lockStoreDirectory(root);
  const mutex = new KeyedLock();
  const projectPath = (id: string) => join(root, 'projects', `${id}.json`);
  const runDir = (id: string) => join(root, 'runs', id);
  const runPath = (id: string) => join(runDir(id), 'run.json');
  const stepPath = (runId: string, step: number) => join(runDir(runId), 'steps', `${String(step).padStart(5, '0')}.json`);
  const resultPath = (runId: string) => join(runDir(runId), 'result.json');
  const feedbackPath = (projectId: string) => join(root, 'feedback', `${projectId}.json`);
  const apiKeyPath = (id: string) => join(root, 'api-keys', `${id}.json`);
  const cachePath = (namespace: string, key: string) => join(root, 'cache', cacheName(namespace), `${encodeURIComponent(key)}.json`);
  const write = (path: string, value: unknown) => writeFileAtomic(path, `${JSON.stringify(value, null, 1)}\n`);

  async function allRuns(): Promise<Run[]> {
    let ids: string[];
    try {
      ids = (await readdir(join(root, 'runs'))).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const runs = await Promise.all(ids.map((id) => readParsed(runSchema, runPath(id))));
    return runs.filter((run): run is Run => run !== null);
  }

  return {
    async upsertProject(project: Project) {
      assertSafeId('project', project.id);
      await mutex.run(`project:${project.id}`, () => write(projectPath(project.id), projectSchema.parse(project)));
    },
    async getProject(id) {
      assertSafeId('project', id);
      return readParsed(projectSchema, projectPath(id));
    },
    async listProjects() {
      const files = await listJsonFiles(join(root, 'projects'));
      const projects = await Promise.all(files.map((file) => readParsed(projectSchema, join(root, 'projects', file))));
      return projects.filter((project): project is Project => project !== null);
    },

    async createRun(run: Run) {
      assertSafeId('run', run.id);
      return mutex.run(`run:${run.id}`, async () => {
        const existing = await readParsed(runSchema, runPath(run.id));
        if (existing) return existing;
        const parsed = runSchema.parse(run);
        await write(runPath(run.id), parsed);
        return parsed;
      });
    },
    async getRun(id) {
      assertSafeId('run', id);
      return readParsed(runSchema, runPath(id));
    },
    async updateRun(id, mutate) {
      assertSafeId('run', id);
      return mutex.run(`run:${id}`, async () => {
        const current = await readParsed(runSchema, runPath(id));
        if (!current) throw new NotFoundError(`run ${id} does not exist`, { runId: id });
        const next = runSchema.parse({ ...mutate(structuredClone(current)), id, updated_at: new Date().toISOString() });
        await write(runPath(id), next);
        return next;
      });
    },
    async listRuns(projectId, listOptions) {
      const runs = (await allRuns()).filter((run) => run.project_id === projectId);
      runs.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
      return runs.slice(0, listOptions?.limit ?? runs.length);
    },

    async upsertStep(step: ExplorationStep) {
      assertSafeId('run', step.run_id);
      await write(stepPath(step.run_id, step.step), explorationStepSchema.parse(step));
    },
    async listSteps(runId) {
      assertSafeId('run', runId);
      const dir = join(runDir(runId), 'steps');
      const files = await listJsonFiles(dir);
      const steps = await Promise.all(files.map((file) => readParsed(explorationStepSchema, join(dir, file))));
      return steps.filter((step): step is ExplorationStep => step !== null).sort((a, b) => a.step - b.step);
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
      const raw = await readJsonFile(cachePath(namespace, key));
      if (raw === null) return null;
      const entry = cacheEntrySchema.safeParse(raw);
      if (!entry.success || Date.parse(entry.data.expires_at) <= Date.now()) return null;
      return entry.data as CacheEntry;
    },
    async cachePut(namespace, key, value, { ttlMs }) {
      const storedAt = Date.now();
      await write(cachePath(namespace, key), {
        value,
        stored_at: new Date(storedAt).toISOString(),
        expires_at: new Date(storedAt + ttlMs).toISOString(),
      });
    },
    async cacheDelete(namespace, key, deleteOptions) {
      if (key !== undefined) {
        await rm(cachePath(namespace, key), { force: true });
        return;
      }
      const prefix = deleteOptions?.prefix ?? '';
      const dir = join(root, 'cache', cacheName(namespace));
      for (const file of await listJsonFiles(dir)) {
        if (decodeURIComponent(file.slice(0, -'.json'.length)).startsWith(prefix)) await rm(join(dir, file), { force: true });
      }
    },

    async close() {
      release();
    },
  };
}
