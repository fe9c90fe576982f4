/**
 * The cost estimate of a run, before it starts, with and without prompt caching. It models what the
 * exploration loop really sends, step by step: the static prefix (system prompt with pack and catalog,
 * tool definitions), the opening (kickoff, working notes), the shortened history and the verbatim tail,
 * with turns leaving the tail `tailGrowthTurns` at a time; and, for each step, what a prompt cache holds
 * from the step before, by the model's caching rules:
 *
 * - breakpoints (Anthropic, Bedrock): a step reads the previous prompt and writes its newest turn; when
 *   turns leave the tail it reads up to the end of the old shortened history and writes the rest; when
 *   the notes change it reads the system prompt only. Writes cost the cache-write price.
 * - automatic (OpenAI): the same shared prefix is read, in 128-token steps from 1,024 tokens; nothing
 *   costs more than the input price.
 *
 * Exploration input of step n (1-based), with P the static prefix, O the opening, h = n − 1 turns of
 * history of which c are shortened (c grows in blocks of the tail growth once more than K turns exist),
 * R a full turn, S a shortened one, C the cap on shortened history and B the prompt budget:
 *
 *   input(n) = min(B, P + O + min(C, S·c) + R·(h − c))
 *
 * Analysis carries each area's best-ranked steps, at most AREA_EVIDENCE_MAX_STEPS digests of them
 * (area-evidence-budget.ts), not as many as the budget would hold.
 */
import type { LlmPhase } from '../domain/run.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../llm/budgeted-call.js';
import type { ModelCatalogEntry } from '../llm/catalog.js';
import { promptBudgetTokens } from '../llm/prompt-builder.js';
import { costUsd, type UsageByPhase } from '../llm/usage.js';
import { AREA_EVIDENCE_MAX_STEPS } from './phases/area-evidence-budget.js';

export interface LoopCompaction {
  /** Recent turns always sent in full (agent-loop seed `_COMPACT_KEEP_TAIL` / 2). */
  keepTurns: number;
  /** Turns that leave the verbatim tail together (exploration's tail growth / 2). @defaultValue 1 */
  tailGrowthTurns?: number;
  /** Tokens of one older, shortened turn (action head + result digest line). */
  perOldTurnTokens: number;
  /** Tokens of one full turn (the model's action + the result message). */
  perRecentTurnTokens: number;
  /** Cap on all shortened turns together (loop compaction keeps the newest that fit); none when absent. */
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
  /** @defaultValue ESTIMATE_DEFAULTS.insightsPerArea */
  insightsPerArea?: number;
  loopCompaction: LoopCompaction;
  /** Output of one exploration step (one action). @defaultValue ESTIMATE_DEFAULTS.explorationOutputTokensPerStep */
  explorationOutputTokensPerStep?: number;
  /** Share of the exploration steps relevant to an area (at most AREA_EVIDENCE_MAX_STEPS enter its prompt). @defaultValue 0.5 */
  stepsPerAreaShare?: number;
  /** Tool definitions and the answer note sent with every exploration call (0 for the text protocol). @defaultValue 0 */
  explorationToolTokens?: number;
  /** The model's working notes in the opening, and the steps after which they stop changing. */
  notes?: { tokens: number; settledAfterStep: number };
}

export interface PhaseCost {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  /** Without prompt caching: every input token at the input price. */
  cost_usd: number;
  /** Of `input_tokens`, read from and written to the prompt cache when caching is on. */
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** With prompt caching (the default). */
  cost_usd_cached: number;
}

export type EstimatedPhase = 'exploration' | 'analysis' | 'verification' | 'recommendations';

export interface RunCostEstimate {
  llm: {
    model: string;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number;
    cache_read_tokens: number;
    cache_write_tokens: number;
    cost_usd_cached: number;
  };
  breakdown: Record<EstimatedPhase, PhaseCost>;
  /** Every number the estimate used, and what it leaves out. */
  assumptions: Record<string, number | string>;
}

/**
 * Sizes where the estimate has nothing better than a measurement. Measured on the 60-step e-commerce
 * demo run through the LLM simulator (offline analyst, tools protocol; docs/llm.md): a model that writes
 * longer actions or finds more insights costs more.
 */
export const ESTIMATE_DEFAULTS = {
  /** One action (thinking, purpose, SQL): 28,780 output tokens over 60 steps. */
  explorationOutputTokensPerStep: 480,
  avgAnalysisPromptTokens: 1_500,
  /** One area's digests per step in its prompt: 22,418–31,012 tokens for 19–24 steps, template included. */
  analysisDigestTokensPerStep: 1_050,
  /**
   * One area's reply: about five insights citing their findings, with a claim or words of the model's own
   * (~150 tokens each, plus the call's wrapper). The offline narrator writes 157 tokens for 3 areas, since
   * it leaves the words to the claims; a model that writes its own is what this prices.
   */
  analysisOutputTokens: 1_000,
  /** The default cap (`mining.insightsPerArea`): what the recommendations prompt lists. */
  insightsPerArea: 5,
  /** Recommendations prompt template, and one compacted insight in it. */
  recommendationsPromptTokens: 1_500,
  tokensPerInsight: 200,
  /** 3,280 output tokens for 15 insights. */
  recommendationsOutputTokens: 3_300,
  /** The first user message ("Begin… up to N steps", budgets, how notes work). */
  explorationKickoffTokens: 200,
} as const;

/** Automatic caching (OpenAI) reads a shared prefix from this many tokens, in steps of AUTOMATIC_CACHE_STEP. */
const AUTOMATIC_CACHE_MIN = 1_024;
const AUTOMATIC_CACHE_STEP = 128;

interface CallTokens {
  input: number;
  output: number;
  read: number;
  write: number;
}

function phaseCost(entry: ModelCatalogEntry, calls: readonly CallTokens[]): PhaseCost {
  const sum = (pick: (call: CallTokens) => number): number => calls.reduce((total, call) => total + pick(call), 0);
  const input = sum((call) => call.input);
  const output = sum((call) => call.output);
  const read = sum((call) => call.read);
  const write = sum((call) => call.write);
  return {
    calls: calls.length,
    input_tokens: Math.round(input),
    output_tokens: Math.round(output),
    cost_usd: calls.reduce((total, call) => total + costUsd(entry, call.input, call.output), 0),
    cache_read_tokens: Math.round(read),
    cache_write_tokens: Math.round(write),
    cost_usd_cached: calls.reduce(
      (total, call) => total + costUsd(entry, call.input, call.output, { read: call.read, write: call.write }),
      0,
    ),
  };
}

/** What one call reads from and writes to the cache, given the prefix a previous call left cached. */
function cacheUse(entry: ModelCatalogEntry, prompt: number, cachedPrefix: number, newPrefix: number): { read: number; write: number } {
  if (entry.promptCache === 'none') return { read: 0, write: 0 };
  if (entry.promptCache === 'automatic') {
    const shared = Math.min(cachedPrefix, prompt);
    const read =
      shared < AUTOMATIC_CACHE_MIN
        ? 0
        : AUTOMATIC_CACHE_MIN + Math.floor((shared - AUTOMATIC_CACHE_MIN) / AUTOMATIC_CACHE_STEP) * AUTOMATIC_CACHE_STEP;
    return { read, write: 0 };
  }
  const read = cachedPrefix >= entry.minCacheableTokens ? Math.min(cachedPrefix, prompt) : 0;
  const write = newPrefix >= entry.minCacheableTokens ? Math.max(0, newPrefix - read) : 0;
  return { read, write };
}

interface ExplorationShape {
  /** Turns of history that are shortened at step `step`. */
  shortened: number;
  input: number;
  /** The system prompt and tools: what stays cached when the opening changes. */
  system: number;
  /** System, opening and shortened history: what stays cached when turns leave the tail. */
  stable: number;
  opening: number;
}

function explorationShape(step: number, prefix: number, opening: number, compaction: LoopCompaction, budget: number): ExplorationShape {
  const history = step - 1;
  const growth = Math.max(1, compaction.tailGrowthTurns ?? 1);
  const shortened = Math.floor(Math.max(0, history - compaction.keepTurns) / growth) * growth;
  const middle = Math.min(compaction.maxCompactedHistoryTokens ?? Number.POSITIVE_INFINITY, shortened * compaction.perOldTurnTokens);
  const input = Math.min(budget, prefix + opening + middle + (history - shortened) * compaction.perRecentTurnTokens);
  return { shortened, input, system: prefix, stable: Math.min(input, prefix + opening + middle), opening };
}

/** Input tokens of exploration step `step` (1-based): see the formula in the module comment. */
export function explorationStepInputTokens(step: number, prefixTokens: number, compaction: LoopCompaction, budgetTokens: number): number {
  return explorationShape(step, prefixTokens, 0, compaction, budgetTokens).input;
}

function explorationCalls(input: RunCostInput, prefix: number, budget: number, outputPerStep: number): CallTokens[] {
  const entry = input.catalogEntry;
  const calls: CallTokens[] = [];
  let previous: ExplorationShape | undefined;
  for (let step = 1; step <= input.maxSteps; step += 1) {
    const notes = input.notes && step > 1 ? input.notes.tokens : 0;
    const shape = explorationShape(step, prefix, ESTIMATE_DEFAULTS.explorationKickoffTokens + notes, input.loopCompaction, budget);
    const notesChanged = input.notes !== undefined && step > 1 && step <= input.notes.settledAfterStep + 1;
    let cached = 0;
    if (previous && (notesChanged || previous.opening !== shape.opening)) cached = shape.system;
    else if (previous && previous.shortened !== shape.shortened) cached = previous.stable;
    else if (previous) cached = previous.input;
    const { read, write } = cacheUse(entry, shape.input, cached, shape.input);
    calls.push({ input: shape.input, output: outputPerStep, read, write });
    previous = shape;
  }
  return calls;
}

export function estimateRunCost(input: RunCostInput): RunCostEstimate {
  const entry = input.catalogEntry;
  const outputPerStep = input.explorationOutputTokensPerStep ?? ESTIMATE_DEFAULTS.explorationOutputTokensPerStep;
  const avgAnalysisPrompt = input.avgAnalysisPromptTokens ?? ESTIMATE_DEFAULTS.avgAnalysisPromptTokens;
  const insightsPerArea = input.insightsPerArea ?? ESTIMATE_DEFAULTS.insightsPerArea;
  const stepsPerAreaShare = input.stepsPerAreaShare ?? 0.5;
  const budgetFor = (maxOutputTokens: number): number =>
    promptBudgetTokens({
      contextWindow: entry.contextWindow,
      maxOutputTokens: Math.min(maxOutputTokens, entry.maxOutputTokens),
      maxInputTokens: entry.maxInputTokens,
    });

  const prefixTokens = input.basePromptTokens + input.explorationPromptTokens + input.catalogTokens + (input.explorationToolTokens ?? 0);
  const explorationBudget = budgetFor(DEFAULT_MAX_OUTPUT_TOKENS);
  const exploration = phaseCost(entry, explorationCalls(input, prefixTokens, explorationBudget, outputPerStep));

  // each area: the shared base context (cacheable across areas), then its own prompt and evidence
  const evidenceSteps = Math.min(AREA_EVIDENCE_MAX_STEPS, Math.ceil(input.maxSteps * stepsPerAreaShare));
  const analysisInputPerArea = Math.min(
    budgetFor(DEFAULT_MAX_OUTPUT_TOKENS),
    input.basePromptTokens + avgAnalysisPrompt + evidenceSteps * ESTIMATE_DEFAULTS.analysisDigestTokensPerStep,
  );
  const analysis = phaseCost(
    entry,
    Array.from({ length: input.areas }, (_, area) => ({
      input: analysisInputPerArea,
      output: ESTIMATE_DEFAULTS.analysisOutputTokens,
      ...cacheUse(entry, analysisInputPerArea, area === 0 ? 0 : input.basePromptTokens, input.basePromptTokens),
    })),
  );

  const insights = input.areas * insightsPerArea;
  // verification recounts each insight's claim with the engine's own SQL: no model call
  const verification = phaseCost(entry, []);

  const recommendationsInput =
    input.basePromptTokens + ESTIMATE_DEFAULTS.recommendationsPromptTokens + insights * ESTIMATE_DEFAULTS.tokensPerInsight;
  const recommendations = phaseCost(
    entry,
    insights === 0
      ? []
      : [
          {
            input: recommendationsInput,
            output: ESTIMATE_DEFAULTS.recommendationsOutputTokens,
            ...cacheUse(entry, recommendationsInput, input.areas > 0 ? input.basePromptTokens : 0, input.basePromptTokens),
          },
        ],
  );

  const breakdown = { exploration, analysis, verification, recommendations };
  const phases = Object.values(breakdown);
  const total = (pick: (phase: PhaseCost) => number): number => phases.reduce((sum, phase) => sum + pick(phase), 0);
  return {
    llm: {
      model: `${entry.provider}:${entry.model}`,
      input_tokens: total((phase) => phase.input_tokens),
      output_tokens: total((phase) => phase.output_tokens),
      cost_usd: total((phase) => phase.cost_usd),
      cache_read_tokens: total((phase) => phase.cache_read_tokens),
      cache_write_tokens: total((phase) => phase.cache_write_tokens),
      cost_usd_cached: total((phase) => phase.cost_usd_cached),
    },
    breakdown,
    assumptions: {
      exploration_prefix_tokens: prefixTokens,
      exploration_tool_tokens: input.explorationToolTokens ?? 0,
      keep_turns: input.loopCompaction.keepTurns,
      tail_growth_turns: input.loopCompaction.tailGrowthTurns ?? 1,
      per_recent_turn_tokens: input.loopCompaction.perRecentTurnTokens,
      per_old_turn_tokens: input.loopCompaction.perOldTurnTokens,
      max_compacted_history_tokens: input.loopCompaction.maxCompactedHistoryTokens ?? 'none',
      notes_tokens: input.notes?.tokens ?? 0,
      exploration_output_tokens_per_step: outputPerStep,
      exploration_prompt_budget_tokens: explorationBudget,
      steps: `all ${input.maxSteps} steps run (no early "done")`,
      analysis_input_tokens_per_area: analysisInputPerArea,
      analysis_evidence_steps_per_area: evidenceSteps,
      insights_per_area: insightsPerArea,
      prompt_cache: entry.promptCache,
      min_cacheable_tokens: entry.minCacheableTokens,
      excluded: 'SQL-fix calls, reformat retries and provider overflow retries',
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

/**
 * Estimate vs a run's recorded `usage_by_phase`, phase by phase — for calibrating the estimate against real
 * or simulated runs. `cached` compares with the estimate's cost with caching (the run cached) or without.
 */
export function compareEstimateWithUsage(estimate: RunCostEstimate, usageByPhase: UsageByPhase, cached = false): EstimateComparison[] {
  return (Object.keys(PHASES_OF) as EstimatedPhase[]).map((phase) => {
    const models = PHASES_OF[phase].flatMap((recorded) => Object.values(usageByPhase[recorded] ?? {}));
    const actualInput = models.reduce((sum, totals) => sum + totals.input_tokens, 0);
    const actualCost = models.reduce((sum, totals) => sum + totals.cost_usd, 0);
    const estimated = estimate.breakdown[phase];
    return {
      phase,
      estimated_input_tokens: estimated.input_tokens,
      actual_input_tokens: actualInput,
      estimated_cost_usd: cached ? estimated.cost_usd_cached : estimated.cost_usd,
      actual_cost_usd: actualCost,
      input_ratio: estimated.input_tokens > 0 ? actualInput / estimated.input_tokens : undefined,
    };
  });
}
