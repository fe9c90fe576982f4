/**
 * Usage and cost accounting: the cost of one call from catalog prices, and an accumulator
 * that turns call records into the run telemetry shapes (`llm_calls`, `usage_by_phase`).
 */
import type { LlmCallRecord, LlmPhase, RunTelemetry, UsageTotals } from '../domain/run.js';
import type { ModelCatalogEntry } from './catalog.js';

export interface CallUsage {
  phase: LlmPhase;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

const TOKENS_PER_MILLION = 1_000_000;

export function costUsd(
  entry: Pick<ModelCatalogEntry, 'inputPricePerMTok' | 'outputPricePerMTok'>,
  inputTokens: number,
  outputTokens: number,
): number {
  return (inputTokens * entry.inputPricePerMTok + outputTokens * entry.outputPricePerMTok) / TOKENS_PER_MILLION;
}

export function callUsage(phase: LlmPhase, entry: ModelCatalogEntry, inputTokens: number, outputTokens: number): CallUsage {
  return { phase, model: entry.model, inputTokens, outputTokens, costUsd: costUsd(entry, inputTokens, outputTokens) };
}

/** Input tokens a record is billed for: what the provider reported, else our estimate. */
export function billedInputTokens(record: Pick<LlmCallRecord, 'prompt_tokens_reported' | 'prompt_tokens_estimated'>): number {
  return record.prompt_tokens_reported ?? record.prompt_tokens_estimated;
}

export type UsageByPhase = Record<string, Record<string, UsageTotals>>;

function emptyTotals(): UsageTotals {
  return { input_tokens: 0, output_tokens: 0, cost_usd: 0, calls: 0 };
}

function addTo(totals: UsageTotals, record: LlmCallRecord): void {
  totals.input_tokens += billedInputTokens(record);
  totals.output_tokens += record.output_tokens;
  totals.cost_usd += record.cost_usd;
  totals.calls += 1;
}

/**
 * Collects the calls of a run (or of one job, to be merged into the run document) and
 * produces `llm_calls`, `usage_by_phase[phase][model]` and totals.
 */
export class UsageAccumulator {
  private readonly records: LlmCallRecord[] = [];

  /** Bound so it can be passed as `onRecord` to `callLlm`. */
  readonly add = (record: LlmCallRecord): void => {
    this.records.push(record);
  };

  get calls(): readonly LlmCallRecord[] {
    return this.records;
  }

  usageByPhase(): UsageByPhase {
    return summariseUsage(this.records);
  }

  totals(): UsageTotals {
    return totalUsage(this.records);
  }

  /** The telemetry fields this accumulator owns, ready to merge into `run.telemetry`. */
  telemetry(): Pick<RunTelemetry, 'llm_calls' | 'usage_by_phase'> {
    return { llm_calls: [...this.records], usage_by_phase: this.usageByPhase() };
  }
}

export function summariseUsage(records: readonly LlmCallRecord[]): UsageByPhase {
  const byPhase: UsageByPhase = {};
  for (const record of records) {
    const byModel = (byPhase[record.phase] ??= {});
    addTo((byModel[record.model] ??= emptyTotals()), record);
  }
  return byPhase;
}

export function totalUsage(records: readonly LlmCallRecord[]): UsageTotals {
  const totals = emptyTotals();
  for (const record of records) addTo(totals, record);
  return totals;
}

/** Sum of two `usage_by_phase` maps (e.g. a job's usage into the run's), without mutating either. */
export function mergeUsageByPhase(left: UsageByPhase, right: UsageByPhase): UsageByPhase {
  const merged: UsageByPhase = structuredClone(left);
  for (const [phase, byModel] of Object.entries(right)) {
    const target = (merged[phase] ??= {});
    for (const [model, totals] of Object.entries(byModel)) {
      const into = (target[model] ??= emptyTotals());
      into.input_tokens += totals.input_tokens;
      into.output_tokens += totals.output_tokens;
      into.cost_usd += totals.cost_usd;
      into.calls += totals.calls;
    }
  }
  return merged;
}
