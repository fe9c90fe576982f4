/**
 * The provider slot for the offline analyst: a local function stands in for the model, behind the same
 * port, so the embedded mode runs the whole pipeline with no server and no key. The analyst answers in
 * text; when the request offers tools or a response format, its JSON answer goes back as the tool call or
 * structured output a model would send (native-answer.ts), so the tools path runs offline too.
 */
import { AssayError } from '../../errors/index.js';
import { nativeAnswer } from '../native-answer.js';
import type { LlmProvider, LlmRequest, LlmResponse } from '../port.js';
import { parsedReply } from './structured-reply.js';
import { estimateTokens } from '../tokens.js';
import { abortedError, classifyTransportError, unexpectedError } from './errors.js';
import { estimatePromptTokens } from './prompt-size.js';

/** The analyst: reads the request, returns the reply text. */
export type OfflineBrain = (request: LlmRequest) => string | Promise<string>;

export interface OfflineProviderOptions {
  brain: OfflineBrain;
  /** @defaultValue `analyst` (the catalog's offline model) */
  model?: string | undefined;
}

/** The model catalog budgets offline models with the default estimator family. */
const OFFLINE_TOKEN_FAMILY = 'default';

export function createOfflineProvider(options: OfflineProviderOptions): LlmProvider {
  const provider = 'offline';
  const model = options.model ?? 'analyst';
  return {
    provider,
    model,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const context = { provider, signal: request.signal };
      if (request.signal?.aborted) throw abortedError(context, request.signal.reason);
      const started = performance.now();
      let text: string;
      try {
        text = await options.brain(request);
      } catch (error) {
        // the analyst's own typed failures (a warehouse error while profiling, a cancellation) stay as they are
        if (error instanceof AssayError) throw error;
        throw classifyTransportError(error, context) ?? unexpectedError(error, context);
      }
      const native = nativeAnswer(text, request);
      const toolCalls = native.toolCalls.map((call, index) => ({ id: `offline-call-${index + 1}`, ...call }));
      const written = toolCalls.length > 0 ? toolCalls.map((call) => JSON.stringify(call.input)).join('') : native.text;
      return {
        text: native.text,
        toolCalls,
        ...parsedReply(request, native.text),
        // estimates, not a tokenizer's count: the same numbers the prompt builder budgeted with
        usage: {
          inputTokens: estimatePromptTokens(request, OFFLINE_TOKEN_FAMILY),
          outputTokens: estimateTokens(written, OFFLINE_TOKEN_FAMILY),
        },
        stopReason: toolCalls.length > 0 ? { unified: 'tool_use', raw: 'tool_use' } : { unified: 'end', raw: 'end' },
        model,
        latencyMs: Math.round(performance.now() - started),
      };
    },
  };
}
