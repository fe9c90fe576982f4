/**
 * Phase 5, one area: pick the exploration steps that matter to the area (vector rank + keyword
 * floor + token budget), render them as digests, ask the model for insights (one reformat retry),
 * and store the area's outcome. A failure marks the area failed; it never fails the run by itself.
 */
import { assembleAreaQueryResults } from '../../compaction/area-query-results.js';
import { searchStepsForArea } from '../../compaction/run-step-index.js';
import { claimSchema, type AreaRun, type ExplorationStep, type Insight, type Run } from '../../domain/index.js';
import { CancelledError, LlmError, NotFoundError, describeError } from '../../errors/index.js';
import { promptBudgetTokens, type PromptSection } from '../../llm/prompt-builder.js';
import { estimateTokens } from '../../llm/tokens.js';
import { assertRunActive, modelFor, requireProject, type DiscoveryDeps } from '../context.js';
import { insightsAnswer, type RawInsight } from '../parsing/output-parser.js';
import type { AnalysisArea } from '../packs/pack-schema.js';
import { datasetNames, renderAnalysisPrompt } from '../packs/prompt-assembly.js';
import { rethrowUnlessFinal } from '../pipeline/error-policy.js';
import { areaEvidenceBudget } from './area-evidence-budget.js';
import { loadRunSetting } from './run-setting.js';
import { askWithDrillDown, mergeTelescopeTelemetry, openTelescope, telescopeFigures, type TelescopeSession } from './telescope-evidence.js';
import { timedPhase } from './phase-timing.js';

/** Reformat retries for an unusable analysis reply. */
export const ANALYSIS_REFORMAT_RETRIES = 2;
/** Output budget of one analysis call: room for a dozen detailed insights. */
export const ANALYSIS_MAX_OUTPUT_TOKENS = 8_192;
/**
 * What every analysis prompt adds to the pack's item shape: a measurable claim the verifier recounts
 * with SQL it builds itself (src/domain/claim.ts). Without one, only the insight's count is checked.
 */
export const CLAIM_INSTRUCTIONS = [
  'Give every insight a "claim" the warehouse can recount, in this shape (use exact table and column names from the evidence):',
  '"claim": {"metric": {"kind": "count|share|mean|median|sum|rate|duration_mean|distinct_count", "table": "schema.table", "column": "…",',
  '"start_column": "…", "end_column": "…", "unit": "days", "condition": {"column": "…", "op": "=", "value": …}, "filters": [], "label": "…"},',
  '"segment": {"column": "…", "value": …, "grain": "month"}, "comparison": {"kind": "rest"} | {"kind": "all"} | {"kind": "group", "group": {"column": "…", "value": …}},',
  '"value": <the metric on the segment>, "comparison_value": <the metric on the comparison side>, "direction": "higher|lower"}.',
  'Only column/start_column/end_column/unit/condition/grain where the kind needs them. The verifier recomputes both values: a claim whose direction does not hold is rejected.',
].join('\n');

/** Insights kept per area; more is noise for the reader and for recommendations. */
export const MAX_INSIGHTS_PER_AREA = 12;

export type AreaOutcome = Pick<AreaRun, 'status' | 'error' | 'insight_ids'>;

/** Steps whose results an insight may cite: successful queries. */
function citableSteps(steps: readonly ExplorationStep[]): Set<number> {
  return new Set(steps.filter((step) => step.action === 'query' && !step.error).map((step) => step.step));
}

/** Turns validated model output into insights with deterministic ids and checked citations. */
export function toInsights(
  area: Pick<AnalysisArea, 'id'>,
  raw: readonly RawInsight[],
  citable: ReadonlySet<number>,
  discoveredAt: string,
): { insights: Insight[]; notes: string[] } {
  const notes: string[] = [];
  const insights = raw.slice(0, MAX_INSIGHTS_PER_AREA).map((item, index): Insight => {
    const cited = [...new Set(item.source_steps)].sort((a, b) => a - b);
    const unknown = cited.filter((step) => !citable.has(step));
    if (unknown.length > 0)
      notes.push(`${area.id}-${index + 1}: dropped citations of steps ${unknown.join(', ')} (no such successful query)`);
    const claim = item.claim === undefined ? undefined : claimSchema.safeParse(item.claim);
    if (claim && !claim.success) {
      notes.push(
        `${area.id}-${index + 1}: dropped a malformed claim (${claim.error.issues
          .slice(0, 2)
          .map((issue) => `${issue.path.join('.') || 'claim'}: ${issue.message}`)
          .join('; ')}); only its count can be checked`,
      );
    }
    return {
      ...(claim?.success ? { claim: claim.data } : {}),
      id: `${area.id}-${index + 1}`,
      analysis_area: area.id,
      name: item.name,
      description: item.description,
      severity: item.severity,
      affected_count: item.affected_count ?? null,
      risk_score: item.risk_score ?? null,
      confidence: item.confidence ?? null,
      metrics: item.metrics ?? {},
      indicators: item.indicators ?? [],
      target_segment: item.target_segment ?? '',
      source_steps: cited.filter((step) => citable.has(step)),
      discovered_at: discoveredAt,
    };
  });
  if (raw.length > MAX_INSIGHTS_PER_AREA) notes.push(`kept the first ${MAX_INSIGHTS_PER_AREA} of ${raw.length} insights`);
  return { insights, notes };
}

async function updateArea(
  deps: DiscoveryDeps,
  runId: string,
  areaId: string,
  patch: (area: AreaRun) => AreaRun,
  telemetryDelta?: Partial<Pick<Run['telemetry'], 'analysis_step_search_calls' | 'analysis_steps_dropped'>>,
): Promise<Run> {
  return deps.store.updateRun(runId, (run) => ({
    ...run,
    areas: run.areas.map((area) => (area.area_id === areaId ? patch(area) : area)),
    telemetry: {
      ...run.telemetry,
      analysis_step_search_calls: run.telemetry.analysis_step_search_calls + (telemetryDelta?.analysis_step_search_calls ?? 0),
      analysis_steps_dropped: run.telemetry.analysis_steps_dropped + (telemetryDelta?.analysis_steps_dropped ?? 0),
    },
  }));
}

async function analyzeAreaUntimed(deps: DiscoveryDeps, runId: string, areaId: string, signal?: AbortSignal): Promise<AreaOutcome> {
  const run = await assertRunActive(deps, runId, signal);
  const stored = run.areas.find((area) => area.area_id === areaId);
  if (!stored) throw new NotFoundError(`run ${runId} has no area "${areaId}"`, { runId, areaId });
  // a redelivered job for a settled area does not spend tokens again
  if (stored.status === 'completed' || stored.status === 'skipped') return stored;
  const started = Date.now();
  await updateArea(deps, runId, areaId, (area) => ({ ...area, status: 'running', error: undefined }));
  try {
    const project = await requireProject(deps, run.project_id);
    const setting = await loadRunSetting(deps, run, project, signal);
    const area = setting.areas.find((candidate) => candidate.id === areaId);
    if (!area) throw new NotFoundError(`area "${areaId}" is not part of pack "${setting.pack.slug}"`);
    const steps = await deps.store.listSteps(runId);
    const hits = await searchStepsForArea({
      embedder: deps.embedder,
      index: deps.vectorIndex,
      runId,
      area,
      stepCount: steps.length,
      ...(signal ? { signal } : {}),
    });

    const { entry } = deps.llm;
    const dataset = datasetNames(setting.schema.tables);
    const skeleton = renderAnalysisPrompt(setting.pack, area, { dataset, totalQueries: 0, queryResults: '' });
    const room =
      promptBudgetTokens({
        contextWindow: entry.contextWindow,
        maxOutputTokens: Math.min(ANALYSIS_MAX_OUTPUT_TOKENS, entry.maxOutputTokens),
        maxInputTokens: entry.maxInputTokens,
      }) -
      estimateTokens(setting.baseContext, entry.family) -
      estimateTokens(skeleton, entry.family) -
      1_000; // room for a reformat exchange
    const budgetTokens = areaEvidenceBudget({
      area,
      steps,
      hits,
      ceilingTokens: Math.min(run.settings.analysis_budget_tokens, room),
      family: entry.family,
    });
    const block = assembleAreaQueryResults({ area, steps, hits, budgetTokens, family: entry.family });
    const telemetry = { analysis_step_search_calls: 1, analysis_steps_dropped: block.dropped_steps.length };

    if (block.selected_steps.length === 0) {
      await updateArea(
        deps,
        runId,
        areaId,
        (current) => ({
          ...current,
          status: 'skipped',
          error: `no exploration step was relevant to this area (${steps.length} steps considered)`,
          selected_steps: [],
          dropped_steps: block.dropped_steps,
          duration_ms: Date.now() - started,
        }),
        telemetry,
      );
      return { status: 'skipped', error: 'no relevant exploration steps', insight_ids: [] };
    }

    const rankedSteps = block.selected_steps.map((picked) => picked.step);
    const telescope: TelescopeSession | undefined =
      deps.config.compaction.evidence === 'telescope'
        ? await openTelescope(deps, {
            runId,
            areaId,
            areaName: area.name,
            source: setting.schema.warehouseHash,
            steps,
            rankedSteps,
            budgetTokens,
            referenceTokens: block.tokens,
            family: entry.family,
            ...(signal ? { signal } : {}),
          })
        : undefined;
    const queryResults = telescope ? telescope.firstViewText : block.text;
    const prompt = renderAnalysisPrompt(setting.pack, area, { dataset, totalQueries: block.selected_steps.length, queryResults });
    const sections: PromptSection[] = [
      { id: 'base-context', role: 'system', text: setting.baseContext, priority: 50, shrink: 'truncate', minTokens: 200 },
      { id: 'analysis', role: 'user', text: `${prompt}\n\n${CLAIM_INSTRUCTIONS}`, priority: 100, shrink: 'none' },
    ];
    const { answer, promptTokensTotal } = await askWithDrillDown(deps, telescope, {
      runId,
      ...modelFor(deps, 'analysis'),
      phase: 'analysis',
      sections,
      maxOutputTokens: ANALYSIS_MAX_OUTPUT_TOKENS,
      signal,
      area: areaId,
      answer: insightsAnswer(ANALYSIS_REFORMAT_RETRIES),
      expansionBudgetTokens: Math.max(500, Math.floor(budgetTokens / 2)),
      family: entry.family,
    });
    if (telescope) {
      const areaFigures = telescopeFigures(telescope, entry.family, promptTokensTotal);
      await deps.store.updateRun(runId, (current) => ({
        ...current,
        telemetry: {
          ...current.telemetry,
          telescope: mergeTelescopeTelemetry(current.telemetry.telescope, areaId, areaFigures, telescope.compactor.stats()),
        },
      }));
    }
    if (!answer.ok || answer.value.kind !== 'answer') {
      const reason = answer.ok ? 'the model kept asking to expand nodes' : answer.reason;
      throw new LlmError(`analysis reply unusable after ${answer.retries + 1} attempts: ${reason}`, {
        kind: 'malformed_output',
        isRetryable: false,
        provider: deps.llm.provider.provider,
      });
    }
    const parsed = answer.value.value;
    const retries = answer.retries;
    const promptTokens = answer.promptTokens;
    const { insights, notes } = toInsights(area, parsed.items, citableSteps(steps), deps.now().toISOString());
    const droppedOutputs = [...parsed.dropped.map((item) => `insight #${item.index + 1}: ${item.reason}`), ...notes];
    if (droppedOutputs.length > 0) deps.logger.warn({ runId, area: areaId, dropped: droppedOutputs }, 'some analysis output was dropped');
    await updateArea(
      deps,
      runId,
      areaId,
      (current) => ({
        ...current,
        status: 'completed',
        error: undefined,
        insights,
        insight_ids: insights.map((insight) => insight.id),
        selected_steps: block.selected_steps,
        dropped_steps: block.dropped_steps,
        query_results_chars: block.query_results_chars,
        prompt_tokens: promptTokens,
        duration_ms: Date.now() - started,
        parse_retries: retries,
        dropped_outputs: droppedOutputs,
      }),
      telemetry,
    );
    return { status: 'completed', insight_ids: insights.map((insight) => insight.id) };
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    // retryable failures go back to the driver with the area still `running`; a redelivery redoes it
    rethrowUnlessFinal(error);
    const message = describeError(error);
    deps.logger.error({ runId, area: areaId, err: error }, 'area analysis failed');
    await updateArea(deps, runId, areaId, (current) => ({
      ...current,
      status: 'failed',
      error: message,
      duration_ms: Date.now() - started,
    }));
    return { status: 'failed', error: message, insight_ids: [] };
  }
}

/** analyzeArea, with its wall time added to `telemetry.phase_durations_ms.analysis`. */
export const analyzeArea = timedPhase('analysis', analyzeAreaUntimed);
