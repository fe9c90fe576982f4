/**
 * Pure updates of the run document that both drivers apply at the same transitions: entering analysis,
 * and recording what finally failed (a unit of work that threw after its last attempt, stalled too
 * often, or never reported), so the run document stays consistent — every area settled, every
 * attempted insight validated, the reason kept — whichever driver ran it.
 */
import { failedMining, type Insight, type InsightValidation, type Run } from '../../domain/index.js';

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

/** Adds measured durations (ms, by phase name) to the run's `telemetry.phase_durations_ms`. */
export function addPhaseDurations(run: Run, durationsMs: Readonly<Record<string, number>>): Run {
  const entries = Object.entries(durationsMs).filter(([, ms]) => ms > 0);
  if (entries.length === 0) return run;
  const durations = { ...run.telemetry.phase_durations_ms };
  for (const [name, ms] of entries) durations[name] = Math.round(((durations[name] ?? 0) + ms) * 10) / 10;
  return { ...run, telemetry: { ...run.telemetry, phase_durations_ms: durations } };
}

/**
 * What one verification found, before it is stored: the drivers collect a stage's verdicts and the
 * machine writes them in the stage's one update (so parallel verifications never race on the run).
 */
export interface InsightVerdict {
  insightId: string;
  validation: InsightValidation;
  /** An adjusted insight's claims and text, re-rendered from the recount (no one sees the old numbers). */
  rewrite?: Pick<Insight, 'claim' | 'supporting_claims' | 'name' | 'description' | 'text_source' | 'affected_count'> | undefined;
  /** The verification's wall and warehouse time (`verification`, `verification_sql`), added to the run's telemetry. */
  durationsMs: Record<string, number>;
}

/** How an analysis stage's verifications settled, as its driver collected them. */
export interface VerificationOutcomes {
  verdicts: readonly InsightVerdict[];
  /** Insights whose verification failed for good, with the reason. */
  failures: ReadonlyMap<string, string>;
  /** When the stage settled (the `validated_at` of failed verifications). */
  settledAt: string;
}

/**
 * The stage's verdicts on the run: each insight not validated yet takes its verdict (a repeated
 * delivery changes nothing); then, in an area whose analysis did not fail, every insight still without
 * a validation gets an `error` one — its verification failed for good, or settled without a verdict.
 * In a cancelled run a verification that did not happen is not a failure.
 */
export function settleVerifications(run: Run, outcomes: VerificationOutcomes, failedAreas: ReadonlyMap<string, string>): Run {
  const byInsight = new Map(outcomes.verdicts.map((verdict) => [verdict.insightId, verdict]));
  let durations: Record<string, number> = {};
  const areas = run.areas.map((area) => ({
    ...area,
    insights: area.insights.map((insight) => {
      const verdict = byInsight.get(insight.id);
      if (!verdict || insight.validation) return insight;
      durations = sumDurations(durations, verdict.durationsMs);
      return { ...insight, ...(verdict.rewrite ?? {}), validation: verdict.validation };
    }),
  }));
  let settled = addPhaseDurations({ ...run, areas }, durations);
  if (run.status === 'cancelled') return settled;
  const at = new Date(outcomes.settledAt);
  for (const area of settled.areas) {
    if (failedAreas.has(area.area_id)) continue;
    for (const insight of area.insights)
      if (!insight.validation)
        settled = failVerification(
          settled,
          insight.id,
          outcomes.failures.get(insight.id) ?? 'it settled without recording a validation',
          at,
        );
  }
  return settled;
}

function sumDurations(left: Readonly<Record<string, number>>, right: Readonly<Record<string, number>>): Record<string, number> {
  const sum = { ...left };
  for (const [name, ms] of Object.entries(right)) sum[name] = (sum[name] ?? 0) + ms;
  return sum;
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
