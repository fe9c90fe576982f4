/**
 * The phases' one door to a model: the budgeted call, with every call recorded in the run's
 * telemetry (llm_calls, usage_by_phase, cached tokens, cost) as it happens, so a crash loses no
 * accounting. `askLlm` asks for text; `askForAnswer` asks for a typed answer declared as zod schemas,
 * through native tools, structured output or text, whichever the model's catalog entry allows.
 */
import type { LlmCallRecord, LlmPhase, UsageTotals } from '../domain/index.js';
import type { LlmErrorKind } from '../errors/index.js';
import { callLlm } from '../llm/budgeted-call.js';
import type { PromptSection } from '../llm/prompt-builder.js';
import {
  answerRequest,
  askForAnswer as askUntilUsable,
  type AnswerProtocol,
  type AnswerRequest,
  type AnswerSpec,
} from '../llm/structured-output.js';
import { addCallTo, emptyTotals, mergeUsageByPhase, summariseUsage } from '../llm/usage.js';
import type { LlmToolCall } from '../llm/port.js';
import type { LlmBinding } from '../llm/catalog.js';
import type { DiscoveryDeps } from './context.js';

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
  toolCalls: LlmToolCall[];
  record: LlmCallRecord;
  stopReason: string;
}

type GatewayDeps = Pick<DiscoveryDeps, 'store' | 'logger' | 'config'>;

function addToTier(totals: Record<string, UsageTotals>, tier: string, record: LlmCallRecord): Record<string, UsageTotals> {
  return { ...totals, [tier]: addCallTo(totals[tier] ?? emptyTotals(), record) };
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

/**
 * The cache key groups the calls of one run and phase: they share their prefix (an exploration's system
 * prompt and history, the areas' base context). It names no secret.
 */
export function promptCacheKey(runId: string, phase: LlmPhase): string {
  return `assay:${runId}:${phase}`;
}

/**
 * The system prompt ends a cacheable prefix: within a run it repeats (the exploration prompt on every step,
 * the base context in every area's analysis and in the recommendations). Marking it never changes the text.
 */
export function withCachedSystemPrompt(sections: readonly PromptSection[]): PromptSection[] {
  const lastSystem = sections.findLastIndex((section) => section.role === 'system');
  return sections.map((section, index) => (index === lastSystem ? { ...section, cacheBreakpoint: true } : section));
}

async function ask(deps: GatewayDeps, options: AskOptions, answer?: AnswerRequest, attempt?: number): Promise<AskResult> {
  const { response, record } = await callLlm({
    provider: options.binding.provider,
    catalogEntry: options.binding.entry,
    sections: withCachedSystemPrompt(options.sections),
    phase: options.phase,
    signal: options.signal,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    temperature: options.temperature ?? 0,
    retry: { retryKinds: IN_CALL_RETRY_KINDS },
    cache: { enabled: deps.config.promptCaching, key: promptCacheKey(options.runId, options.phase) },
    ...(answer ? { answer } : {}),
    ...(attempt === undefined ? {} : { attempt }),
    ...(options.area === undefined ? {} : { area: options.area }),
    ...(options.step === undefined ? {} : { step: options.step }),
  });
  if (options.tier !== undefined) record.tier = options.tier;
  await recordLlmCall(deps, options.runId, record);
  deps.logger.debug(
    {
      phase: record.phase,
      model: record.model,
      protocol: record.protocol,
      promptTokens: record.prompt_tokens_estimated,
      reported: record.prompt_tokens_reported,
      cacheRead: record.cache_read_tokens,
      cacheWrite: record.cache_write_tokens,
      shrunk: record.shrunk,
    },
    'llm call',
  );
  return { text: response.text, toolCalls: response.toolCalls ?? [], record, stopReason: response.stopReason.unified };
}

/** One budgeted call for a text reply. */
export async function askLlm(deps: GatewayDeps, options: AskOptions): Promise<AskResult> {
  return ask(deps, options);
}

export interface AskForAnswerOptions<T> extends AskOptions {
  answer: AnswerSpec<T>;
}

/** `promptTokens`: the largest prompt of the attempts; `promptTokensTotal`: all of them together; `retries`: asks after the first. */
export type AskForAnswerResult<T> = (
  | { ok: true; value: T; retries: number; promptTokens: number; promptTokensTotal: number }
  | { ok: false; reason: string; retries: number; promptTokens: number; promptTokensTotal: number }
) & { protocol: AnswerProtocol };

/**
 * A typed answer: asked through the protocol the model's catalog entry and `config.llmProtocol` allow,
 * validated by the answer's zod schemas, with one repair turn after an unusable tool call or structured
 * output (the phase's reformat nudges for text). Model errors propagate; an answer that stays unusable
 * comes back as `ok: false` with the last reason, for the phase to record.
 */
export async function askForAnswer<T>(deps: GatewayDeps, options: AskForAnswerOptions<T>): Promise<AskForAnswerResult<T>> {
  const request = answerRequest(options.answer, options.binding.entry, deps.config.llmProtocol);
  let promptTokens = 0;
  let promptTokensTotal = 0;
  const outcome = await askUntilUsable({
    spec: options.answer,
    request,
    sections: options.sections,
    call: async (sections, attempt) => {
      const reply = await ask(deps, { ...options, sections }, request, attempt);
      promptTokens = Math.max(promptTokens, reply.record.prompt_tokens_estimated);
      promptTokensTotal += reply.record.prompt_tokens_estimated;
      return reply;
    },
    onRejected: (attempt, reason) =>
      deps.logger.warn(
        { runId: options.runId, phase: options.phase, area: options.area, step: options.step, attempt, protocol: request.protocol, reason },
        request.protocol === 'text' ? 'unusable model reply; nudging' : 'unusable tool call; asking for a repair',
      ),
  });
  const retries = outcome.attempts - 1;
  return outcome.ok
    ? { ok: true, value: outcome.value, retries, promptTokens, promptTokensTotal, protocol: request.protocol }
    : { ok: false, reason: outcome.reason, retries, promptTokens, promptTokensTotal, protocol: request.protocol };
}
