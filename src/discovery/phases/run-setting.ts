/**
 * Everything a job needs to know about its run that is derived, not stored: the pack and its areas,
 * the project's schema and catalog, and the rendered base and exploration prompts. Rebuilt the same
 * way by any worker from the run document (the previous context was fixed at prepare).
 */
import type { Project, Run } from '../../domain/index.js';
import { ValidationError } from '../../errors/index.js';
import { DEFAULT_CATALOG_BUDGET_TOKENS } from '../../schema/constants.js';
import type { DiscoveryDeps, ProjectSchema } from '../context.js';
import { resolvePack } from '../packs/generation/project-pack.js';
import { resolveAreas } from '../packs/pack-loader.js';
import type { AnalysisArea, DomainPack } from '../packs/pack-schema.js';
import { renderBaseContext, renderExplorationPrompt } from '../packs/prompt-assembly.js';

/** Share of the model's window the catalog may take (prior art: batch budgets ≈ 0.4 × window). */
export const CATALOG_WINDOW_SHARE = 0.4;

export interface RunSetting {
  pack: DomainPack;
  areas: AnalysisArea[];
  schema: ProjectSchema;
  baseContext: string;
  explorationSystemPrompt: string;
}

/** The areas of the run: the pack's (in priority order) or the requested subset, unknown ids refused. */
export function runAreas(pack: DomainPack, run: Pick<Run, 'settings'>): AnalysisArea[] {
  const all = resolveAreas(pack, run.settings.category);
  if (run.settings.areas.length === 0) return all;
  const known = new Set(all.map((area) => area.id));
  const unknown = run.settings.areas.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new ValidationError(`unknown area(s) ${unknown.join(', ')} for pack "${pack.slug}" (areas: ${[...known].join(', ')})`, [
      { path: 'areas', message: `unknown: ${unknown.join(', ')}` },
    ]);
  }
  return all.filter((area) => run.settings.areas.includes(area.id));
}

export function catalogBudgetTokens(contextWindow: number): number {
  return Math.min(DEFAULT_CATALOG_BUDGET_TOKENS, Math.floor(contextWindow * CATALOG_WINDOW_SHARE));
}

/** The run's pack, areas and schema: what a job needs that renders no prompt (a claim's recount). */
export async function loadRunSchema(
  deps: DiscoveryDeps,
  run: Run,
  project: Project,
  signal?: AbortSignal,
): Promise<Pick<RunSetting, 'pack' | 'areas' | 'schema'>> {
  // a project's own pack is read from the frozen version the run names, never from the current one
  const pack = resolvePack((slug) => deps.loadPack(slug), run.settings.pack, project);
  const areas = runAreas(pack, run);
  const areaKeywords = [...new Set(areas.flatMap((area) => area.keywords))];
  const schema = await deps.schema.load(project, {
    areaKeywords,
    catalogBudgetTokens: catalogBudgetTokens(deps.llm.entry.contextWindow),
    ...(signal ? { signal } : {}),
  });
  return { pack, areas, schema };
}

export async function loadRunSetting(deps: DiscoveryDeps, run: Run, project: Project, signal?: AbortSignal): Promise<RunSetting> {
  const { pack, areas, schema } = await loadRunSchema(deps, run, project, signal);
  const baseContext = renderBaseContext(pack, project, run.context?.previous_context ?? '');
  const exploration = renderExplorationPrompt({
    pack,
    category: run.settings.category,
    project,
    dialect: deps.warehouse.dialect,
    tables: schema.tables,
    catalogText: schema.catalog.text,
    areas,
    maxSteps: run.settings.max_steps,
    minSteps: run.settings.min_steps,
  });
  return { pack, areas, schema, baseContext, explorationSystemPrompt: `${baseContext}\n\n${exploration}` };
}

/**
 * A run's areas in analysis order with their names and descriptions, for the report; undefined when
 * the pack can no longer be loaded or no longer has the run's areas (the report then follows the
 * analysis log's order).
 */
export function runAreaSummaries(
  loadPack: (slug: string) => DomainPack,
  run: Pick<Run, 'settings'>,
): Array<{ id: string; name: string; description: string }> | undefined {
  try {
    return runAreas(loadPack(run.settings.pack), run).map((area) => ({ id: area.id, name: area.name, description: area.description }));
  } catch {
    return undefined;
  }
}
