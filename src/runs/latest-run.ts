/** `latest` as a run id: the newest run of any project (`assay runs show latest`, `assay runs resume latest`). */
import type { Run } from '../domain/index.js';
import type { RunStore } from '../store/port.js';

export async function latestRun(store: Pick<RunStore, 'listProjects' | 'listRuns'>): Promise<Run | null> {
  const newest = await Promise.all(
    (await store.listProjects()).map(async (project) => (await store.listRuns(project.id, { limit: 1 }))[0]),
  );
  return (
    newest.filter((run): run is Run => run !== undefined).sort((left, right) => right.created_at.localeCompare(left.created_at))[0] ?? null
  );
}
