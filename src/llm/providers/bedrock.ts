/**
 * Bedrock adapter: the Converse API through the official AWS SDK — tool use (`toolConfig`, `toolUse`
 * blocks), structured output (`outputConfig.textFormat`), prompt caching (`cachePoint` blocks, at most
 * four) — with errors normalised to `LlmError`.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type BedrockRuntimeClientConfig,
  type ContentBlock,
  type ConverseCommandInput,
  type SystemContentBlock,
  type ToolChoice,
} from '@aws-sdk/client-bedrock-runtime';
import type { LlmProvider, LlmRequest, LlmResponse, LlmToolChoice, UnifiedStopReason } from '../port.js';
import { parsedReply } from './structured-reply.js';
import { boundedBreakpoints } from './cache-breakpoints.js';
import { claudeStrictSchema } from './claude-strict-schema.js';
import { classifyBedrockError } from './bedrock-errors.js';

export interface BedrockProviderOptions {
  /** Model or inference-profile id, e.g. `anthropic.claude-3-5-sonnet-20241022-v2:0`. */
  modelId: string;
  region: string;
  /** Endpoint override (VPC endpoint, the LLM simulator). @defaultValue the regional Bedrock runtime endpoint */
  endpoint?: string | undefined;
  /** @defaultValue the standard AWS credential chain (env, profile, SSO, container/instance role) */
  credentials?: BedrockRuntimeClientConfig['credentials'];
  /** Per-request timeout. @defaultValue the SDK's */
  timeoutMs?: number | undefined;
}

export interface BedrockProvider extends LlmProvider {
  /** Close the client's pooled HTTP/2 sessions. */
  close(): void;
}

const STOP_REASONS: Record<string, UnifiedStopReason> = {
  end_turn: 'end',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  content_filtered: 'content_filter',
  guardrail_intervened: 'content_filter',
  model_context_window_exceeded: 'context_window_exceeded',
};

export function mapBedrockStopReason(raw: string | null | undefined): UnifiedStopReason {
  return (raw && STOP_REASONS[raw]) || 'other';
}

const CACHE_POINT = { cachePoint: { type: 'default' as const } };

function toolChoice(choice: LlmToolChoice | undefined): ToolChoice {
  if (choice?.type === 'tool') return { tool: { name: choice.name } };
  return choice?.type === 'any' ? { any: {} } : { auto: {} };
}

/**
 * The Converse input: text, tools or structured output, and `cachePoint` blocks where the request asks for
 * them (Bedrock takes at most four, like the Messages API it fronts for Claude).
 */
export function converseInput(modelId: string, request: LlmRequest): ConverseCommandInput {
  const breakpoints = boundedBreakpoints(request.cache?.breakpoints ?? []);
  const system: SystemContentBlock[] | undefined = request.system
    ? [{ text: request.system }, ...(breakpoints.system ? [CACHE_POINT] : [])]
    : undefined;
  const tools = request.tools ?? [];
  return {
    modelId,
    messages: request.messages.map((turn, index) => ({
      role: turn.role,
      content: [{ text: turn.content }, ...(breakpoints.messages.has(index) ? [CACHE_POINT] : [])] as ContentBlock[],
    })),
    ...(system ? { system } : {}),
    inferenceConfig: {
      maxTokens: request.maxOutputTokens,
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    },
    ...(tools.length > 0
      ? {
          toolConfig: {
            tools: tools.map((tool) => ({
              toolSpec: {
                name: tool.name,
                description: tool.description,
                // the SDK's document type is a JSON value; a JSON Schema is one
                inputSchema: { json: (tool.strict ? claudeStrictSchema(tool.inputSchema) : tool.inputSchema) as never },
                ...(tool.strict ? { strict: true } : {}),
              },
            })),
            toolChoice: toolChoice(request.toolChoice),
          },
        }
      : {}),
    ...(request.responseFormat
      ? {
          outputConfig: {
            textFormat: {
              type: 'json_schema' as const,
              structure: {
                jsonSchema: {
                  name: request.responseFormat.name,
                  ...(request.responseFormat.description ? { description: request.responseFormat.description } : {}),
                  schema: JSON.stringify(claudeStrictSchema(request.responseFormat.schema)),
                },
              },
            },
          },
        }
      : {}),
  };
}

export function createBedrockProvider(options: BedrockProviderOptions): BedrockProvider {
  const provider = 'bedrock';
  const client = new BedrockRuntimeClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // the retry policy owns retries; SDK attempts would multiply with it
    maxAttempts: 1,
    ...(options.timeoutMs === undefined ? {} : { requestHandler: { requestTimeout: options.timeoutMs } }),
  });

  return {
    provider,
    model: options.modelId,

    async complete(request: LlmRequest): Promise<LlmResponse> {
      const started = performance.now();
      try {
        const output = await client.send(new ConverseCommand(converseInput(options.modelId, request)), { abortSignal: request.signal });
        const blocks = output.output?.message?.content ?? [];
        const stopReason = output.stopReason ?? 'null';
        const cacheRead = output.usage?.cacheReadInputTokens ?? 0;
        const cacheWrite = output.usage?.cacheWriteInputTokens ?? 0;
        const text = blocks.flatMap((block) => (block.text === undefined ? [] : [block.text])).join('');
        return {
          text,
          ...parsedReply(request, text),
          toolCalls: blocks.flatMap((block) =>
            block.toolUse ? [{ id: block.toolUse.toolUseId ?? '', name: block.toolUse.name ?? '', input: block.toolUse.input }] : [],
          ),
          // like the Messages API, `inputTokens` counts only what was neither read from nor written to the cache
          usage: {
            inputTokens: (output.usage?.inputTokens ?? 0) + cacheRead + cacheWrite,
            outputTokens: output.usage?.outputTokens ?? 0,
            cacheReadTokens: cacheRead,
            cacheWriteTokens: cacheWrite,
          },
          stopReason: { unified: mapBedrockStopReason(stopReason), raw: stopReason },
          model: options.modelId,
          latencyMs: Math.round(performance.now() - started),
        };
      } catch (error) {
        throw classifyBedrockError(error, { provider, signal: request.signal });
      }
    },

    close(): void {
      client.destroy();
    },
  };
}
