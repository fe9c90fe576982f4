/** Bedrock adapter: the Converse API through the official AWS SDK, errors normalised to `LlmError`. */
import { BedrockRuntimeClient, ConverseCommand, type BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import type { LlmProvider, LlmRequest, LlmResponse, UnifiedStopReason } from '../port.js';
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
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  content_filtered: 'content_filter',
  guardrail_intervened: 'content_filter',
  model_context_window_exceeded: 'context_window_exceeded',
};

export function mapBedrockStopReason(raw: string | null | undefined): UnifiedStopReason {
  return (raw && STOP_REASONS[raw]) || 'other';
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
        const output = await client.send(
          new ConverseCommand({
            modelId: options.modelId,
            messages: request.messages.map((turn) => ({ role: turn.role, content: [{ text: turn.content }] })),
            ...(request.system ? { system: [{ text: request.system }] } : {}),
            inferenceConfig: {
              maxTokens: request.maxOutputTokens,
              ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
            },
          }),
          { abortSignal: request.signal },
        );
        const blocks = output.output?.message?.content ?? [];
        const stopReason = output.stopReason ?? 'null';
        return {
          text: blocks.flatMap((block) => (block.text === undefined ? [] : [block.text])).join(''),
          usage: { inputTokens: output.usage?.inputTokens ?? 0, outputTokens: output.usage?.outputTokens ?? 0 },
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
