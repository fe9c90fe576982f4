/** The LlmProvider port: one plain contract every provider adapter implements. */

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  system?: string;
  messages: LlmMessage[];
  maxOutputTokens: number;
  temperature?: number;
  signal?: AbortSignal;
}

/** Provider-independent reason the generation stopped; `raw` keeps the provider's own word. */
export type UnifiedStopReason = 'end' | 'max_tokens' | 'context_window_exceeded' | 'stop_sequence' | 'content_filter' | 'other';

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmResponse {
  text: string;
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
