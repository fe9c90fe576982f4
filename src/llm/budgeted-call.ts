/**
 * The budgeted call — the only way Assay sends a prompt to a model. It builds the prompt with
 * the budgeted prompt builder against the model's catalog entry (tool definitions and a response
 * schema count against the budget like the sections do), sends it under the retry policy, and if
 * the provider still says "prompt too long", shrinks the budget by the ratio the provider reported,
 * rebuilds, and retries exactly once. A second overflow is thrown. With prompt caching on, the
 * sections' cache breakpoints go out as the provider's markers; they never change the prompt's text.
 * Every successful call yields one `LlmCallRecord` with estimated and reported prompt sizes, the
 * tokens read from and written to the cache, and the cost at the catalog's prices for each.
 */
import type { LlmCallRecord, LlmPhase } from '../domain/run.js';
import { LlmError } from '../errors/index.js';
import type { ModelCatalogEntry } from './catalog.js';
import type { LlmCacheHints, LlmProvider, LlmRequest, LlmResponse } from './port.js';
import { buildPrompt, toolDefinitionTokens, type BuiltPrompt, type PromptSection } from './prompt-builder.js';
import { withRetry, type RetryOptions } from './retry.js';
import type { AnswerRequest } from './structured-output.js';
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
  /** Tools, tool choice or response format, and the protocol they stand for. @defaultValue the text protocol */
  answer?: AnswerRequest;
  /** Prompt caching: send the sections' breakpoints (and `key`) when the model's provider caches. @defaultValue off */
  cache?: { enabled: boolean; key?: string };
  /** Which ask of one answer this is (1 = first; more = reformat or repair turns). */
  attempt?: number;
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

/**
 * Input tokens of the tool definitions and response schema, measured as the JSON the adapters send, so the
 * budget holds them as it holds the sections.
 */
export function answerRequestTokens(answer: AnswerRequest | undefined, family: ModelCatalogEntry['family']): number {
  return answer ? toolDefinitionTokens(answer, family) : 0;
}

/** The caching hints for a built prompt: its breakpoints for providers that take them, the key for those that cache on their own. */
function cacheHints(options: CallLlmOptions, prompt: BuiltPrompt): LlmCacheHints | undefined {
  const cache = options.cache;
  if (!cache?.enabled || options.catalogEntry.promptCache === 'none') return undefined;
  const breakpoints = options.catalogEntry.promptCache === 'breakpoints' ? prompt.cacheBreakpoints : [];
  return { breakpoints, ...(cache.key ? { key: cache.key } : {}) };
}

/** Build, send with retries, and on a provider overflow rebuild smaller and send once more. */
export async function callLlm(options: CallLlmOptions): Promise<CallLlmResult> {
  const { provider, catalogEntry: entry, sections, signal, answer } = options;
  const maxOutputTokens = Math.min(options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, entry.maxOutputTokens);
  const budget = {
    contextWindow: entry.contextWindow,
    maxOutputTokens,
    maxInputTokens: entry.maxInputTokens,
    family: entry.family,
    reservedTokens: answerRequestTokens(answer, entry.family),
  };

  const send = (prompt: BuiltPrompt): Promise<LlmResponse> => {
    const cache = cacheHints(options, prompt);
    const request: LlmRequest = {
      ...(prompt.system === '' ? {} : { system: prompt.system }),
      messages: prompt.messages,
      maxOutputTokens,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(signal === undefined ? {} : { signal }),
      ...(answer?.tools ? { tools: answer.tools } : {}),
      ...(answer?.toolChoice ? { toolChoice: answer.toolChoice } : {}),
      ...(answer?.responseFormat ? { responseFormat: answer.responseFormat } : {}),
      ...(cache ? { cache } : {}),
    };
    return withRetry(() => provider.complete(request), { ...options.retry, signal });
  };

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
  const cached = { read: response.usage.cacheReadTokens ?? 0, write: response.usage.cacheWriteTokens ?? 0 };
  const record: LlmCallRecord = {
    phase: options.phase,
    model: entry.model,
    prompt_tokens_estimated: prompt.estimatedTokens,
    prompt_tokens_reported: reported,
    output_tokens: response.usage.outputTokens,
    context_window: entry.contextWindow,
    max_output_tokens: maxOutputTokens,
    cost_usd: costUsd(entry, reported ?? prompt.estimatedTokens, response.usage.outputTokens, cached),
    latency_ms: response.latencyMs,
    shrunk: prompt.adjustments.length > 0,
    overflow_retry: overflowRetry,
    cache_read_tokens: cached.read,
    cache_write_tokens: cached.write,
    protocol: answer?.protocol ?? 'text',
    ...(options.attempt === undefined ? {} : { attempt: options.attempt }),
    ...(options.area === undefined ? {} : { area: options.area }),
    ...(options.step === undefined ? {} : { step: options.step }),
  };
  options.onRecord?.(record);
  return { response, record, prompt };
}
