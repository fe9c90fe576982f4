/**
 * Usage and cost accounting: the cost of one call from catalog prices (uncached input, cache reads,
 * cache writes and output each at their own price), and an accumulator that turns call records into the
 * run telemetry shapes (`llm_calls`, `usage_by_phase`).
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

export type CostPrices = Pick<
  ModelCatalogEntry,
  'inputPricePerMTok' | 'outputPricePerMTok' | 'cacheReadPricePerMTok' | 'cacheWritePricePerMTok'
>;

/** The prompt-cache part of a call's input: tokens read from the cache and written to it (both within the input). */
export interface CacheTokens {
  read: number;
  write: number;
}

const NO_CACHE: CacheTokens = { read: 0, write: 0 };

/**
 * Dollars for one call. `inputTokens` is every input token; of them `cache.read` are billed at the cache-read
 * price and `cache.write` at the cache-write price, the rest at the input price.
 */
export function costUsd(entry: CostPrices, inputTokens: number, outputTokens: number, cache: CacheTokens = NO_CACHE): number {
  const uncached = Math.max(0, inputTokens - cache.read - cache.write);
  return (
    (uncached * entry.inputPricePerMTok +
      cache.read * entry.cacheReadPricePerMTok +
      cache.write * entry.cacheWritePricePerMTok +
      outputTokens * entry.outputPricePerMTok) /
    TOKENS_PER_MILLION
  );
}

export function callUsage(phase: LlmPhase, entry: ModelCatalogEntry, inputTokens: number, outputTokens: number): CallUsage {
  return { phase, model: entry.model, inputTokens, outputTokens, costUsd: costUsd(entry, inputTokens, outputTokens) };
}

/** Input tokens a record is billed for: what the provider reported, else our estimate. */
export function billedInputTokens(record: Pick<LlmCallRecord, 'prompt_tokens_reported' | 'prompt_tokens_estimated'>): number {
  return record.prompt_tokens_reported ?? record.prompt_tokens_estimated;
}

export type UsageByPhase = Record<string, Record<string, UsageTotals>>;

export function emptyTotals(): UsageTotals {
  return { input_tokens: 0, output_tokens: 0, cost_usd: 0, calls: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
}

/** `totals` plus one call, as a new object. */
export function addCallTo(totals: UsageTotals, record: LlmCallRecord): UsageTotals {
  return {
    input_tokens: totals.input_tokens + billedInputTokens(record),
    output_tokens: totals.output_tokens + record.output_tokens,
    cost_usd: totals.cost_usd + record.cost_usd,
    calls: totals.calls + 1,
    cache_read_tokens: (totals.cache_read_tokens ?? 0) + (record.cache_read_tokens ?? 0),
    cache_write_tokens: (totals.cache_write_tokens ?? 0) + (record.cache_write_tokens ?? 0),
  };
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
    byModel[record.model] = addCallTo(byModel[record.model] ?? emptyTotals(), record);
  }
  return byPhase;
}

export function totalUsage(records: readonly LlmCallRecord[]): UsageTotals {
  return records.reduce(addCallTo, emptyTotals());
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
      into.cache_read_tokens = (into.cache_read_tokens ?? 0) + (totals.cache_read_tokens ?? 0);
      into.cache_write_tokens = (into.cache_write_tokens ?? 0) + (totals.cache_write_tokens ?? 0);
    }
  }
  return merged;
}
