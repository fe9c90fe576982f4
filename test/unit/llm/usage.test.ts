import { describe, expect, it } from 'vitest';
import { llmCallRecordSchema, runTelemetrySchema, type LlmCallRecord } from '../../../src/domain/run.js';
import { lookupModel } from '../../../src/llm/catalog.js';
import { UsageAccumulator, callUsage, costUsd, mergeUsageByPhase } from '../../../src/llm/usage.js';

function record(overrides: Partial<LlmCallRecord>): LlmCallRecord {
  return llmCallRecordSchema.parse({
    phase: 'exploration',
    model: 'claude-sonnet-5-5',
    prompt_tokens_estimated: 1_000,
    prompt_tokens_reported: 900,
    output_tokens: 100,
    context_window: 200_000,
    max_output_tokens: 4_096,
    cost_usd: 0.0042,
    latency_ms: 10,
    ...overrides,
  });
}

describe('when pricing a call', () => {
  it('multiplies tokens by the catalog prices per million', () => {
    const { entry } = lookupModel('anthropic:claude-sonnet-4-6');
    expect(costUsd(entry, 1_000_000, 0)).toBe(3);
    expect(costUsd(entry, 200_000, 10_000)).toBeCloseTo(0.6 + 0.15, 10);
    expect(callUsage('analysis', entry, 2_000, 500)).toEqual({
      phase: 'analysis',
      model: 'claude-sonnet-4-6',
      inputTokens: 2_000,
      outputTokens: 500,
      costUsd: (2_000 * 3 + 500 * 15) / 1e6,
    });
  });
});

describe('when accumulating the calls of a run', () => {
  it('groups usage by phase then model, billing reported prompt tokens and falling back to the estimate', () => {
    const usage = new UsageAccumulator();
    usage.add(record({}));
    usage.add(record({ prompt_tokens_reported: null, cost_usd: 0.001 }));
    usage.add(record({ phase: 'analysis', model: 'claude-haiku-5-5', prompt_tokens_reported: 5_000, output_tokens: 700, cost_usd: 0.01 }));
    const byPhase = usage.usageByPhase();
    expect(byPhase.exploration!['claude-sonnet-5-5']).toEqual({
      input_tokens: 1_900,
      output_tokens: 200,
      cost_usd: 0.0052,
      calls: 2,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    expect(byPhase.analysis!['claude-haiku-5-5']).toEqual({
      input_tokens: 5_000,
      output_tokens: 700,
      cost_usd: 0.01,
      calls: 1,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    const totals = usage.totals();
    expect(totals.calls).toBe(3);
    expect(totals.input_tokens).toBe(6_900);
    expect(totals.cost_usd).toBeCloseTo(0.0152, 10);
  });

  it('produces telemetry that the run schema accepts', () => {
    const usage = new UsageAccumulator();
    usage.add(record({ area: 'churn' }));
    const telemetry = runTelemetrySchema.parse(usage.telemetry());
    expect(telemetry.llm_calls).toHaveLength(1);
    expect(telemetry.usage_by_phase.exploration!['claude-sonnet-5-5']!.calls).toBe(1);
  });

  it('merges a job usage map into the run usage without mutating either', () => {
    const left = { exploration: { m: { input_tokens: 1, output_tokens: 2, cost_usd: 0.5, calls: 1 } } };
    const right = {
      exploration: { m: { input_tokens: 10, output_tokens: 20, cost_usd: 1, calls: 2 } },
      analysis: { m: { input_tokens: 3, output_tokens: 4, cost_usd: 0.25, calls: 1 } },
    };
    const merged = mergeUsageByPhase(left, right);
    expect(merged.exploration!.m).toEqual({
      input_tokens: 11,
      output_tokens: 22,
      cost_usd: 1.5,
      calls: 3,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    expect(merged.analysis!.m!.calls).toBe(1);
    expect(left.exploration.m.calls).toBe(1);
  });
});
