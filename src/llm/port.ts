/** The LlmProvider port: one plain contract every provider adapter implements. */

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A JSON Schema object (the 2020-12 subset the providers accept), e.g. from `z.toJSONSchema`. */
export type JsonSchema = Record<string, unknown>;

/** A function the model may call; its arguments arrive as a typed `LlmToolCall`. */
export interface LlmTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /**
   * The schema is in the providers' strict subset (every property required, no open objects), so the
   * adapter may ask the provider to enforce it (`strict: true`). Otherwise the arguments are only guided.
   */
  strict?: boolean;
}

/** `any`: exactly one call of some offered tool; `tool`: a call of that tool; `auto`: the model decides. */
export type LlmToolChoice = { type: 'auto' } | { type: 'any' } | { type: 'tool'; name: string };

/** Schema-constrained output: the reply text is one JSON value of this schema (always in the strict subset). */
export interface LlmResponseFormat {
  name: string;
  description?: string;
  schema: JsonSchema;
}

/**
 * Where a stable prefix of the prompt ends. The order the providers render a request in is tools →
 * system → messages, so a breakpoint after the system prompt covers the tool definitions too.
 */
export type CacheBreakpoint = { after: 'system' } | { after: 'message'; index: number };

/** Prompt caching hints: breakpoints for providers that take them, a routing key for those that cache on their own. */
export interface LlmCacheHints {
  breakpoints: CacheBreakpoint[];
  /** Groups requests that share a prefix (OpenAI `prompt_cache_key`). Never a secret. */
  key?: string;
}

export interface LlmRequest {
  system?: string;
  messages: LlmMessage[];
  maxOutputTokens: number;
  temperature?: number;
  signal?: AbortSignal;
  tools?: LlmTool[];
  /** @defaultValue `auto` when tools are given */
  toolChoice?: LlmToolChoice;
  responseFormat?: LlmResponseFormat;
  /** Absent: no caching hints are sent (automatic provider caching may still apply). */
  cache?: LlmCacheHints;
}

/** Provider-independent reason the generation stopped; `raw` keeps the provider's own word. */
export type UnifiedStopReason =
  | 'end'
  | 'tool_use'
  | 'max_tokens'
  | 'context_window_exceeded'
  | 'stop_sequence'
  | 'content_filter'
  | 'other';

export interface LlmUsage {
  /** Every input token of the request: uncached, read from the cache and written to it. */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, served from the provider's prompt cache. @defaultValue 0 */
  cacheReadTokens?: number;
  /** Of `inputTokens`, written to the prompt cache (some providers bill these above the input price). @defaultValue 0 */
  cacheWriteTokens?: number;
}

/** One call of an offered tool. `input` is the parsed JSON arguments, or the raw text when they were not valid JSON. */
export interface LlmToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface LlmResponse {
  text: string;
  /** The tool calls of the reply, in order. @defaultValue none */
  toolCalls?: LlmToolCall[];
  /** With a response format: the reply's JSON, parsed; absent when the reply is not valid JSON. */
  parsed?: unknown;
  usage: LlmUsage;
  stopReason: { unified: UnifiedStopReason; raw: string };
  model: string;
  latencyMs: number;
}

export interface LlmProvider {
  /** `anthropic`, `openai`, `openai-compatible`, `bedrock`, `offline`, … */
  readonly provider: string;
  readonly model: string;
  /** Throws `LlmError` (normalised) on failure. Never retries on its own: the retry policy owns that. */
  complete(request: LlmRequest): Promise<LlmResponse>;
}
