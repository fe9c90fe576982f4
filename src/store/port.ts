import type { ApiKeyRecord, DiscoveryResult, ExplorationStep, Feedback, Project, Run } from '../domain/index.js';

/**
 * The RunStore port: projects, runs, exploration steps, results and feedback.
 * Every write is an upsert keyed by its natural key, so a redelivered job does no harm.
 */
export interface RunStore {
  upsertProject(project: Project): Promise<void>;
  getProject(id: string): Promise<Project | null>;
  listProjects(): Promise<Project[]>;

  /** Creates the run; a second create with the same id is a no-op returning the stored run. */
  createRun(run: Run): Promise<Run>;
  getRun(id: string): Promise<Run | null>;
  /** Atomic read-modify-write of one run. Returns the stored result. Throws NotFoundError if absent. */
  updateRun(id: string, mutate: (run: Run) => Run): Promise<Run>;
  /** Newest first. */
  listRuns(projectId: string, options?: { limit?: number }): Promise<Run[]>;

  /** Keyed by (run_id, step). */
  upsertStep(step: ExplorationStep): Promise<void>;
  /** Ordered by step number. */
  listSteps(runId: string): Promise<ExplorationStep[]>;

  /** Keyed by run_id. */
  putResult(result: DiscoveryResult): Promise<void>;
  getResult(runId: string): Promise<DiscoveryResult | null>;
  /** Newest first. */
  listResults(projectId: string, options?: { limit?: number }): Promise<DiscoveryResult[]>;

  /** Keyed by (run_id, target_type, target_id). */
  upsertFeedback(feedback: Feedback): Promise<void>;
  listFeedback(projectId: string): Promise<Feedback[]>;

  /** Keyed by id; revoking is an upsert with `revoked_at` set. */
  putApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** Oldest first. */
  listApiKeys(): Promise<ApiKeyRecord[]>;

  /**
   * A small shared key-value cache with a TTL (schema cache, compaction cache): keyed by
   * (namespace, key); an expired entry reads as null. Values are JSON documents.
   */
  cacheGet(namespace: string, key: string): Promise<CacheEntry | null>;
  cachePut(namespace: string, key: string, value: unknown, options: { ttlMs: number }): Promise<void>;
  /** Removes one key, or every key of the namespace starting with `prefix` when `key` is omitted. */
  cacheDelete(namespace: string, key?: string, options?: { prefix?: string }): Promise<void>;

  close(): Promise<void>;
}

export interface CacheEntry {
  value: unknown;
  /** ISO time the entry was written. */
  stored_at: string;
  /** ISO time after which it reads as null. */
  expires_at: string;
}
