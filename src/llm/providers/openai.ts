/**
 * OpenAI adapter: Chat Completions through the official SDK — function calling (`tools`, `tool_calls`),
 * structured output (`response_format` with a strict JSON schema), and automatic prompt caching (the
 * adapter sends `prompt_cache_key` and reads `usage.prompt_tokens_details.cached_tokens`). With a
 * `baseUrl` it is also the `openai-compatible` provider for Ollama, vLLM, LM Studio and gateways.
 */
import OpenAI from 'openai';
import type { LlmProvider, LlmRequest, LlmResponse, LlmToolCall, LlmToolChoice, UnifiedStopReason } from '../port.js';
import { parsedReply } from './structured-reply.js';
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
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'content_filter',
};

export function mapOpenAiFinishReason(raw: string | null | undefined): UnifiedStopReason {
  return (raw && FINISH_REASONS[raw]) || 'other';
}

function toolChoice(choice: LlmToolChoice | undefined): OpenAI.ChatCompletionToolChoiceOption {
  if (choice?.type === 'tool') return { type: 'function', function: { name: choice.name } };
  return choice?.type === 'any' ? 'required' : 'auto';
}

/** The request body: text, function tools or a strict response format, and the cache routing key. */
export function openAiChatParams(
  model: string,
  request: LlmRequest,
  maxTokensField: MaxTokensField,
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    ...(request.system ? [{ role: 'system' as const, content: request.system }] : []),
    ...request.messages.map((turn) => ({ role: turn.role, content: turn.content })),
  ];
  const tools = request.tools ?? [];
  return {
    model,
    messages,
    [maxTokensField]: request.maxOutputTokens,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.inputSchema,
              ...(tool.strict ? { strict: true } : {}),
            },
          })),
          tool_choice: toolChoice(request.toolChoice),
          // one action per turn: the engine carries out one call and rebuilds the conversation from it
          parallel_tool_calls: false,
        }
      : {}),
    ...(request.responseFormat
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: {
              name: request.responseFormat.name,
              ...(request.responseFormat.description ? { description: request.responseFormat.description } : {}),
              schema: request.responseFormat.schema,
              strict: true,
            },
          },
        }
      : {}),
    ...(request.cache?.key ? { prompt_cache_key: request.cache.key } : {}),
  };
}

/** Function arguments arrive as a JSON string; one that does not parse is kept as text for the caller to reject. */
function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function openAiToolCalls(message: OpenAI.ChatCompletionMessage | undefined): LlmToolCall[] {
  return (message?.tool_calls ?? []).flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) }] : [],
  );
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
        const completion = await client.chat.completions.create(openAiChatParams(options.model, request, maxTokensField), {
          signal: scoped.signal,
        });
        const choice = completion.choices[0];
        const finishReason = choice?.finish_reason ?? null;
        const details = completion.usage?.prompt_tokens_details;
        const text = choice?.message.content ?? '';
        return {
          text,
          toolCalls: openAiToolCalls(choice?.message),
          ...parsedReply(request, text),
          // `prompt_tokens` already includes the cached part
          usage: {
            inputTokens: completion.usage?.prompt_tokens ?? 0,
            outputTokens: completion.usage?.completion_tokens ?? 0,
            cacheReadTokens: details?.cached_tokens ?? 0,
            cacheWriteTokens: details?.cache_write_tokens ?? 0,
          },
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
