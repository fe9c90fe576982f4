/**
 * Pure updates of the run document that both drivers apply at the same transitions: entering analysis,
 * and recording what finally failed (a unit of work that threw after its last attempt, stalled too
 * often, or never reported), so the run document stays consistent — every area settled, every
 * attempted insight validated, the reason kept — whichever driver ran it.
 */
import { failedMining, type Run } from '../../domain/index.js';

/** Progress shown once analysis starts (exploration reports up to 60). */
export const ANALYSIS_PROGRESS = 62;

const SETTLED_AREA = new Set(['completed', 'failed', 'skipped']);

export function enterAnalysis(run: Run): Run {
  return { ...run, phase: 'analysis', phase_detail: 'analysing areas', progress: Math.max(run.progress, ANALYSIS_PROGRESS) };
}

/** Areas still `pending`/`running` after their work settled: failed, with the failure (or a note that it never reported). */
export function failUnsettledAreas(run: Run, failureByArea: ReadonlyMap<string, string>): Run {
  return {
    ...run,
    areas: run.areas.map((area) =>
      SETTLED_AREA.has(area.status)
        ? area
        : {
            ...area,
            status: 'failed',
            error: `analysis failed: ${failureByArea.get(area.area_id) ?? 'it settled without recording an outcome'}`,
          },
    ),
  };
}

/** Exploration ends at a step whose work failed; earlier steps stay and the run goes on to analysis. */
export function stopExplorationAt(run: Run, step: number, reason: string): Run {
  if (run.exploration_done_reason) return run;
  return { ...run, exploration_done_reason: 'llm_error', error: run.error ?? `exploration stopped at step ${step}: ${reason}` };
}

/** An insight whose verification failed for good gets an `error` validation; its claimed count is left as it was. */
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
              validation: {
                status: 'error',
                verified_count: null,
                original_count: insight.affected_count,
                query: '',
                reasoning: `verification failed: ${reason}`,
                validated_at: at.toISOString(),
                lookups_used: 0,
              },
            },
      ),
    })),
  };
}

/** Mining whose work failed before recording an outcome: analysis goes on from the exploration digests, and the run says why. */
export function failMining(run: Run, reason: string): Run {
  if (run.mining && run.mining.status !== 'failed') return run;
  return {
    ...run,
    mining: failedMining({ fdr: run.mining?.fdr ?? 0.05, durationMs: run.mining?.duration_ms ?? 0, error: `mining failed: ${reason}` }),
  };
}

/** Recommendations whose work failed before recording an outcome. */
export function failRecommendations(run: Run, reason: string): Run {
  if (run.recommendation_log.status !== 'pending') return run;
  return { ...run, recommendation_log: { ...run.recommendation_log, status: 'failed', error: `recommendations failed: ${reason}` } };
}
