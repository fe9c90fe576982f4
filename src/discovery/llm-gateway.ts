/**
 * The phases' one door to a model: the budgeted call, with every call recorded in the run's
 * telemetry (llm_calls, usage_by_phase) as it happens, so a crash loses no accounting.
 */
import type { LlmCallRecord, LlmPhase } from '../domain/index.js';
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
}

export interface AskResult {
  text: string;
  record: LlmCallRecord;
  stopReason: string;
}

export async function recordLlmCall(deps: Pick<DiscoveryDeps, 'store'>, runId: string, record: LlmCallRecord): Promise<void> {
  await deps.store.updateRun(runId, (run) => ({
    ...run,
    telemetry: {
      ...run.telemetry,
      llm_calls: [...run.telemetry.llm_calls, record],
      usage_by_phase: mergeUsageByPhase(run.telemetry.usage_by_phase, summariseUsage([record])),
    },
  }));
}

export async function askLlm(deps: Pick<DiscoveryDeps, 'store' | 'logger'>, options: AskOptions): Promise<AskResult> {
  const { response, record } = await callLlm({
    provider: options.binding.provider,
    catalogEntry: options.binding.entry,
    sections: options.sections,
    phase: options.phase,
    signal: options.signal,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    temperature: options.temperature ?? 0,
    ...(options.area === undefined ? {} : { area: options.area }),
    ...(options.step === undefined ? {} : { step: options.step }),
  });
  await recordLlmCall(deps, options.runId, record);
  deps.logger.debug(
    { phase: record.phase, model: record.model, promptTokens: record.prompt_tokens_estimated, reported: record.prompt_tokens_reported, shrunk: record.shrunk },
    'llm call',
  );
  return { text: response.text, record, stopReason: response.stopReason.unified };
}
