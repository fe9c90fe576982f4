/**
 * Anthropic adapter: the Messages API through the official SDK — tool use (`tools`, `tool_choice`,
 * `tool_use` blocks), structured output (`output_config.format`), prompt caching (`cache_control`
 * breakpoints, at most four) — with errors normalised to `LlmError`.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { LlmProvider, LlmRequest, LlmResponse, LlmToolChoice, UnifiedStopReason } from '../port.js';
import { parsedReply } from './structured-reply.js';
import { classifyAnthropicError } from './anthropic-errors.js';
import { boundedBreakpoints } from './cache-breakpoints.js';
import { claudeStrictSchema } from './claude-strict-schema.js';
import { withoutSdkDeprecationNotice } from './sdk-warnings.js';

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
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  model_context_window_exceeded: 'context_window_exceeded',
  refusal: 'content_filter',
};

export function mapAnthropicStopReason(raw: string | null | undefined): UnifiedStopReason {
  return (raw && STOP_REASONS[raw]) || 'other';
}

const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

function toAnthropicMessages(request: Pick<LlmRequest, 'messages'>, cached: ReadonlySet<number> = new Set()): Anthropic.MessageParam[] {
  return request.messages.map((turn, index) =>
    cached.has(index)
      ? { role: turn.role, content: [{ type: 'text', text: turn.content, cache_control: EPHEMERAL }] }
      : { role: turn.role, content: turn.content },
  );
}

function toolChoice(choice: LlmToolChoice | undefined): Anthropic.ToolChoice {
  // one action per turn: the engine carries out one tool call and rebuilds the conversation from it
  if (choice?.type === 'tool') return { type: 'tool', name: choice.name, disable_parallel_tool_use: true };
  if (choice?.type === 'any') return { type: 'any', disable_parallel_tool_use: true };
  return { type: 'auto', disable_parallel_tool_use: true };
}

/** The request body: text, tools or structured output, and cache markers where the request asks for them. */
export function anthropicMessageParams(model: string, request: LlmRequest): Anthropic.MessageCreateParamsNonStreaming {
  const breakpoints = boundedBreakpoints(request.cache?.breakpoints ?? []);
  const system = request.system
    ? breakpoints.system
      ? [{ type: 'text' as const, text: request.system, cache_control: EPHEMERAL }]
      : request.system
    : undefined;
  return {
    model,
    max_tokens: request.maxOutputTokens,
    messages: toAnthropicMessages(request, breakpoints.messages),
    ...(system === undefined ? {} : { system }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.tools && request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: (tool.strict ? claudeStrictSchema(tool.inputSchema) : tool.inputSchema) as Anthropic.Tool.InputSchema,
            ...(tool.strict ? { strict: true } : {}),
          })),
          tool_choice: toolChoice(request.toolChoice),
        }
      : {}),
    ...(request.responseFormat
      ? { output_config: { format: { type: 'json_schema' as const, schema: claudeStrictSchema(request.responseFormat.schema) } } }
      : {}),
  };
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
        const params = anthropicMessageParams(options.model, request);
        const message = await withoutSdkDeprecationNotice(() => client.messages.create(params, { signal: request.signal }));
        const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
        const toolCalls = message.content.flatMap((block) =>
          block.type === 'tool_use' ? [{ id: block.id, name: block.name, input: block.input }] : [],
        );
        const cacheRead = message.usage.cache_read_input_tokens ?? 0;
        const cacheWrite = message.usage.cache_creation_input_tokens ?? 0;
        return {
          text,
          toolCalls,
          ...parsedReply(request, text),
          // `input_tokens` counts only what follows the last breakpoint; the request's input is all three
          usage: {
            inputTokens: message.usage.input_tokens + cacheRead + cacheWrite,
            outputTokens: message.usage.output_tokens,
            cacheReadTokens: cacheRead,
            cacheWriteTokens: cacheWrite,
          },
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
