/**
 * OpenAI adapter: Chat Completions through the official SDK. With a `baseUrl` it is also the
 * `openai-compatible` provider for Ollama, vLLM, LM Studio and gateways.
 */
import OpenAI from 'openai';
import type { LlmProvider, LlmRequest, LlmResponse, UnifiedStopReason } from '../port.js';
import { classifyOpenAiError } from './openai-errors.js';
import { requestSignal } from '../../common/request-signal.js';

/**
 * Which request field carries the output cap. OpenAI deprecated `max_tokens` and its reasoning
 * models reject it, so OpenAI proper gets `max_completion_tokens`; several compatible servers
 * (older vLLM, Ollama, LM Studio) only know `max_tokens` and would silently ignore the new name,
 * leaving the reply uncapped — so compatible servers get `max_tokens`.
 */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

export interface OpenAiProviderOptions {
  model: string;
  apiKey: string;
  /** API root including `/v1`. @defaultValue the SDK's `https://api.openai.com/v1` */
  baseUrl?: string | undefined;
  /** Provider name on responses and errors. @defaultValue `openai` */
  provider?: 'openai' | 'openai-compatible' | undefined;
  /** @defaultValue `max_completion_tokens` for `openai`, `max_tokens` for `openai-compatible` */
  maxTokensField?: MaxTokensField | undefined;
  /** Per-request timeout. @defaultValue the SDK's (10 minutes) */
  timeoutMs?: number | undefined;
}

const FINISH_REASONS: Record<string, UnifiedStopReason> = {
  stop: 'end',
  length: 'max_tokens',
  content_filter: 'content_filter',
};

export function mapOpenAiFinishReason(raw: string | null | undefined): UnifiedStopReason {
  return (raw && FINISH_REASONS[raw]) || 'other';
}

export function createOpenAiProvider(options: OpenAiProviderOptions): LlmProvider {
  const provider = options.provider ?? 'openai';
  const maxTokensField = options.maxTokensField ?? (provider === 'openai' ? 'max_completion_tokens' : 'max_tokens');
  const client = new OpenAI({
    apiKey: options.apiKey,
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
      // the SDK never removes the listener it adds to a request's signal: it gets one that lives as long as this call
      const scoped = requestSignal(request.signal);
      try {
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          ...(request.system ? [{ role: 'system' as const, content: request.system }] : []),
          ...request.messages.map((turn) => ({ role: turn.role, content: turn.content })),
        ];
        const completion = await client.chat.completions.create(
          {
            model: options.model,
            messages,
            [maxTokensField]: request.maxOutputTokens,
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          },
          { signal: scoped.signal },
        );
        const choice = completion.choices[0];
        const finishReason = choice?.finish_reason ?? null;
        return {
          text: choice?.message.content ?? '',
          usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
          stopReason: { unified: mapOpenAiFinishReason(finishReason), raw: finishReason ?? 'null' },
          model: completion.model,
          latencyMs: Math.round(performance.now() - started),
        };
      } catch (error) {
        throw classifyOpenAiError(error, { provider, signal: request.signal });
      } finally {
        scoped.release();
      }
    },
  };
}
