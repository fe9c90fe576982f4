/** Anthropic adapter: the Messages API through the official SDK, errors normalised to `LlmError`. */
import Anthropic from '@anthropic-ai/sdk';
import type { LlmProvider, LlmRequest, LlmResponse, UnifiedStopReason } from '../port.js';
import { classifyAnthropicError } from './anthropic-errors.js';

export interface AnthropicProviderOptions {
  model: string;
  apiKey: string;
  /** API root without `/v1` (e.g. a gateway or the LLM simulator). @defaultValue the SDK's `https://api.anthropic.com` */
  baseUrl?: string | undefined;
  /** Per-request timeout. @defaultValue the SDK's, which scales with `max_tokens` */
  timeoutMs?: number | undefined;
}

export interface AnthropicProvider extends LlmProvider {
  /** Input tokens the provider counts for this request (system + messages), via `/v1/messages/count_tokens`. */
  countTokens(request: Pick<LlmRequest, 'system' | 'messages' | 'signal'>): Promise<number>;
}

const STOP_REASONS: Record<string, UnifiedStopReason> = {
  end_turn: 'end',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  model_context_window_exceeded: 'context_window_exceeded',
  refusal: 'content_filter',
};

export function mapAnthropicStopReason(raw: string | null | undefined): UnifiedStopReason {
  return (raw && STOP_REASONS[raw]) || 'other';
}

function toAnthropicMessages(request: Pick<LlmRequest, 'messages'>): Anthropic.MessageParam[] {
  return request.messages.map((turn) => ({ role: turn.role, content: turn.content }));
}

export function createAnthropicProvider(options: AnthropicProviderOptions): AnthropicProvider {
  const provider = 'anthropic';
  const client = new Anthropic({
    apiKey: options.apiKey,
    // an ANTHROPIC_AUTH_TOKEN in the environment must not add a second credential
    authToken: null,
    baseURL: options.baseUrl ?? null,
    // the retry policy owns retries; SDK retries would multiply with it
    maxRetries: 0,
    timeout: options.timeoutMs,
  });

  return {
    provider,
    model: options.model,

    async complete(request: LlmRequest): Promise<LlmResponse> {
      const started = performance.now();
      try {
        const message = await client.messages.create(
          {
            model: options.model,
            max_tokens: request.maxOutputTokens,
            messages: toAnthropicMessages(request),
            ...(request.system ? { system: request.system } : {}),
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          },
          { signal: request.signal },
        );
        const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
        return {
          text,
          usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
          stopReason: { unified: mapAnthropicStopReason(message.stop_reason), raw: message.stop_reason ?? 'null' },
          model: message.model,
          latencyMs: Math.round(performance.now() - started),
        };
      } catch (error) {
        throw classifyAnthropicError(error, { provider, signal: request.signal });
      }
    },

    async countTokens(request): Promise<number> {
      try {
        const counted = await client.messages.countTokens(
          {
            model: options.model,
            messages: toAnthropicMessages(request),
            ...(request.system ? { system: request.system } : {}),
          },
          { signal: request.signal },
        );
        return counted.input_tokens;
      } catch (error) {
        throw classifyAnthropicError(error, { provider, signal: request.signal });
      }
    },
  };
}
