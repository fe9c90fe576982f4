/**
 * Housekeeping every driver runs at start-up (and the fleet on a schedule): which runs are in flight,
 * and dropping per-run vector collections no live run owns (a killed run never reached `finalize`).
 */
import { sweepOrphanRunCollections } from '../../compaction/run-step-index.js';
import type { Run } from '../../domain/index.js';
import type { DiscoveryDeps } from '../context.js';

/** Runs still `pending` or `running`, across every project. */
export async function runsInFlight(store: DiscoveryDeps['store']): Promise<Run[]> {
  const projects = await store.listProjects();
  const runs = await Promise.all(projects.map((project) => store.listRuns(project.id)));
  return runs.flat().filter((run) => run.status === 'pending' || run.status === 'running');
}

/** Drops run collections whose run is not in flight (and old enough); returns their names. */
export async function sweepRunCollections(
  deps: Pick<DiscoveryDeps, 'store' | 'vectorIndex' | 'logger' | 'now'>,
  options: { olderThanMs?: number } = {},
): Promise<string[]> {
  const active = (await runsInFlight(deps.store)).map((run) => run.id);
  const dropped = await sweepOrphanRunCollections({
    index: deps.vectorIndex,
    activeRunIds: active,
    now: deps.now(),
    ...(options.olderThanMs === undefined ? {} : { olderThanMs: options.olderThanMs }),
  });
  if (dropped.length > 0) deps.logger.info({ dropped }, 'dropped orphaned run collections');
  return dropped;
}
