/** Token and cost totals from a run's telemetry, in the order the report lists them. */
import { llmPhaseSchema, type LlmCallRecord, type RunTelemetry, type UsageTotals } from '../domain/index.js';

export interface UsageRow extends UsageTotals {
  phase: string;
  model: string;
}

const PHASE_ORDER: readonly string[] = llmPhaseSchema.options;

function phaseRank(phase: string): number {
  const index = PHASE_ORDER.indexOf(phase);
  return index === -1 ? PHASE_ORDER.length : index;
}

/** One row per phase and model: phases in pipeline order, models alphabetically. */
export function usageRows(telemetry: RunTelemetry): UsageRow[] {
  const rows = Object.entries(telemetry.usage_by_phase).flatMap(([phase, byModel]) =>
    Object.entries(byModel).map(([model, totals]) => ({ phase, model, ...totals })),
  );
  return rows.sort(
    (left, right) =>
      phaseRank(left.phase) - phaseRank(right.phase) ||
      left.phase.localeCompare(right.phase, 'en') ||
      left.model.localeCompare(right.model, 'en'),
  );
}

export function totalUsage(telemetry: RunTelemetry): UsageTotals {
  return usageRows(telemetry).reduce<UsageTotals>(
    (sum, row) => ({
      input_tokens: sum.input_tokens + row.input_tokens,
      output_tokens: sum.output_tokens + row.output_tokens,
      cost_usd: sum.cost_usd + row.cost_usd,
      calls: sum.calls + row.calls,
      cache_read_tokens: (sum.cache_read_tokens ?? 0) + (row.cache_read_tokens ?? 0),
      cache_write_tokens: (sum.cache_write_tokens ?? 0) + (row.cache_write_tokens ?? 0),
    }),
    { input_tokens: 0, output_tokens: 0, cost_usd: 0, calls: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  );
}

/** Share of the input tokens read from the prompt cache, or undefined when there was no input. */
export function cachedShare(totals: Pick<UsageTotals, 'input_tokens' | 'cache_read_tokens'>): number | undefined {
  return totals.input_tokens > 0 ? (totals.cache_read_tokens ?? 0) / totals.input_tokens : undefined;
}

/** The size a prompt really had: the provider's count when it reported one, else the estimate. */
export function promptSize(call: LlmCallRecord): number {
  return call.prompt_tokens_reported ?? call.prompt_tokens_estimated;
}

export function largestPrompt(calls: readonly LlmCallRecord[]): LlmCallRecord | undefined {
  return calls.reduce<LlmCallRecord | undefined>(
    (largest, call) => (!largest || promptSize(call) > promptSize(largest) ? call : largest),
    undefined,
  );
}
