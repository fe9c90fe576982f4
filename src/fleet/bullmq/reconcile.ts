/**
 * The phases record their own failures on the run (an error step, a failed area, an `error`
 * validation). A job can still fail without recording anything: it threw after its last retry,
 * it stalled too often, its worker lost Redis. When the parent resumes with such a child among its
 * ignored failures, it applies one of these pure updates so the run document stays consistent
 * (every area settled, every attempted insight validated, the reason kept).
 */
import type { Run } from '../../domain/index.js';

const SETTLED_AREA = new Set(['completed', 'failed', 'skipped']);

/** Areas still `pending`/`running` after their jobs settled: failed, with the job's failure (or a note that it never reported). */
export function failUnsettledAreas(run: Run, failureByArea: ReadonlyMap<string, string>): Run {
  return {
    ...run,
    areas: run.areas.map((area) =>
      SETTLED_AREA.has(area.status)
        ? area
        : { ...area, status: 'failed', error: `analysis job failed: ${failureByArea.get(area.area_id) ?? 'it settled without recording an outcome'}` },
    ),
  };
}

/** Exploration ends at a step whose job failed; earlier steps stay and the run goes on to analysis. */
export function stopExplorationAt(run: Run, step: number, reason: string): Run {
  if (run.exploration_done_reason) return run;
  return { ...run, exploration_done_reason: 'llm_error', error: run.error ?? `exploration stopped at step ${step}: its job failed: ${reason}` };
}

/** An insight whose verify job failed gets an `error` validation; its claimed count is left as it was. */
export function failVerification(run: Run, insightId: string, reason: string, at: Date): Run {
  return {
    ...run,
    areas: run.areas.map((area) => ({
      ...area,
      insights: area.insights.map((insight) =>
        insight.id !== insightId || insight.validation
          ? insight
          : {
              ...insight,
              validation: { status: 'error', verified_count: null, original_count: insight.affected_count, query: '', reasoning: `verification job failed: ${reason}`, validated_at: at.toISOString(), lookups_used: 0 },
            },
      ),
    })),
  };
}

/** Recommendations whose job failed before recording an outcome. */
export function failRecommendations(run: Run, reason: string): Run {
  if (run.recommendation_log.status !== 'pending') return run;
  return { ...run, recommendation_log: { ...run.recommendation_log, status: 'failed', error: `recommendation job failed: ${reason}` } };
}
