/**
 * Phase 8: decide the run type, write the result document (insights with their validation,
 * recommendations, logs, telemetry — no raw rows or schemas), settle the run's status, and drop the
 * per-run vector collection. Idempotent: a second finalize rewrites the same result.
 */
import { dropRunCollection } from '../../compaction/run-step-index.js';
import type { DiscoveryResult, Insight, Run, ValidationLogEntry } from '../../domain/index.js';
import type { DiscoveryDeps } from '../context.js';
import { requireRun } from '../context.js';
import { countQueryTimeouts, describeQueryTimeouts, totalQueryTimeouts } from '../query-timeouts.js';
import { decideRunType, runStatusFor } from '../outcome-rules.js';
import { withoutMirrors } from '../claims/stance.js';

/** Key findings listed in the summary. */
const KEY_FINDINGS = 5;
const SEVERITY_RANK: Record<Insight['severity'], number> = { critical: 0, high: 1, medium: 2, low: 3 };
const STATUS_RANK: Record<string, number> = { confirmed: 0, adjusted: 0, unverified: 1, skipped: 1, error: 2, rejected: 3 };

/**
 * The run's insights in the order a reader should see them: checked facts first (confirmed and
 * adjusted), then unverified, failed and rejected ones; within each, by score (effect, support,
 * significance, relevance to the goal), then severity and id.
 */
export function rankInsights(insights: readonly Insight[]): Insight[] {
  return [...insights].sort(
    (a, b) =>
      (STATUS_RANK[a.validation?.status ?? 'unverified'] ?? 9) - (STATUS_RANK[b.validation?.status ?? 'unverified'] ?? 9) ||
      (b.score ?? 0) - (a.score ?? 0) ||
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      a.id.localeCompare(b.id),
  );
}

export function keyFindings(insights: readonly Insight[]): string[] {
  return rankInsights(insights)
    .filter((insight) => insight.validation?.status === 'confirmed' || insight.validation?.status === 'adjusted')
    .slice(0, KEY_FINDINGS)
    .map((insight) => `${insight.name} (${insight.analysis_area}, ${insight.severity})`);
}

export function summaryText(run: Run, insights: readonly Insight[]): string {
  const statuses = new Map<string, number>();
  for (const insight of insights)
    statuses.set(insight.validation?.status ?? 'unverified', (statuses.get(insight.validation?.status ?? 'unverified') ?? 0) + 1);
  const completedAreas = run.areas.filter((area) => area.status === 'completed').length;
  const verification = [...statuses.entries()]
    .sort()
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  return [
    `Explored the warehouse in ${run.steps_completed} steps (${run.counters.successful_queries} successful queries, ${run.counters.failed_queries} failed).`,
    `Analysed ${completedAreas} of ${run.areas.length} areas and found ${insights.length} insights${verification ? ` (${verification})` : ''}.`,
    `Wrote ${run.recommendations.length} recommendations.`,
  ].join(' ');
}

function runErrors(run: Run): string[] {
  const errors: string[] = [];
  if (run.exploration_done_reason === 'llm_error' && run.error) errors.push(run.error);
  // a skipped area is not an error (no exploration step was relevant to it): the analysis log explains it
  for (const area of run.areas)
    if (area.status === 'failed') errors.push(`area ${area.area_id} ${area.status}: ${area.error ?? 'no reason recorded'}`);
  if (run.recommendation_log.status === 'failed') errors.push(`recommendations failed: ${run.recommendation_log.error ?? 'unknown error'}`);
  return errors;
}

function validationLog(insights: readonly Insight[]): ValidationLogEntry[] {
  return insights
    .filter((insight) => insight.validation)
    .map((insight) => ({
      insight_id: insight.id,
      analysis_area: insight.analysis_area,
      claimed_count: insight.affected_count,
      verified_count: insight.validation!.verified_count,
      status: insight.validation!.status,
      query: insight.validation!.query,
      ...(insight.validation!.status === 'error' ? { query_error: insight.validation!.reasoning } : {}),
      reasoning: insight.validation!.reasoning,
      validated_at: insight.validation!.validated_at,
    }));
}

export async function finalizeRun(deps: DiscoveryDeps, runId: string, options: { fatalError?: string } = {}): Promise<DiscoveryResult> {
  const run = await requireRun(deps, runId);
  const cancelled = run.status === 'cancelled';
  const ranked = rankInsights(run.areas.flatMap((area) => area.insights));
  const steps = await deps.store.listSteps(runId);
  // every verification counts, the mirrored twins' too: their statements ran
  const queryTimeouts = countQueryTimeouts({ steps, mining: run.mining, insights: ranked });
  const runType = decideRunType({
    cancelled,
    areas: run.areas,
    explorationFailed: run.exploration_done_reason === 'llm_error',
    fatalError: options.fatalError,
    queryTimeouts: totalQueryTimeouts(queryTimeouts),
  });
  // one fact from both sides (Android lower, iOS higher) is stated once; recommendations follow to the one kept
  const { kept, replacedBy } = withoutMirrors(ranked);
  const insights = kept;
  const recommendations = run.recommendations.map((recommendation) => ({
    ...recommendation,
    related_insight_ids: [...new Set(recommendation.related_insight_ids.map((id) => replacedBy.get(id) ?? id))],
  }));
  const completedAt = deps.now();
  const startedAt = new Date(run.started_at ?? run.created_at);
  const timedOut = describeQueryTimeouts(queryTimeouts);
  const errors = [
    ...(options.fatalError ? [options.fatalError] : []),
    ...runErrors(run),
    ...(timedOut
      ? [`${timedOut}: what they would have shown is missing; raise sql.timeoutMs (ASSAY_SQL_TIMEOUT_MS) or sql.memoryLimitMb`]
      : []),
  ];
  const result: DiscoveryResult = {
    run_id: run.id,
    project_id: run.project_id,
    domain: run.settings.pack,
    ...(run.settings.category ? { category: run.settings.category } : {}),
    discovery_date: completedAt.toISOString().slice(0, 10),
    run_type: runType,
    areas_requested: run.settings.areas,
    total_steps: steps.length,
    duration_ms: Math.max(0, completedAt.getTime() - startedAt.getTime()),
    insights,
    recommendations,
    summary: {
      text: summaryText(run, insights),
      key_findings: keyFindings(insights),
      total_insights: insights.length,
      total_recommendations: recommendations.length,
      queries_executed: run.counters.total_queries,
      errors,
    },
    ...(totalQueryTimeouts(queryTimeouts) > 0 ? { query_timeouts: queryTimeouts } : {}),
    analysis_log: run.areas.map((area) => ({ ...area, insights: [] })),
    recommendation_log: {
      ...(run.recommendation_log.error ? { error: run.recommendation_log.error } : {}),
      dropped_insight_ids: run.recommendation_log.dropped_insight_ids,
      parse_retries: run.recommendation_log.parse_retries,
      ...(run.recommendation_log.rejected?.length ? { rejected: run.recommendation_log.rejected } : {}),
    },
    validation_log: validationLog(insights),
    telemetry: run.telemetry,
  };
  await deps.store.putResult(result);
  const status = runStatusFor(runType);
  await deps.store.updateRun(runId, (current) => ({
    ...current,
    status: current.status === 'cancelled' ? 'cancelled' : status,
    phase: 'complete',
    phase_detail: runType,
    run_type: runType,
    progress: 100,
    completed_at: completedAt.toISOString(),
    counters: { ...current.counters, insights_found: insights.length },
    ...(status === 'failed' && !current.error ? { error: errors[0] ?? 'no area produced a result' } : {}),
  }));
  try {
    await dropRunCollection({ index: deps.vectorIndex, runId });
  } catch (error) {
    // the boot-time orphan sweep removes it later
    deps.logger.warn({ runId, err: error }, 'could not drop the per-run collection');
  }
  return result;
}
