/**
 * The cost estimate of a run, before it starts. Unlike a linear "N tokens per step" guess, it
 * models what the exploration loop really sends: each step re-sends the static prefix plus the
 * conversation so far, where the last `keepTurns` turns are full and older turns compacted, and
 * no request exceeds the model's prompt budget.
 *
 * Exploration input of step n (1-based), with P the static prefix, R a full turn, O a compacted
 * turn, K = keepTurns, h = n - 1 turns of history, C the cap on compacted history, B the
 * prompt budget:
 *
 *   input(n) = min(B, P + R·min(h, K) + min(C, O·max(0, h - K)))
 *
 * The per-step input grows by R per step for the first K+1 steps (the total grows
 * quadratically), then by only O per step once old turns are compacted (the total grows as
 * O·S²/2 instead of R·S²/2), and is flat once the compacted history reaches C or the prompt B.
 */
import type { LlmPhase } from '../domain/run.js';
import type { ModelCatalogEntry } from '../llm/catalog.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../llm/budgeted-call.js';
import { promptBudgetTokens } from '../llm/prompt-builder.js';
import { costUsd, type UsageByPhase } from '../llm/usage.js';

export interface LoopCompaction {
  /** Recent turns sent in full (agent-loop seed `_COMPACT_KEEP_TAIL`). */
  keepTurns: number;
  /** Tokens of one older, compacted turn (action summary + result digest head). */
  perOldTurnTokens: number;
  /** Tokens of one full turn (the assistant's action + the result message). */
  perRecentTurnTokens: number;
  /** Cap on all compacted turns together (loop compaction keeps the newest that fit); none when absent. */
  maxCompactedHistoryTokens?: number;
}

export interface RunCostInput {
  catalogEntry: ModelCatalogEntry;
  /** The Level-0 schema catalog in the exploration prompt. */
  catalogTokens: number;
  basePromptTokens: number;
  explorationPromptTokens: number;
  maxSteps: number;
  areas: number;
  /** Average analysis prompt template per area. @defaultValue 1500 */
  avgAnalysisPromptTokens?: number;
  /** @defaultValue 2 (as the reference estimate) */
  insightsPerArea?: number;
  loopCompaction: LoopCompaction;
  /** Output of one exploration step (one action JSON). @defaultValue 600 */
  explorationOutputTokensPerStep?: number;
  /** Share of the exploration steps whose digests an area's analysis prompt carries. @defaultValue 0.5 */
  stepsPerAreaShare?: number;
}

export interface PhaseCost {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export type EstimatedPhase = 'exploration' | 'analysis' | 'verification' | 'recommendations';

export interface RunCostEstimate {
  llm: { model: string; input_tokens: number; output_tokens: number; cost_usd: number };
  breakdown: Record<EstimatedPhase, PhaseCost>;
  /** Every number the estimate used, and what it leaves out. */
  assumptions: Record<string, number | string>;
}

/** Reference figures (DecisionBox estimate) where Assay has nothing better yet. */
export const ESTIMATE_DEFAULTS = {
  explorationOutputTokensPerStep: 600,
  avgAnalysisPromptTokens: 1_500,
  analysisOutputTokens: 2_000,
  insightsPerArea: 2,
  stepsPerAreaShare: 0.5,
  /** Recommendations prompt template, and one compacted insight in it. */
  recommendationsPromptTokens: 1_500,
  tokensPerInsight: 250,
  recommendationsOutputTokens: 3_000,
  /** The first user message ("Begin… up to N steps", budgets). */
  explorationKickoffTokens: 150,
} as const;

function phaseCost(entry: ModelCatalogEntry, calls: number, inputTokens: number, outputTokens: number): PhaseCost {
  return {
    calls,
    input_tokens: Math.round(inputTokens),
    output_tokens: Math.round(outputTokens),
    cost_usd: costUsd(entry, inputTokens, outputTokens),
  };
}

/** Input tokens of exploration step `step` (1-based): see the formula in the module comment. */
export function explorationStepInputTokens(step: number, prefixTokens: number, compaction: LoopCompaction, budgetTokens: number): number {
  const history = step - 1;
  const recent = Math.min(history, compaction.keepTurns);
  const old = Math.max(0, history - compaction.keepTurns);
  const compacted = Math.min(compaction.maxCompactedHistoryTokens ?? Number.POSITIVE_INFINITY, old * compaction.perOldTurnTokens);
  return Math.min(budgetTokens, prefixTokens + recent * compaction.perRecentTurnTokens + compacted);
}

export function estimateRunCost(input: RunCostInput): RunCostEstimate {
  const entry = input.catalogEntry;
  const outputPerStep = input.explorationOutputTokensPerStep ?? ESTIMATE_DEFAULTS.explorationOutputTokensPerStep;
  const avgAnalysisPrompt = input.avgAnalysisPromptTokens ?? ESTIMATE_DEFAULTS.avgAnalysisPromptTokens;
  const insightsPerArea = input.insightsPerArea ?? ESTIMATE_DEFAULTS.insightsPerArea;
  const stepsPerAreaShare = input.stepsPerAreaShare ?? ESTIMATE_DEFAULTS.stepsPerAreaShare;
  const budgetFor = (maxOutputTokens: number): number =>
    promptBudgetTokens({
      contextWindow: entry.contextWindow,
      maxOutputTokens: Math.min(maxOutputTokens, entry.maxOutputTokens),
      maxInputTokens: entry.maxInputTokens,
    });

  const prefixTokens =
    input.basePromptTokens + input.explorationPromptTokens + input.catalogTokens + ESTIMATE_DEFAULTS.explorationKickoffTokens;
  const explorationBudget = budgetFor(DEFAULT_MAX_OUTPUT_TOKENS);
  let explorationInput = 0;
  for (let step = 1; step <= input.maxSteps; step += 1) {
    explorationInput += explorationStepInputTokens(step, prefixTokens, input.loopCompaction, explorationBudget);
  }
  const exploration = phaseCost(entry, input.maxSteps, explorationInput, input.maxSteps * outputPerStep);

  const digestsPerArea = Math.ceil(input.maxSteps * stepsPerAreaShare) * input.loopCompaction.perRecentTurnTokens;
  const analysisInputPerArea = Math.min(budgetFor(DEFAULT_MAX_OUTPUT_TOKENS), input.basePromptTokens + avgAnalysisPrompt + digestsPerArea);
  const analysis = phaseCost(entry, input.areas, input.areas * analysisInputPerArea, input.areas * ESTIMATE_DEFAULTS.analysisOutputTokens);

  const insights = input.areas * insightsPerArea;
  // verification recounts claims with the engine's own SQL: no model call
  const verification = phaseCost(entry, 0, 0, 0);

  const recommendationsInput =
    input.basePromptTokens + ESTIMATE_DEFAULTS.recommendationsPromptTokens + insights * ESTIMATE_DEFAULTS.tokensPerInsight;
  const recommendations =
    insights === 0 ? phaseCost(entry, 0, 0, 0) : phaseCost(entry, 1, recommendationsInput, ESTIMATE_DEFAULTS.recommendationsOutputTokens);

  const breakdown = { exploration, analysis, verification, recommendations };
  const phases = Object.values(breakdown);
  return {
    llm: {
      model: `${entry.provider}:${entry.model}`,
      input_tokens: phases.reduce((sum, phase) => sum + phase.input_tokens, 0),
      output_tokens: phases.reduce((sum, phase) => sum + phase.output_tokens, 0),
      cost_usd: phases.reduce((sum, phase) => sum + phase.cost_usd, 0),
    },
    breakdown,
    assumptions: {
      exploration_prefix_tokens: prefixTokens,
      keep_turns: input.loopCompaction.keepTurns,
      per_recent_turn_tokens: input.loopCompaction.perRecentTurnTokens,
      per_old_turn_tokens: input.loopCompaction.perOldTurnTokens,
      max_compacted_history_tokens: input.loopCompaction.maxCompactedHistoryTokens ?? 'none',
      exploration_output_tokens_per_step: outputPerStep,
      exploration_prompt_budget_tokens: explorationBudget,
      steps: `all ${input.maxSteps} steps run (no early "done")`,
      analysis_input_tokens_per_area: analysisInputPerArea,
      analysis_steps_per_area_share: stepsPerAreaShare,
      insights_per_area: insightsPerArea,
      excluded: 'SQL-fix calls, reformat retries and provider overflow retries; prompt-cache discounts',
    },
  };
}

/** Which recorded phases count towards which estimated phase. */
const PHASES_OF: Record<EstimatedPhase, LlmPhase[]> = {
  exploration: ['exploration', 'sql_fix'],
  analysis: ['analysis'],
  verification: ['verification'],
  recommendations: ['recommendations'],
};

export interface EstimateComparison {
  phase: EstimatedPhase;
  estimated_input_tokens: number;
  actual_input_tokens: number;
  estimated_cost_usd: number;
  actual_cost_usd: number;
  /** actual / estimated input tokens; undefined when nothing was estimated. */
  input_ratio: number | undefined;
}

/** Estimate vs a run's recorded `usage_by_phase`, phase by phase — for calibrating the estimate against real or simulated runs. */
export function compareEstimateWithUsage(estimate: RunCostEstimate, usageByPhase: UsageByPhase): EstimateComparison[] {
  return (Object.keys(PHASES_OF) as EstimatedPhase[]).map((phase) => {
    const models = PHASES_OF[phase].flatMap((recorded) => Object.values(usageByPhase[recorded] ?? {}));
    const actualInput = models.reduce((sum, totals) => sum + totals.input_tokens, 0);
    const actualCost = models.reduce((sum, totals) => sum + totals.cost_usd, 0);
    const estimated = estimate.breakdown[phase];
    return {
      phase,
      estimated_input_tokens: estimated.input_tokens,
      actual_input_tokens: actualInput,
      estimated_cost_usd: estimated.cost_usd,
      actual_cost_usd: actualCost,
      input_ratio: estimated.input_tokens > 0 ? actualInput / estimated.input_tokens : undefined,
    };
  });
}
