/**
 * Resuming a run (`assay runs resume`): the run is reopened and driven again from the start of the
 * pipeline, the way the fleet re-drives a run whose coordinator was lost. Every stage is idempotent
 * on stored work, so what is kept is simply not redone:
 * - stored exploration steps are replayed without asking the model, and exploration goes on from
 *   the first missing step (unless it had ended: `done`, the step limit, or a final model failure);
 * - completed and skipped areas are kept; failed and unfinished ones are analysed again;
 * - validations are kept, except `error` ones, which are checked again;
 * - recommendations are written again whenever an area or a validation is redone (they read every
 *   insight), else kept.
 */
import { type Insight, isTerminal, type Run } from '../domain/index.js';
import { ConflictError } from '../errors/index.js';

/** Why `run` cannot be resumed, or undefined when it can: cancelled, failed, or completed without every area. */
export function whyNotResumable(run: Run): string | undefined {
  if (!isTerminal(run.status)) return `it is still ${run.status}`;
  if (run.status === 'completed' && run.run_type === 'full') return 'it completed with every area: there is nothing left to do';
  const unfinished = run.areas.some((area) => area.status !== 'completed' && area.status !== 'skipped');
  const unchecked = run.areas.some((area) => area.insights.some((insight) => insight.validation?.status === 'error'));
  if (run.status === 'completed' && !unfinished && !unchecked && run.recommendation_log.status !== 'failed') {
    return 'every area completed or was skipped (no exploration step was relevant to it); a skipped area needs a new, longer run';
  }
  return undefined;
}

export function assertResumable(run: Run): void {
  const why = whyNotResumable(run);
  if (why !== undefined) throw new ConflictError(`run ${run.id} cannot be resumed: ${why}`, { runId: run.id, status: run.status });
}

function withoutErrorValidation(insight: Insight): Insight {
  if (insight.validation?.status !== 'error') return insight;
  const { validation: _dropped, ...rest } = insight;
  return rest;
}

/** The run as the pipeline should find it when it is driven again (see the module comment). */
export function reopenRun(run: Run, now: Date): Run {
  let redone = false;
  const areas = run.areas.map((area) => {
    const insights = area.insights.map(withoutErrorValidation);
    if (insights.some((insight, index) => insight !== area.insights[index])) redone = true;
    if (area.status === 'completed' || area.status === 'skipped') return { ...area, insights };
    redone = true;
    const { error: _error, ...rest } = area;
    return { ...rest, status: 'pending' as const, insights };
  });
  const recommendationsRedone = redone || run.recommendation_log.status === 'failed';
  const explorationFailed = run.exploration_done_reason === 'llm_error';
  const { error: _error, run_type: _runType, completed_at: _completedAt, exploration_done_reason: _doneReason, ...rest } = run;
  return {
    ...rest,
    // a model failure ended exploration for good (its error step is stored); the error stays with it
    ...(explorationFailed ? { exploration_done_reason: 'llm_error' as const, ...(run.error ? { error: run.error } : {}) } : {}),
    ...(run.exploration_done_reason === 'done' || run.exploration_done_reason === 'max_steps'
      ? { exploration_done_reason: run.exploration_done_reason }
      : {}),
    status: 'pending',
    phase: 'prepare',
    phase_detail: 'resuming',
    // finalize set 100: keep what exploration had reached, the phases raise it from there
    progress: Math.min(run.progress, 60),
    areas,
    recommendations: recommendationsRedone ? [] : run.recommendations,
    recommendation_log: recommendationsRedone ? { status: 'pending', dropped_insight_ids: [], parse_retries: 0 } : run.recommendation_log,
    updated_at: now.toISOString(),
  };
}
