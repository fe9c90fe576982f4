/**
 * A skipped area is not an error: exploration found nothing the area could analyse. The report and
 * the CLI summary explain each one the same way — why it was skipped, and what would let it run.
 */
import { MAX_STEPS_LIMIT } from '../common/run-limits.js';
import type { AreaRun, DiscoveryResult, Run } from '../domain/index.js';

export interface SkippedArea {
  id: string;
  name: string;
  /** Why, as recorded by the analysis. */
  why: string;
  /** What would let it run, in words a person can act on. */
  next: string;
}

function nextFor(area: Pick<AreaRun, 'area_id'>, run: Pick<Run, 'steps_completed' | 'settings' | 'exploration_done_reason'>): string {
  const alone = `this area alone (--areas ${area.area_id}), so exploration looks for its tables`;
  const maxSteps = run.settings.max_steps;
  if (run.exploration_done_reason === 'done' || maxSteps >= MAX_STEPS_LIMIT)
    return `a run of ${alone}, or a pack area whose keywords name the warehouse's tables (assay pack generate)`;
  const longer = Math.min(MAX_STEPS_LIMIT, Math.max(maxSteps * 2, maxSteps + 8));
  return `a longer exploration (--max-steps ${longer}; this run made ${run.steps_completed} of ${maxSteps} steps), or a run of ${alone}`;
}

export function skippedAreas(
  result: Pick<DiscoveryResult, 'analysis_log'>,
  run: Pick<Run, 'steps_completed' | 'settings' | 'exploration_done_reason'>,
): SkippedArea[] {
  return result.analysis_log
    .filter((area) => area.status === 'skipped')
    .map((area) => ({
      id: area.area_id,
      name: area.area_name,
      why: area.error ?? 'no exploration step was relevant to it',
      next: nextFor(area, run),
    }));
}

/** The result's errors without the lines older results recorded for skipped areas (they are not errors). */
export function runErrorsWithoutSkips(result: Pick<DiscoveryResult, 'analysis_log' | 'summary'>): string[] {
  const skipped = result.analysis_log.filter((area) => area.status === 'skipped').map((area) => `area ${area.area_id} skipped:`);
  return result.summary.errors.filter((error) => !skipped.some((prefix) => error.startsWith(prefix)));
}
