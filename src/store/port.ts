import type { DiscoveryResult, ExplorationStep, Feedback, Project, Run } from '../domain/index.js';

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

  close(): Promise<void>;
}
