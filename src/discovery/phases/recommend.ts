/**
 * Phase 7: compacted insights in, 3–8 recommendations out. Rejected insights are left out; every
 * related_insight_id must name a real insight (unknown ids are dropped and logged); segment sizes are
 * checked against the verified counts of the insights a recommendation addresses. Each insight reaches the
 * model with its claim in words (claim-brief.ts); a recommendation whose title or description states a
 * number none of its insights' claims holds is left out and logged, as insight text that disagrees with
 * its claim is rejected.
 */
import type { Insight, Recommendation, Run } from '../../domain/index.js';
import { CancelledError, LlmError, describeError } from '../../errors/index.js';
import { fenceData } from '../../llm/data-fence.js';
import type { PromptSection } from '../../llm/prompt-builder.js';
import { assertRunActive, modelFor, requireProject, type DiscoveryDeps } from '../context.js';
import type { AreaFindings } from '../../compaction/telescope/index.js';
import { askWithDrillDown, mergeTelescopeTelemetry, openFindingsTelescope, telescopeFigures } from './telescope-evidence.js';
import { recommendationsAnswer, type RawRecommendation } from '../parsing/output-parser.js';
import { rethrowUnlessFinal } from '../pipeline/error-policy.js';
import { renderRecommendationsPrompt } from '../packs/prompt-assembly.js';
import { loadRunSetting } from './run-setting.js';
import { claimBrief } from '../claims/claim-brief.js';
import { withoutMirrors } from '../claims/stance.js';
import { numbersOutsideClaims } from '../claims/text-check.js';
import { timedPhase } from './phase-timing.js';

/** Upper bound on recommendations kept (the prompt asks for 3–8). */
export const MAX_RECOMMENDATIONS = 8;
/** Insights shown to the recommender, most severe first; the rest are summarised by count. */
export const MAX_INSIGHTS_IN_PROMPT = 60;
const DESCRIPTION_MAX_CHARS = 300;
const RECOMMENDATION_MAX_OUTPUT_TOKENS = 8_192;
/** Reformat retries for an unusable recommendations reply. */
const RECOMMENDATION_REFORMAT_RETRIES = 2;
const SEVERITY_RANK: Record<Insight['severity'], number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** Recommendations rest on checked facts only: a rejected, failed or unverified insight is left out. */
export function usableInsights(run: Pick<Run, 'areas'>): Insight[] {
  const usable = run.areas
    .flatMap((area) => area.insights)
    .filter((insight) => insight.validation?.status === 'confirmed' || insight.validation?.status === 'adjusted');
  // one fact seen from both sides is one recommendation, written from the side finalize keeps
  return withoutMirrors(usable).kept;
}

/** One line on how an insight was verified: the claim against the recount, or why there was none. */
export function verificationLine(insight: Insight): string {
  const validation = insight.validation;
  if (!validation) return 'not verified';
  const check = validation.claim_check;
  const claim = insight.claim;
  if (check && claim) {
    const label = claim.metric.label ?? claim.metric.kind;
    return `${validation.status}: ${label} claimed ${claim.value} vs ${claim.comparison_value} (${claim.direction}), recounted ${check.value ?? 'n/a'} vs ${check.comparison_value ?? 'n/a'}`;
  }
  return `${validation.status}: ${validation.reasoning.slice(0, 160)}`;
}

/** The usable insights grouped by area, as the audit_findings strategy takes them. */
export function areaFindings(run: Pick<Run, 'areas'>, insights: readonly Insight[]): AreaFindings[] {
  const usable = new Set(insights.map((insight) => insight.id));
  return run.areas
    .map((area) => ({
      areaId: area.area_id,
      areaName: area.area_name,
      findings: area.insights
        .filter((insight) => usable.has(insight.id))
        .map((insight) => ({
          id: insight.id,
          name: insight.name,
          severity: insight.severity,
          verification: verificationLine(insight),
          source_steps: insight.source_steps,
        })),
    }))
    .filter((area) => area.findings.length > 0);
}

/**
 * One compact JSON line per insight, most severe first, fenced as data: names, segments and descriptions
 * quote the warehouse's values, which are never instructions.
 */
export function compactInsights(insights: readonly Insight[]): string {
  const ordered = [...insights]
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.id.localeCompare(b.id))
    .slice(0, MAX_INSIGHTS_IN_PROMPT);
  const lines = ordered.map((insight) =>
    JSON.stringify({
      id: insight.id,
      area: insight.analysis_area,
      name: insight.name,
      severity: insight.severity,
      affected_count: insight.affected_count,
      verification: insight.validation ? { status: insight.validation.status, verified_count: insight.validation.verified_count } : null,
      target_segment: insight.target_segment,
      // the fact in words to write from: measure, segment, rounded values, and whether it is a problem or a strength
      ...(insight.claim ? { claim: claimBrief(insight.claim) } : {}),
      description:
        insight.description.length > DESCRIPTION_MAX_CHARS
          ? `${insight.description.slice(0, DESCRIPTION_MAX_CHARS)}…`
          : insight.description,
    }),
  );
  return fenceData(`[\n${lines.join(',\n')}\n]`);
}

export function insightsSummary(insights: readonly Insight[]): string {
  const byArea = new Map<string, number>();
  for (const insight of insights) byArea.set(insight.analysis_area, (byArea.get(insight.analysis_area) ?? 0) + 1);
  return `Total: ${insights.length} insights (${[...byArea.entries()].map(([area, count]) => `${area}: ${count}`).join(', ')})`;
}

/**
 * The largest number of rows verification counted behind the given insights' segments, or null: the
 * recount's support for a checked claim (its value may be a rate or an average, not a size).
 */
function maxVerifiedCount(related: readonly Insight[]): number | null {
  const counts = related
    .map((insight) => insight.validation)
    .filter((validation) => validation && (validation.status === 'confirmed' || validation.status === 'adjusted'))
    .map((validation) => validation!.recount?.n ?? validation!.verified_count)
    .filter((count): count is number => typeof count === 'number');
  return counts.length > 0 ? Math.max(...counts) : null;
}

/**
 * Why a recommendation's words disagree with the claims it rests on: a number in its title or description
 * that no related insight's claim holds (projections belong in `expected_impact`), or none when they agree.
 */
export function recommendationNumberProblem(
  item: Pick<RawRecommendation, 'title' | 'description'>,
  related: readonly Insight[],
): string | undefined {
  const claims = related.flatMap((insight) => (insight.claim ? [insight.claim, ...insight.supporting_claims] : []));
  if (claims.length === 0) return undefined;
  const outside = numbersOutsideClaims(`${item.title}\n${item.description ?? ''}`, claims);
  return outside.length > 0
    ? `states ${outside.join(', ')}, which no claim of its insights (${related.map((insight) => insight.id).join(', ')}) holds`
    : undefined;
}

export function toRecommendations(
  raw: readonly RawRecommendation[],
  insights: readonly Insight[],
): { recommendations: Recommendation[]; droppedIds: string[]; rejected: Array<{ title: string; reason: string }> } {
  const byId = new Map(insights.map((insight) => [insight.id, insight]));
  const droppedIds: string[] = [];
  const rejected: Array<{ title: string; reason: string }> = [];
  const known = (id: string) => {
    if (byId.has(id)) return true;
    droppedIds.push(id);
    return false;
  };
  const ordered = raw
    .map((item, index) => ({ item, index }))
    .filter(({ item }) => {
      const problem = recommendationNumberProblem(
        item,
        [...new Set(item.related_insight_ids)].filter(known).map((id) => byId.get(id) as Insight),
      );
      if (problem) rejected.push({ title: item.title, reason: problem });
      return problem === undefined;
    })
    .sort((a, b) => a.item.priority - b.item.priority || a.index - b.index)
    .slice(0, MAX_RECOMMENDATIONS);
  const recommendations = ordered.map(({ item }, index): Recommendation => {
    const related = [...new Set(item.related_insight_ids)].filter((id) => byId.has(id));
    const maxVerified = maxVerifiedCount(related.map((id) => byId.get(id)!));
    // a size below zero or not finite is no size (a model may copy a signed value): unknown, not a failed phase
    const segmentSize =
      typeof item.segment_size === 'number' && Number.isFinite(item.segment_size) && item.segment_size >= 0 ? item.segment_size : null;
    return {
      id: `rec-${index + 1}`,
      title: item.title,
      description: item.description,
      priority: item.priority,
      category: item.category ?? '',
      target_segment: item.target_segment ?? '',
      segment_size: segmentSize,
      expected_impact: {
        metric: item.expected_impact?.metric ?? '',
        estimated_improvement: item.expected_impact?.estimated_improvement ?? '',
        reasoning: item.expected_impact?.reasoning ?? '',
      },
      actions: item.actions ?? [],
      related_insight_ids: related,
      effort: item.effort ?? null,
      success_metrics: item.success_metrics ?? [],
      confidence: item.confidence ?? null,
      segment_check:
        maxVerified === null || segmentSize === null
          ? { status: 'unverifiable', max_verified_count: maxVerified }
          : { status: segmentSize > maxVerified * 1.2 ? 'exceeds_verified' : 'consistent', max_verified_count: maxVerified },
    };
  });
  return { recommendations, droppedIds: [...new Set(droppedIds)], rejected };
}

async function recommendUntimed(deps: DiscoveryDeps, runId: string, signal?: AbortSignal): Promise<Recommendation[]> {
  const run = await assertRunActive(deps, runId, signal);
  if (run.recommendation_log.status === 'completed' || run.recommendation_log.status === 'skipped') return run.recommendations;
  const insights = usableInsights(run);
  if (insights.length === 0) {
    await deps.store.updateRun(runId, (current) => ({
      ...current,
      recommendation_log: { ...current.recommendation_log, status: 'skipped', error: 'no usable insights to base recommendations on' },
    }));
    return [];
  }
  await deps.store.updateRun(runId, (current) => ({
    ...current,
    phase: 'recommendations',
    phase_detail: 'writing recommendations',
    progress: Math.max(current.progress, 85),
  }));
  try {
    const project = await requireProject(deps, run.project_id);
    const setting = await loadRunSetting(deps, run, project, signal);
    const prompt = renderRecommendationsPrompt(setting.pack, {
      discoveryDate: deps.now().toISOString().slice(0, 10),
      insightsSummary: insightsSummary(insights),
      insightsData: compactInsights(insights),
    });
    const sections: PromptSection[] = [
      { id: 'base-context', role: 'system', text: setting.baseContext, priority: 50, shrink: 'truncate', minTokens: 200 },
      { id: 'recommendations', role: 'user', text: prompt, priority: 100, shrink: 'truncate', minTokens: 2_000 },
    ];
    const { entry } = modelFor(deps, 'recommendations').binding;
    const telescope =
      deps.config.compaction.evidence === 'telescope'
        ? await openFindingsTelescope(deps, {
            runId,
            source: setting.schema.warehouseHash,
            steps: await deps.store.listSteps(runId),
            findings: areaFindings(run, insights),
            family: entry.family,
            ...(signal ? { signal } : {}),
          })
        : undefined;
    if (telescope) {
      sections.push({ id: 'evidence', role: 'user', text: telescope.firstViewText, priority: 70, shrink: 'truncate', minTokens: 500 });
    }
    const { answer, promptTokensTotal } = await askWithDrillDown(deps, telescope, {
      runId,
      ...modelFor(deps, 'recommendations'),
      phase: 'recommendations',
      sections,
      maxOutputTokens: RECOMMENDATION_MAX_OUTPUT_TOKENS,
      signal,
      answer: recommendationsAnswer(RECOMMENDATION_REFORMAT_RETRIES),
      expansionBudgetTokens: Math.max(500, Math.floor(entry.contextWindow / 8)),
      family: entry.family,
    });
    if (telescope) {
      const figures = telescopeFigures(telescope, entry.family, promptTokensTotal);
      await deps.store.updateRun(runId, (current) => ({
        ...current,
        telemetry: {
          ...current.telemetry,
          telescope: mergeTelescopeTelemetry(current.telemetry.telescope, 'recommendations', figures, telescope.compactor.stats()),
        },
      }));
    }
    if (!answer.ok || answer.value.kind !== 'answer') {
      const reason = answer.ok ? 'the model kept asking to expand nodes' : answer.reason;
      throw new LlmError(`recommendations reply unusable after ${answer.retries + 1} attempts: ${reason}`, {
        kind: 'malformed_output',
        isRetryable: false,
        provider: deps.llm.provider.provider,
      });
    }
    const parsed = answer.value.value;
    const retries = answer.retries;
    const { recommendations, droppedIds, rejected } = toRecommendations(parsed.items, insights);
    if (droppedIds.length > 0) deps.logger.warn({ runId, droppedIds }, 'recommendations referenced unknown insight ids; dropped');
    if (rejected.length > 0) deps.logger.warn({ runId, rejected }, 'recommendations stated numbers their insights do not hold; left out');
    await deps.store.updateRun(runId, (current) => ({
      ...current,
      recommendations,
      recommendation_log: {
        status: 'completed',
        dropped_insight_ids: droppedIds,
        parse_retries: retries,
        ...(rejected.length > 0 ? { rejected } : {}),
      },
    }));
    return recommendations;
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    rethrowUnlessFinal(error);
    deps.logger.error({ runId, err: error }, 'recommendations failed');
    await deps.store.updateRun(runId, (current) => ({
      ...current,
      recommendation_log: { ...current.recommendation_log, status: 'failed', error: describeError(error) },
    }));
    return [];
  }
}

/** recommend, with its wall time added to `telemetry.phase_durations_ms.recommendations`. */
export const recommend = timedPhase('recommendations', recommendUntimed);
