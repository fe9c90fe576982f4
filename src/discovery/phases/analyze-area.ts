/**
 * Phase 5, one area: pick the exploration steps that matter to the area (vector rank + keyword
 * floor + token budget), render them as digests, ask the model for insights (one reformat retry),
 * and store the area's outcome. A failure marks the area failed; it never fails the run by itself.
 */
import { assembleAreaQueryResults } from '../../compaction/area-query-results.js';
import { searchStepsForArea } from '../../compaction/run-step-index.js';
import type { AreaRun, ExplorationStep, Run } from '../../domain/index.js';
import { CancelledError, LlmError, NotFoundError, describeError } from '../../errors/index.js';
import { promptBudgetTokens, type PromptSection } from '../../llm/prompt-builder.js';
import { estimateTokens } from '../../llm/tokens.js';
import { assertRunActive, modelFor, requireProject, type DiscoveryDeps } from '../context.js';
import { fenceData } from '../../llm/data-fence.js';
import { findingsForArea, renderFindings } from '../mining/evidence.js';
import { insightsAnswer } from '../parsing/output-parser.js';
import { datasetNames, renderAnalysisPrompt } from '../packs/prompt-assembly.js';
import { rethrowUnlessFinal } from '../pipeline/error-policy.js';
import { areaEvidenceBudget } from './area-evidence-budget.js';
import { loadRunSetting } from './run-setting.js';
import { askWithDrillDown, mergeTelescopeTelemetry, openTelescope, telescopeFigures, type TelescopeSession } from './telescope-evidence.js';
import { buildInsights } from './insight-builder.js';
import { timedPhase } from './phase-timing.js';

/** Reformat retries for an unusable analysis reply. */
export const ANALYSIS_REFORMAT_RETRIES = 2;
/** Output budget of one analysis call: room for a handful of detailed insights. */
export const ANALYSIS_MAX_OUTPUT_TOKENS = 8_192;
/** Heading of the mined-findings section of an analysis prompt (the offline narrator finds it by it). */
export const FINDINGS_HEADING = 'Mined findings';
/**
 * What every analysis prompt adds to the pack's item shape: how to use the mined findings, and a claim
 * for anything the findings do not cover (docs/claims.md). Without a claim an insight stays unverified.
 */
export const CLAIM_INSTRUCTIONS = [
  'Each insight rests on mined findings: list their ids in "findings" (the first is the main fact; add others that say more about the same thing).',
  'Leave "name" and "description" out to have them written from the findings\' claims, or write them yourself using exactly the numbers of the findings you cite — text that disagrees with its claim is rejected.',
  'For a fact no finding states, give a "claim" the warehouse can recount instead (shape in docs/claims.md):',
  '"claim": {"kind": "difference|share|trend|shift|correlation", "metric": {"kind": "count|share|mean|median|sum|rate|duration_mean|distinct_count", "table": "schema.table", "column": "…", "condition": {"column": "…", "op": "=", "value": …}, "label": "…"},',
  '"segment": {"column": "…", "value": …}, "comparison": {"kind": "rest"}, "value": <segment value>, "comparison_value": <comparison value>, "direction": "higher|lower"}.',
  'An insight with neither findings nor a claim is kept as unverified and never shown as confirmed. Prefer five solid insights to many weak ones.',
].join('\n');

export type AreaOutcome = Pick<AreaRun, 'status' | 'error' | 'insight_ids'>;

/** Steps whose results an insight may cite: successful queries. */
function citableSteps(steps: readonly ExplorationStep[]): Set<number> {
  return new Set(steps.filter((step) => step.action === 'query' && !step.error).map((step) => step.step));
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
    const findings = findingsForArea(run.mining, areaId, deps.config.mining.findingsPerArea);
    const findingsText = renderFindings(findings);
    const findingsSection = findingsText
      ? `${FINDINGS_HEADING} for this area (computed by the engine with its own SQL and corrected for multiple testing):\n${fenceData(findingsText)}`
      : `${FINDINGS_HEADING}: none for this area.`;
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
      estimateTokens(findingsSection, entry.family) -
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

    if (block.selected_steps.length === 0 && findings.length === 0) {
      await updateArea(
        deps,
        runId,
        areaId,
        (current) => ({
          ...current,
          status: 'skipped',
          error: `no mined finding and no exploration step was about this area (${run.mining?.findings.length ?? 0} findings and ${steps.length} steps considered)`,
          selected_steps: [],
          dropped_steps: block.dropped_steps,
          duration_ms: Date.now() - started,
        }),
        telemetry,
      );
      return { status: 'skipped', error: 'no mined finding and no relevant exploration step', insight_ids: [] };
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
      { id: 'findings', role: 'user', text: findingsSection, priority: 90, shrink: 'truncate', minTokens: 200 },
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
    const byId = new Map((run.mining?.findings ?? []).map((finding) => [finding.id, finding]));
    const nouns = new Map((run.mining?.findings ?? []).map((finding) => [finding.claim.metric.table, finding.noun]));
    const { insights, notes } = buildInsights({
      areaId: area.id,
      raw: parsed.items,
      findings: byId,
      citable: citableSteps(steps),
      discoveredAt: deps.now().toISOString(),
      cap: deps.config.mining.insightsPerArea,
      nounOf: (table) => nouns.get(table) ?? 'rows',
      evidence: block.selected_steps
        .map((picked) => steps.find((step) => step.step === picked.step))
        .filter((step) => step !== undefined)
        .map((step) => ({ step: step.step, sql: step.executed_query ?? step.query ?? '' })),
    });
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
