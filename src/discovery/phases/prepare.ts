/**
 * Phase 1-3: load the project, pack and previous context, make sure the schema cache and index are
 * usable (rebuilding them when missing or stale), and fix the run's context for every later job.
 */
import { canStartDiscovery, type AreaRun } from '../../domain/index.js';
import { ConflictError } from '../../errors/index.js';
import { assertRunActive, requireProject, type DiscoveryDeps } from '../context.js';
import { PREVIOUS_RESULTS_LIMIT, buildPreviousContext } from './previous-context.js';
import { packContentHash } from '../packs/generation/project-pack.js';
import { loadRunSetting } from './run-setting.js';
import { timedPhase } from './phase-timing.js';

async function prepareRunUntimed(deps: DiscoveryDeps, runId: string, signal?: AbortSignal): Promise<void> {
  const run = await assertRunActive(deps, runId, signal);
  const project = await requireProject(deps, run.project_id);
  if (!canStartDiscovery(project)) {
    throw new ConflictError(`project ${project.id} is in state "${project.state}": discovery needs state "ready"`, {
      projectId: project.id,
    });
  }
  const startedAt = deps.now().toISOString();
  await deps.store.updateRun(runId, (current) => ({
    ...current,
    status: 'running',
    phase: 'prepare',
    phase_detail: 'loading schema and context',
    started_at: current.started_at ?? startedAt,
    progress: Math.max(current.progress, 2),
  }));

  const results = (await deps.store.listResults(project.id, { limit: PREVIOUS_RESULTS_LIMIT + 1 }))
    .filter((result) => result.run_id !== runId)
    .slice(0, PREVIOUS_RESULTS_LIMIT);
  const feedback = await deps.store.listFeedback(project.id);
  const previousContext = buildPreviousContext(results, feedback);
  const setting = await loadRunSetting(
    deps,
    { ...run, context: { previous_context: previousContext, warehouse_hash: '', catalog_tokens: 0 } },
    project,
    signal,
  );

  await deps.store.updateRun(runId, (current) => ({
    ...current,
    phase: 'exploration',
    phase_detail: 'exploration step 1',
    progress: Math.max(current.progress, 8),
    // which pack, exactly, the run analyses with: its manifest version and content hash
    settings: { ...current.settings, pack_version: setting.pack.version, pack_hash: packContentHash(setting.pack) },
    context: {
      previous_context: previousContext,
      warehouse_hash: setting.schema.warehouseHash,
      catalog_tokens: setting.schema.catalog.tokens,
    },
    // keep area state on a redelivered prepare; create it otherwise, in the run's area order
    areas:
      current.areas.length > 0
        ? current.areas
        : setting.areas.map(
            (area): AreaRun => ({
              area_id: area.id,
              area_name: area.name,
              status: 'pending',
              insight_ids: [],
              selected_steps: [],
              dropped_steps: [],
              query_results_chars: 0,
              prompt_tokens: 0,
              duration_ms: 0,
              parse_retries: 0,
              dropped_outputs: [],
              insights: [],
            }),
          ),
    telemetry: {
      ...current.telemetry,
      schema_tokens: setting.schema.catalog.tokens,
      schema_table_count: setting.schema.catalog.tableCount,
    },
  }));
}

/** prepareRun, with its wall time added to `telemetry.phase_durations_ms.prepare`. */
export const prepareRun = timedPhase('prepare', prepareRunUntimed);
