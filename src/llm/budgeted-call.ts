/**
 * The budgeted call — the only way Assay sends a prompt to a model. It builds the prompt with
 * the budgeted prompt builder against the model's catalog entry, sends it under the retry
 * policy, and if the provider still says "prompt too long", shrinks the budget by the ratio
 * the provider reported, rebuilds, and retries exactly once. A second overflow is thrown.
 * Every successful call yields one `LlmCallRecord` with estimated and reported prompt sizes.
 */
import type { LlmCallRecord, LlmPhase } from '../domain/run.js';
import { LlmError } from '../errors/index.js';
import type { ModelCatalogEntry } from './catalog.js';
import type { LlmProvider, LlmResponse } from './port.js';
import { buildPrompt, type BuiltPrompt, type PromptSection } from './prompt-builder.js';
import { withRetry, type RetryOptions } from './retry.js';
import { costUsd } from './usage.js';

/** Output budget when the caller does not ask: room for an analysis JSON without eating the prompt's window. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;
/** Extra shrink on top of the provider's ratio: the rebuilt prompt is measured by our estimator, not theirs. */
export const OVERFLOW_EXTRA_MARGIN = 0.05;
/** Shrink used when the provider's overflow error carries no numbers. */
export const OVERFLOW_DEFAULT_SHRINK = 0.25;

export interface CallLlmOptions {
  provider: LlmProvider;
  catalogEntry: ModelCatalogEntry;
  sections: readonly PromptSection[];
  /** Capped at the model's own output limit. @defaultValue DEFAULT_MAX_OUTPUT_TOKENS */
  maxOutputTokens?: number;
  temperature?: number;
  phase: LlmPhase;
  signal?: AbortSignal | undefined;
  retry?: Omit<RetryOptions, 'signal'>;
  /** Told about every successful call (usage accounting, telemetry). */
  onRecord?: (record: LlmCallRecord) => void;
  area?: string;
  step?: number;
}

export interface CallLlmResult {
  response: LlmResponse;
  record: LlmCallRecord;
  /** The prompt that was finally sent (the rebuilt one after an overflow retry). */
  prompt: BuiltPrompt;
}

function isContextOverflow(error: unknown): error is LlmError {
  return error instanceof LlmError && error.info.kind === 'context_overflow';
}

/**
 * How much smaller the rebuilt prompt must be, as a factor of the first prompt's estimate:
 * the room the provider said it had for the prompt (its limit minus our output budget, since
 * the window holds both) over the prompt size it counted, less a small extra margin. Without
 * numbers, 25 % smaller. Never 1 or more: the retry must send less.
 */
export function overflowShrinkFactor(error: LlmError, maxOutputTokens: number): number {
  const { reportedPromptTokens, reportedMaxTokens } = error.info;
  const fallback = 1 - OVERFLOW_DEFAULT_SHRINK;
  if (reportedPromptTokens === undefined || reportedMaxTokens === undefined || reportedPromptTokens <= 0) return fallback;
  const promptRoom = reportedMaxTokens - maxOutputTokens;
  const ratio = (promptRoom > 0 ? promptRoom : reportedMaxTokens) / reportedPromptTokens;
  if (!Number.isFinite(ratio) || ratio <= 0) return fallback;
  return Math.min(ratio, 1) * (1 - OVERFLOW_EXTRA_MARGIN);
}

/** Build, send with retries, and on a provider overflow rebuild smaller and send once more. */
export async function callLlm(options: CallLlmOptions): Promise<CallLlmResult> {
  const { provider, catalogEntry: entry, sections, signal } = options;
  const maxOutputTokens = Math.min(options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, entry.maxOutputTokens);
  const budget = { contextWindow: entry.contextWindow, maxOutputTokens, maxInputTokens: entry.maxInputTokens, family: entry.family };

  const send = (prompt: BuiltPrompt): Promise<LlmResponse> =>
    withRetry(
      () =>
        provider.complete({
          ...(prompt.system === '' ? {} : { system: prompt.system }),
          messages: prompt.messages,
          maxOutputTokens,
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          ...(signal === undefined ? {} : { signal }),
        }),
      { ...options.retry, signal },
    );

  let prompt = buildPrompt(sections, budget);
  let overflowRetry = false;
  let response: LlmResponse;
  try {
    response = await send(prompt);
  } catch (error) {
    if (!isContextOverflow(error)) throw error;
    const budgetTokensCap = Math.floor(prompt.estimatedTokens * overflowShrinkFactor(error, maxOutputTokens));
    prompt = buildPrompt(sections, { ...budget, budgetTokensCap });
    overflowRetry = true;
    response = await send(prompt);
  }

  const reported = response.usage.inputTokens > 0 ? response.usage.inputTokens : null;
  const record: LlmCallRecord = {
    phase: options.phase,
    model: entry.model,
    prompt_tokens_estimated: prompt.estimatedTokens,
    prompt_tokens_reported: reported,
    output_tokens: response.usage.outputTokens,
    context_window: entry.contextWindow,
    max_output_tokens: maxOutputTokens,
    cost_usd: costUsd(entry, reported ?? prompt.estimatedTokens, response.usage.outputTokens),
    latency_ms: response.latencyMs,
    shrunk: prompt.adjustments.length > 0,
    overflow_retry: overflowRetry,
    ...(options.area === undefined ? {} : { area: options.area }),
    ...(options.step === undefined ? {} : { step: options.step }),
  };
  options.onRecord?.(record);
  return { response, record, prompt };
}
