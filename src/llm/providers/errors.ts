/**
 * Error normalisation shared by every provider adapter: status → kind, `retry-after` parsing,
 * "prompt too long" parsing, and the one place an `LlmError` (or its subclass) is built.
 */
import {
  LlmAuthError,
  LlmContextOverflowError,
  LlmError,
  LlmRateLimitError,
  type LlmErrorInfo,
  type LlmErrorKind,
} from '../../errors/index.js';
import { RETRYABLE_LLM_ERROR_KINDS } from '../retry.js';

/** What a classifier needs to know beyond the error itself. */
export interface ClassifyContext {
  /** Provider name recorded on the error (`anthropic`, `openai-compatible`, …). */
  provider: string;
  /** The caller's signal: when it has fired, any failure is reported as `aborted`. */
  signal?: AbortSignal | undefined;
}

/** Headers as the SDKs expose them: a fetch `Headers` (Stainless SDKs) or a plain record (AWS). */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined>;

/** The prompt size and limit a provider reported in its "prompt too long" message. */
export interface PromptTooLong {
  promptTokens?: number | undefined;
  maxTokens?: number | undefined;
}

/** Provider messages can be long and, for some gateways, echo the input: keep only a short first line. */
const MAX_PROVIDER_MESSAGE_CHARS = 200;

/** Node socket error codes that mean "the connection failed", not "the request was wrong". */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_INVALID_SESSION',
]);

/** The HTTP 408/409/429/≥500 family and network failures: the kinds the retry policy retries. */
export function isRetryableKind(kind: LlmErrorKind): boolean {
  return RETRYABLE_LLM_ERROR_KINDS.has(kind);
}

/** The kind an HTTP status means when the body says nothing more specific. */
export function kindForStatus(status: number): LlmErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408) return 'timeout';
  if (status === 413) return 'context_overflow';
  if (status === 429) return 'rate_limit';
  if (status === 409 || status >= 500) return 'transient';
  return 'invalid_request';
}

function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : record[key];
}

/**
 * Milliseconds the server asked us to wait: `retry-after-ms` (OpenAI/Anthropic extension) wins,
 * then `retry-after` as seconds or as an HTTP date. Undefined when absent or unparsable.
 */
export function parseRetryAfterMs(headers: HeaderSource | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headerValue(headers, 'retry-after-ms');
  if (milliseconds !== undefined && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const retryAfter = headerValue(headers, 'retry-after');
  if (retryAfter === undefined || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function toInt(digits: string | undefined): number | undefined {
  if (digits === undefined) return undefined;
  const value = Number.parseInt(digits.replace(/[,_]/g, ''), 10);
  return Number.isFinite(value) ? value : undefined;
}

const NUMBER = '(\\d[\\d,_]*)';
/** Anthropic, and Claude on Bedrock: "prompt is too long: 210345 tokens > 200000 maximum". */
const ANTHROPIC_PROMPT_TOO_LONG = new RegExp(`prompt is too long:\\s*${NUMBER}\\s*tokens\\s*>\\s*${NUMBER}\\s*maximum`, 'i');
/** Anthropic when prompt + max_tokens overflow: "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000". */
const ANTHROPIC_INPUT_PLUS_OUTPUT = new RegExp(`exceed context limit:\\s*${NUMBER}\\s*\\+\\s*${NUMBER}\\s*>\\s*${NUMBER}`, 'i');
/** OpenAI: "maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens". */
const OPENAI_MESSAGES_RESULTED = new RegExp(
  `maximum context length is\\s*${NUMBER}\\s*tokens[\\s\\S]*?resulted in\\s*${NUMBER}\\s*tokens`,
  'i',
);
/** OpenAI and vLLM: "maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, …)". */
const OPENAI_REQUESTED = new RegExp(
  `maximum context length is\\s*${NUMBER}\\s*tokens[\\s\\S]*?requested\\s*${NUMBER}\\s*tokens(?:\\s*\\(${NUMBER}\\s*in the messages)?`,
  'i',
);
/** Messages that say "too long" without numbers (Bedrock non-Claude models, gateways). */
const UNNUMBERED_TOO_LONG = /input is too long|context length exceeded|context window|too many (input )?tokens/i;

/**
 * Recognise a "prompt too long" message and pull out the prompt size and the limit when present.
 * Returns undefined when the message is about something else.
 */
export function parsePromptTooLong(message: string): PromptTooLong | undefined {
  const anthropic = ANTHROPIC_PROMPT_TOO_LONG.exec(message);
  if (anthropic) return { promptTokens: toInt(anthropic[1]), maxTokens: toInt(anthropic[2]) };
  const inputPlusOutput = ANTHROPIC_INPUT_PLUS_OUTPUT.exec(message);
  if (inputPlusOutput) return { promptTokens: toInt(inputPlusOutput[1]), maxTokens: toInt(inputPlusOutput[3]) };
  const resulted = OPENAI_MESSAGES_RESULTED.exec(message);
  if (resulted) return { promptTokens: toInt(resulted[2]), maxTokens: toInt(resulted[1]) };
  const requested = OPENAI_REQUESTED.exec(message);
  if (requested) return { promptTokens: toInt(requested[3] ?? requested[2]), maxTokens: toInt(requested[1]) };
  if (UNNUMBERED_TOO_LONG.test(message)) return {};
  return undefined;
}

/** First line of a provider message, cut short. */
export function shortProviderMessage(message: string): string {
  const firstLine = message.split('\n', 1)[0]?.trim() ?? '';
  return firstLine.length > MAX_PROVIDER_MESSAGE_CHARS ? `${firstLine.slice(0, MAX_PROVIDER_MESSAGE_CHARS)}…` : firstLine;
}

/** The one constructor of normalised errors: picks the subclass so callers can use `instanceof`. */
export function createLlmError(info: Omit<LlmErrorInfo, 'isRetryable'>, message: string, cause: unknown): LlmError {
  const { kind, ...rest } = info;
  const options = { cause };
  if (kind === 'context_overflow') return new LlmContextOverflowError(message, rest, options);
  if (kind === 'rate_limit') return new LlmRateLimitError(message, rest, options);
  if (kind === 'auth') return new LlmAuthError(message, rest, options);
  return new LlmError(message, { ...info, isRetryable: isRetryableKind(kind) }, options);
}

/** Facts a classifier extracted from an HTTP error answer. */
export interface HttpErrorFacts {
  status: number;
  /** The provider's own message (never the prompt). */
  providerMessage: string;
  headers?: HeaderSource | undefined;
  /** Set when the answer means "prompt too long", with whatever numbers it gave. */
  overflow?: PromptTooLong | undefined;
  /** Overrides the status-derived kind (e.g. Bedrock's exception names). */
  kind?: LlmErrorKind | undefined;
}

export function errorFromHttpAnswer(facts: HttpErrorFacts, context: ClassifyContext, cause: unknown): LlmError {
  const kind = facts.overflow ? 'context_overflow' : (facts.kind ?? kindForStatus(facts.status));
  const detail = shortProviderMessage(facts.providerMessage);
  return createLlmError(
    {
      kind,
      provider: context.provider,
      status: facts.status,
      retryAfterMs: parseRetryAfterMs(facts.headers),
      reportedPromptTokens: facts.overflow?.promptTokens,
      reportedMaxTokens: facts.overflow?.maxTokens,
    },
    `${context.provider}: ${kind.replace('_', ' ')} (HTTP ${facts.status})${detail ? `: ${detail}` : ''}`,
    cause,
  );
}

export function abortedError(context: ClassifyContext, cause: unknown): LlmError {
  return createLlmError({ kind: 'aborted', provider: context.provider }, `${context.provider}: request aborted`, cause);
}

export function timeoutError(context: ClassifyContext, cause: unknown): LlmError {
  return createLlmError({ kind: 'timeout', provider: context.provider }, `${context.provider}: request timed out`, cause);
}

export function connectionError(context: ClassifyContext, cause: unknown): LlmError {
  const reason = cause instanceof Error ? `: ${shortProviderMessage(cause.message)}` : '';
  return createLlmError({ kind: 'transient', provider: context.provider }, `${context.provider}: connection failed${reason}`, cause);
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return errorCode((error as { cause?: unknown }).cause);
}

/**
 * Errors that carry no provider answer: the caller's abort, timeouts and socket failures raised by
 * Node or the HTTP handler. Undefined when the error is none of these.
 */
export function classifyTransportError(error: unknown, context: ClassifyContext): LlmError | undefined {
  if (context.signal?.aborted) return abortedError(context, error);
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'AbortError') return abortedError(context, error);
  if (error.name === 'TimeoutError') return timeoutError(context, error);
  const code = errorCode(error);
  if (code !== undefined && NETWORK_ERROR_CODES.has(code)) return connectionError(context, error);
  return undefined;
}

/**
 * Anything a classifier did not recognise (a bug, an unexpected SDK error). Not retried:
 * a blind retry of an unknown failure spends tokens without a reason to expect success.
 */
export function unexpectedError(error: unknown, context: ClassifyContext): LlmError {
  const detail = error instanceof Error ? shortProviderMessage(error.message) : shortProviderMessage(String(error));
  return new LlmError(
    `${context.provider}: unexpected failure: ${detail}`,
    { kind: 'transient', provider: context.provider, isRetryable: false },
    { cause: error },
  );
}
