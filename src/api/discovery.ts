/**
 * Starting a run and estimating one, as the API does it: the request is checked against the
 * project (state `ready`), the pack (known areas) and the server's limits before a run document
 * exists, then the run is created and handed to the launcher.
 */
import { createRun } from '../discovery/phases/create-run.js';
import { requireProject } from '../discovery/context.js';
import type { RunCostEstimate } from '../discovery/cost-estimate.js';
import { DEFAULT_CATALOG_TOKENS, estimatePackRunCost } from '../discovery/packs/pack-cost-estimate.js';
import { resolvePack } from '../discovery/packs/generation/index.js';
import { resolveAreas } from '../discovery/packs/pack-loader.js';
import type { AnalysisArea, DomainPack } from '../discovery/packs/pack-schema.js';

import { canStartDiscovery, type Project, type Run } from '../domain/index.js';
import { ConflictError, describeError } from '../errors/index.js';
import { assertStepBounds } from '../common/run-limits.js';
import { selectAreas } from '../runs/area-selection.js';
import type { ApiDeps } from './context.js';
import { lookupModel } from '../llm/catalog.js';
import type { KeyedLock } from '../concurrency/keyed-lock.js';
import type { DiscoverBody, EstimateBody } from './schemas.js';

function projectAreas(
  deps: ApiDeps,
  project: Project,
  requested: readonly string[] | undefined,
): { pack: DomainPack; areas: AnalysisArea[] } {
  const pack = resolvePack((slug) => deps.runtime.loadPack(slug), project.domain, project);
  return { pack, areas: selectAreas(resolveAreas(pack, project.category), requested, pack.slug) };
}

function stepBounds(deps: ApiDeps, body: Pick<DiscoverBody, 'max_steps' | 'min_steps'>): { maxSteps: number; minSteps: number } {
  const maxSteps = body.max_steps ?? deps.config.run.maxSteps;
  const minSteps = body.min_steps ?? Math.min(deps.config.run.minSteps, maxSteps);
  assertStepBounds(maxSteps, minSteps);
  return { maxSteps, minSteps };
}

/** `keyId`: the caller's key, charged against its run-start rate limit. */
export async function startDiscovery(deps: ApiDeps, locks: KeyedLock, projectId: string, body: DiscoverBody, keyId?: string): Promise<Run> {
  const project = await requireProject(deps.runtime, projectId);
  if (!canStartDiscovery(project)) {
    throw new ConflictError(`project ${project.id} is in state "${project.state}": discovery needs state "ready"`, {
      projectId: project.id,
      state: project.state,
    });
  }
  const { maxSteps, minSteps } = stepBounds(deps, body);
  const { areas } = projectAreas(deps, project, body.areas);
  if (keyId !== undefined) deps.limits.runStarts.take(keyId);
  // the "one active run per project" check and the create must not interleave with another request's
  return locks.run(`runs:${project.id}`, async () => {
    const run = await createRun(
      deps.runtime.store,
      project,
      {
        maxSteps,
        minSteps,
        areas: body.areas ? areas.map((area) => area.id) : [],
        llm: project.llm,
        pack: project.domain,
        category: project.category,
        analysisBudgetTokens: deps.config.run.analysisBudgetTokens,
      },
      deps.runtime.now(),
    );
    try {
      await deps.launcher.launch(run.id);
    } catch (error) {
      // a run nobody executes must not block the project's next run
      const stamp = deps.runtime.now().toISOString();
      await deps.runtime.store.updateRun(run.id, (current) => ({
        ...current,
        status: 'failed',
        error: `the run could not be started: ${describeError(error)}`,
        completed_at: stamp,
        updated_at: stamp,
      }));
      throw error;
    }
    deps.metrics.runStarted(run.id);
    return run;
  });
}

export interface DiscoveryEstimate extends RunCostEstimate {
  project_id: string;
  pack: string;
  areas: string[];
  max_steps: number;
  catalog_tokens: number;
  /** `last_run` when the project's latest run measured its schema catalog, else `default`. */
  catalog_tokens_source: 'last_run' | 'default';
}

/** The estimate of `estimateRunCost`, computed in this process from the project's pack and its last measured catalog. */
export async function estimateDiscovery(deps: ApiDeps, projectId: string, body: EstimateBody): Promise<DiscoveryEstimate> {
  const project = await requireProject(deps.runtime, projectId);
  const { maxSteps } = stepBounds(deps, { ...(body.max_steps === undefined ? {} : { max_steps: body.max_steps }), min_steps: 0 });
  const { pack, areas } = projectAreas(deps, project, body.areas);
  const measured = (await deps.runtime.store.listRuns(project.id, { limit: 10 })).find((run) => (run.context?.catalog_tokens ?? 0) > 0);
  const catalogTokens = measured?.context?.catalog_tokens ?? DEFAULT_CATALOG_TOKENS;
  // the project's own model, which may not be the server's
  const { entry } = lookupModel(project.llm, deps.config.models);
  const estimate = estimatePackRunCost({ entry, pack, areas, maxSteps, catalogTokens, protocol: deps.config.llmProtocol });
  return {
    project_id: project.id,
    pack: pack.slug,
    areas: areas.map((area) => area.id),
    max_steps: maxSteps,
    catalog_tokens: catalogTokens,
    catalog_tokens_source: measured ? 'last_run' : 'default',
    ...estimate,
  };
}
