/**
 * Handler of `index` (`schema` jobs): loads the run's schema the way every later job will, which
 * describes the warehouse and builds the schema index when the cache or index is missing or stale.
 */
import type { IndexPayload, IndexResult } from '../queues/index.js';
import { assertRunActive, requireProject } from '../../../discovery/context.js';
import { loadRunSetting } from '../../../discovery/phases/run-setting.js';
import type { JobHandler } from './handler.js';

export const indexSchema: JobHandler<IndexPayload, IndexResult> = async ({ deps, payload, signal }) => {
  const run = await assertRunActive(deps, payload.runId, signal);
  const project = await requireProject(deps, run.project_id);
  const setting = await loadRunSetting(deps, run, project, signal);
  return { runId: payload.runId, tables: setting.schema.tables.length, collection: setting.schema.collection };
};
