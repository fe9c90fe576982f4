/**
 * Bedrock Converse as the simulator speaks it. Errors follow the restJson1 protocol the AWS SDK reads:
 * the exception name in the `x-amzn-errortype` header (the SDK keeps the part before `:`), the
 * message in the JSON body's `message`.
 */
import { z } from 'zod';
import {
  contentText,
  jsonResponse,
  parseBody,
  retryAfterHeader,
  type SimulatedStop,
  type SimulatorDialect,
  type WireResponse,
} from './dialect.js';

/** Output cap when `inferenceConfig.maxTokens` is absent (Bedrock then uses a model default). */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** The namespace suffix Bedrock puts after the exception name in `x-amzn-errortype`. */
const ERROR_TYPE_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

const converseRequest = z
  .object({
    messages: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.array(z.object({ text: z.string().optional() }).loose()) }))
      .min(1),
    system: z.array(z.object({ text: z.string().optional() }).loose()).optional(),
    inferenceConfig: z.object({ maxTokens: z.number().int().positive().optional() }).loose().optional(),
  })
  .loose();

const STOP_REASONS: Record<SimulatedStop, string> = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  context_window: 'model_context_window_exceeded',
};

/** SigV4: `Authorization: AWS4-HMAC-SHA256 Credential=<access key id>/<date>/<region>/bedrock/aws4_request, …`. */
const SIGV4_CREDENTIAL = /Credential=([^/,\s]+)\//;

function exception(status: number, name: string, message: string, headers: Record<string, string> = {}): WireResponse {
  return jsonResponse(status, { message }, { 'x-amzn-errortype': `${name}:${ERROR_TYPE_NAMESPACE}`, ...headers });
}

function isClaude(model: string): boolean {
  return model.includes('anthropic.');
}

export const bedrockDialect: SimulatorDialect = {
  api: 'bedrock',
  // the model catalog budgets every Bedrock model with the default family; count as it does
  tokenFamily: () => 'default',

  credential(headers) {
    const authorization = headers.authorization;
    if (!authorization) return undefined;
    if (authorization.startsWith('Bearer ')) return authorization.slice('Bearer '.length);
    return SIGV4_CREDENTIAL.exec(authorization)?.[1];
  },

  parseCall(body, pathModel) {
    const request = parseBody(converseRequest, body);
    return {
      api: 'bedrock',
      model: pathModel ?? '',
      system: contentText(request.system),
      messages: request.messages.map((turn) => ({ role: turn.role, content: contentText(turn.content) })),
      maxOutputTokens: request.inferenceConfig?.maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    };
  },

  completion(result) {
    return jsonResponse(
      200,
      {
        output: { message: { role: 'assistant', content: [{ text: result.text }] } },
        stopReason: STOP_REASONS[result.stop],
        usage: {
          inputTokens: result.promptTokens,
          outputTokens: result.outputTokens,
          totalTokens: result.promptTokens + result.outputTokens,
        },
        metrics: { latencyMs: result.latencyMs },
      },
      { 'x-amzn-requestid': `sim-${result.serial}` },
    );
  },

  failure(failure) {
    switch (failure.kind) {
      case 'context_overflow':
        // Claude on Bedrock passes Anthropic's numbers through; other models say only "too long"
        return exception(
          400,
          'ValidationException',
          isClaude(failure.model)
            ? `The model returned the following errors: prompt is too long: ${failure.promptTokens} tokens > ${failure.contextWindow} maximum`
            : 'Input is too long for requested model.',
        );
      case 'rate_limit':
        return exception(
          429,
          'ThrottlingException',
          'Too many requests, please wait before trying again.',
          retryAfterHeader(failure.retryAfterSeconds),
        );
      case 'auth':
        return exception(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      case 'invalid_request':
        return exception(400, 'ValidationException', failure.message);
      case 'request_too_large':
        return exception(413, 'ValidationException', 'Input is too long for requested model.');
      case 'internal':
        return exception(
          500,
          'InternalServerException',
          `The server encountered an internal error while processing the request. (simulator: ${failure.message})`,
        );
    }
  },
};
