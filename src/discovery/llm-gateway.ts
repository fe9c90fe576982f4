/**
 * The phases' one door to a model: the budgeted call, with every call recorded in the run's
 * telemetry (llm_calls, usage_by_phase) as it happens, so a crash loses no accounting.
 */
import type { LlmCallRecord, LlmPhase, UsageTotals } from '../domain/index.js';
import type { LlmErrorKind } from '../errors/index.js';
import { callLlm } from '../llm/budgeted-call.js';
import type { PromptSection } from '../llm/prompt-builder.js';
import { mergeUsageByPhase, summariseUsage } from '../llm/usage.js';
import type { DiscoveryDeps, LlmBinding } from './context.js';

export interface AskOptions {
  runId: string;
  binding: LlmBinding;
  phase: LlmPhase;
  sections: readonly PromptSection[];
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal | undefined;
  area?: string;
  step?: number;
  /** The tier the binding was chosen as (`modelFor`); recorded on the call. */
  tier?: 'fast' | 'strong';
}

export interface AskResult {
  text: string;
  record: LlmCallRecord;
  stopReason: string;
}

function addToTier(totals: Record<string, UsageTotals>, tier: string, record: LlmCallRecord): Record<string, UsageTotals> {
  const before = totals[tier] ?? { input_tokens: 0, output_tokens: 0, cost_usd: 0, calls: 0 };
  return {
    ...totals,
    [tier]: {
      input_tokens: before.input_tokens + (record.prompt_tokens_reported ?? record.prompt_tokens_estimated),
      output_tokens: before.output_tokens + record.output_tokens,
      cost_usd: before.cost_usd + record.cost_usd,
      calls: before.calls + 1,
    },
  };
}

export async function recordLlmCall(deps: Pick<DiscoveryDeps, 'store'>, runId: string, record: LlmCallRecord): Promise<void> {
  await deps.store.updateRun(runId, (run) => ({
    ...run,
    telemetry: {
      ...run.telemetry,
      llm_calls: [...run.telemetry.llm_calls, record],
      usage_by_phase: mergeUsageByPhase(run.telemetry.usage_by_phase, summariseUsage([record])),
      usage_by_tier: record.tier === undefined ? run.telemetry.usage_by_tier : addToTier(run.telemetry.usage_by_tier, record.tier, record),
    },
  }));
}

/** Retried inside one call; a rate limit goes straight to the driver (error policy). */
export const IN_CALL_RETRY_KINDS: ReadonlySet<LlmErrorKind> = new Set(['transient', 'timeout']);

export async function askLlm(deps: Pick<DiscoveryDeps, 'store' | 'logger'>, options: AskOptions): Promise<AskResult> {
  const { response, record } = await callLlm({
    provider: options.binding.provider,
    catalogEntry: options.binding.entry,
    sections: options.sections,
    phase: options.phase,
    signal: options.signal,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    temperature: options.temperature ?? 0,
    retry: { retryKinds: IN_CALL_RETRY_KINDS },
    ...(options.area === undefined ? {} : { area: options.area }),
    ...(options.step === undefined ? {} : { step: options.step }),
  });
  if (options.tier !== undefined) record.tier = options.tier;
  await recordLlmCall(deps, options.runId, record);
  deps.logger.debug(
    {
      phase: record.phase,
      model: record.model,
      promptTokens: record.prompt_tokens_estimated,
      reported: record.prompt_tokens_reported,
      shrunk: record.shrunk,
    },
    'llm call',
  );
  return { text: response.text, record, stopReason: response.stopReason.unified };
}
