import { describe, expect, it } from 'vitest';
import {
  ESTIMATE_DEFAULTS,
  compareEstimateWithUsage,
  estimateRunCost,
  explorationStepInputTokens,
  type RunCostInput,
} from '../../../src/discovery/cost-estimate.js';
import { AREA_EVIDENCE_MAX_STEPS } from '../../../src/discovery/phases/area-evidence-budget.js';
import { lookupModel } from '../../../src/llm/catalog.js';

const { entry } = lookupModel('anthropic:claude-sonnet-4-6');
const compaction = { keepTurns: 3, perOldTurnTokens: 200, perRecentTurnTokens: 2_000 };

function input(overrides: Partial<RunCostInput> = {}): RunCostInput {
  return {
    catalogEntry: entry,
    catalogTokens: 3_000,
    basePromptTokens: 800,
    explorationPromptTokens: 1_200,
    maxSteps: 30,
    areas: 4,
    loopCompaction: compaction,
    ...overrides,
  };
}

describe('when modelling exploration input per step', () => {
  it('grows by a full turn per step while history fits in keepTurns, then by a shortened turn', () => {
    const sizes = Array.from({ length: 8 }, (_, index) => explorationStepInputTokens(index + 1, 5_000, compaction, 1_000_000));
    const growth = sizes.slice(1).map((size, index) => size - sizes[index]!);
    expect(growth.slice(0, 3)).toEqual([2_000, 2_000, 2_000]);
    expect(growth.slice(3)).toEqual([200, 200, 200, 200]);
    expect(sizes[0]).toBe(5_000);
  });

  it('with a tail growth, keeps turns whole until a block of them leaves the tail together', () => {
    const grown = { ...compaction, tailGrowthTurns: 4 };
    const sizes = Array.from({ length: 9 }, (_, index) => explorationStepInputTokens(index + 1, 5_000, grown, 1_000_000));
    const growth = sizes.slice(1).map((size, index) => size - sizes[index]!);
    // steps 2–7 add a full turn each; at step 8 four turns leave the tail at once
    expect(growth).toEqual([2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 4 * 200 - 3 * 2_000, 2_000]);
  });

  it('stops growing once the shortened history reaches its cap, and never exceeds the prompt budget', () => {
    const capped = { ...compaction, maxCompactedHistoryTokens: 1_000 };
    expect(explorationStepInputTokens(12, 5_000, capped, 1_000_000)).toBe(5_000 + 3 * 2_000 + 1_000);
    expect(explorationStepInputTokens(300, 5_000, capped, 1_000_000)).toBe(5_000 + 3 * 2_000 + 1_000);
    expect(explorationStepInputTokens(400, 5_000, compaction, 60_000)).toBe(60_000);
  });
});

describe('when estimating a run', () => {
  it('sums the per-step exploration inputs rather than a linear per-step guess', () => {
    const estimate = estimateRunCost(input({ maxSteps: 10 }));
    const prefix = 800 + 1_200 + 3_000 + ESTIMATE_DEFAULTS.explorationKickoffTokens;
    // steps 1..4 carry 0..3 full turns; steps 5..10 carry 3 full turns and 1..6 shortened ones
    const expected = 10 * prefix + 2_000 * (6 + 6 * 3) + 200 * 21;
    expect(estimate.breakdown.exploration.input_tokens).toBe(expected);
    expect(estimate.breakdown.exploration.calls).toBe(10);
  });

  it('gives an area the digests of at most AREA_EVIDENCE_MAX_STEPS steps, however long the run', () => {
    const short = estimateRunCost(input({ maxSteps: 20 }));
    const long = estimateRunCost(input({ maxSteps: 400 }));
    expect(short.assumptions.analysis_evidence_steps_per_area).toBe(10);
    expect(long.assumptions.analysis_evidence_steps_per_area).toBe(AREA_EVIDENCE_MAX_STEPS);
    expect(long.breakdown.analysis.input_tokens).toBe(
      4 * (800 + ESTIMATE_DEFAULTS.avgAnalysisPromptTokens + AREA_EVIDENCE_MAX_STEPS * ESTIMATE_DEFAULTS.analysisDigestTokensPerStep),
    );
  });

  it('prices every phase with the catalog entry and adds them up', () => {
    const estimate = estimateRunCost(input());
    const { exploration, analysis, verification, recommendations } = estimate.breakdown;
    expect(analysis.calls).toBe(4);
    // verification recounts claims with the engine's own SQL: no model call to price
    expect(verification).toMatchObject({ calls: 0, input_tokens: 0, output_tokens: 0 });
    expect(recommendations.calls).toBe(1);
    expect(estimate.llm.model).toBe('anthropic:claude-sonnet-4-6');
    expect(estimate.llm.input_tokens).toBe(
      exploration.input_tokens + analysis.input_tokens + verification.input_tokens + recommendations.input_tokens,
    );
    expect(estimate.llm.cost_usd).toBeCloseTo((estimate.llm.input_tokens * 3 + estimate.llm.output_tokens * 15) / 1e6, 6);
  });

  it('skips the recommendations call when no insights are expected', () => {
    expect(estimateRunCost(input({ insightsPerArea: 0 })).breakdown.recommendations.calls).toBe(0);
  });
});

describe('when the model caches prompts', () => {
  const long = { maxSteps: 40, catalogTokens: 6_000, loopCompaction: { ...compaction, tailGrowthTurns: 4 } };

  it('reads each step the previous prompt and writes only the newest turn, with breakpoints', () => {
    const estimate = estimateRunCost(input({ ...long, maxSteps: 3 }));
    const prefix = 800 + 1_200 + 6_000 + ESTIMATE_DEFAULTS.explorationKickoffTokens;
    const { exploration } = estimate.breakdown;
    // step 1 writes its prompt, steps 2 and 3 read the one before and write one turn each
    expect(exploration.cache_read_tokens).toBe(prefix + (prefix + 2_000));
    expect(exploration.cache_write_tokens).toBe(prefix + 2 * 2_000);
  });

  it('costs less with caching than without, and bills writes above the input price on Claude', () => {
    const estimate = estimateRunCost(input(long));
    const { exploration } = estimate.breakdown;
    expect(exploration.cache_read_tokens / exploration.input_tokens).toBeGreaterThan(0.7);
    expect(exploration.cost_usd_cached).toBeLessThan(exploration.cost_usd / 2.5);
    const uncachedPart = exploration.input_tokens - exploration.cache_read_tokens - exploration.cache_write_tokens;
    expect(exploration.cost_usd_cached).toBeCloseTo(
      (uncachedPart * 3 + exploration.cache_read_tokens * 0.3 + exploration.cache_write_tokens * 3.75 + exploration.output_tokens * 15) /
        1e6,
      6,
    );
  });

  it('reads in 128-token steps from 1,024 tokens and writes nothing extra with automatic caching', () => {
    const openai = lookupModel('openai:gpt-5.4').entry;
    const estimate = estimateRunCost(input({ ...long, catalogEntry: openai }));
    expect(estimate.breakdown.exploration.cache_write_tokens).toBe(0);
    expect(estimate.breakdown.exploration.cache_read_tokens % 128).toBe(0);
    expect(estimate.llm.cost_usd_cached).toBeLessThan(estimate.llm.cost_usd);
  });

  it('caches nothing below the minimum prefix, nor for a provider without a cache', () => {
    const large = { ...entry, minCacheableTokens: 1_000_000 };
    expect(estimateRunCost(input({ ...long, catalogEntry: large })).llm.cache_read_tokens).toBe(0);
    const offline = lookupModel('offline:analyst').entry;
    expect(estimateRunCost(input({ ...long, catalogEntry: offline })).llm.cache_read_tokens).toBe(0);
  });

  it('reads only the system prompt while the working notes are changing', () => {
    const withNotes = estimateRunCost(input({ ...long, maxSteps: 4, notes: { tokens: 500, settledAfterStep: 3 } }));
    const without = estimateRunCost(input({ ...long, maxSteps: 4 }));
    expect(withNotes.breakdown.exploration.cache_read_tokens).toBeLessThan(without.breakdown.exploration.cache_read_tokens);
  });
});

describe('when comparing an estimate with recorded usage', () => {
  it('reports actual over estimated input per phase, counting SQL fixes as exploration', () => {
    const estimate = estimateRunCost(input());
    const comparison = compareEstimateWithUsage(estimate, {
      exploration: { m: { input_tokens: estimate.breakdown.exploration.input_tokens, output_tokens: 0, cost_usd: 1, calls: 30 } },
      sql_fix: { m: { input_tokens: estimate.breakdown.exploration.input_tokens, output_tokens: 0, cost_usd: 0.5, calls: 3 } },
    });
    const exploration = comparison.find((row) => row.phase === 'exploration')!;
    expect(exploration.input_ratio).toBeCloseTo(2, 10);
    expect(exploration.actual_cost_usd).toBe(1.5);
    expect(comparison.find((row) => row.phase === 'analysis')!.actual_input_tokens).toBe(0);
    expect(compareEstimateWithUsage(estimate, {}, true)[0]?.estimated_cost_usd).toBe(estimate.breakdown.exploration.cost_usd_cached);
  });
});
