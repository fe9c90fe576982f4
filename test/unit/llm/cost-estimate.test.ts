import { describe, expect, it } from 'vitest';
import {
  compareEstimateWithUsage,
  estimateRunCost,
  explorationStepInputTokens,
  type RunCostInput,
} from '../../../src/discovery/cost-estimate.js';
import { lookupModel } from '../../../src/llm/catalog.js';

const { entry } = lookupModel('anthropic:claude-sonnet-4-6');
const compaction = { keepTurns: 6, perOldTurnTokens: 200, perRecentTurnTokens: 2_000 };

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
  it('grows by a full turn per step while history fits in keepTurns, then by a compacted turn', () => {
    const sizes = Array.from({ length: 12 }, (_, index) => explorationStepInputTokens(index + 1, 5_000, compaction, 1_000_000));
    const growth = sizes.slice(1).map((size, index) => size - sizes[index]!);
    expect(growth.slice(0, 6)).toEqual([2_000, 2_000, 2_000, 2_000, 2_000, 2_000]);
    expect(growth.slice(6)).toEqual([200, 200, 200, 200, 200]);
    expect(sizes[0]).toBe(5_000);
  });

  it('stops growing once the compacted history reaches its cap', () => {
    const capped = { ...compaction, maxCompactedHistoryTokens: 1_000 };
    expect(explorationStepInputTokens(12, 5_000, capped, 1_000_000)).toBe(5_000 + 6 * 2_000 + 1_000);
    expect(explorationStepInputTokens(300, 5_000, capped, 1_000_000)).toBe(5_000 + 6 * 2_000 + 1_000);
  });

  it('never exceeds the prompt budget', () => {
    expect(explorationStepInputTokens(400, 5_000, compaction, 60_000)).toBe(60_000);
  });
});

describe('when estimating a run', () => {
  it('sums the per-step exploration inputs (quadratic at first) rather than a linear per-step guess', () => {
    const estimate = estimateRunCost(input({ maxSteps: 20 }));
    const prefix = 800 + 1_200 + 3_000 + 150;
    // Steps 1..7 carry 0..6 full turns; steps 8..20 carry 6 full turns and 1..13 compacted ones.
    const expected = 20 * prefix + 2_000 * (21 + 6 * 13) + 200 * ((13 * 14) / 2);
    expect(estimate.breakdown.exploration.input_tokens).toBe(expected);
    expect(estimate.breakdown.exploration.calls).toBe(20);
  });

  it('costs more per step as the run gets longer, but far less than re-sending full history', () => {
    const short = estimateRunCost(input({ maxSteps: 10 })).breakdown.exploration.input_tokens;
    const long = estimateRunCost(input({ maxSteps: 40 })).breakdown.exploration.input_tokens;
    expect(long / 40).toBeGreaterThan(short / 10);
    const uncompacted = estimateRunCost(input({ maxSteps: 40, loopCompaction: { ...compaction, perOldTurnTokens: 2_000 } })).breakdown
      .exploration.input_tokens;
    expect(long).toBeLessThan(uncompacted * 0.5);
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
    expect(estimate.assumptions.keep_turns).toBe(6);
  });

  it('skips the recommendations call when no insights are expected', () => {
    expect(estimateRunCost(input({ insightsPerArea: 0 })).breakdown.recommendations.calls).toBe(0);
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
  });
});
