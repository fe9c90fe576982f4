/** The Anthropic Messages API as the simulator speaks it: request schema, response and error bodies. */
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

const content = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).loose())]);

const messagesRequest = z
  .object({
    model: z.string().min(1),
    max_tokens: z.number().int().positive(),
    system: content.optional(),
    messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content })).min(1),
  })
  .loose();

/** count_tokens takes the same body without the output cap. */
const countTokensRequest = messagesRequest.omit({ max_tokens: true });

const STOP_REASONS: Record<SimulatedStop, string> = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  context_window: 'model_context_window_exceeded',
};

function errorBody(status: number, type: string, message: string, headers: Record<string, string> = {}): WireResponse {
  return jsonResponse(status, { type: 'error', error: { type, message } }, headers);
}

export const anthropicDialect: SimulatorDialect & {
  parseCountTokens(body: unknown): { model: string; system: string; messages: Array<{ role: 'user' | 'assistant'; content: string }> };
  tokenCount(inputTokens: number): WireResponse;
} = {
  api: 'anthropic',
  tokenFamily: () => 'anthropic',

  credential(headers) {
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string') return apiKey;
    const authorization = headers.authorization;
    return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  },

  parseCall(body) {
    const request = parseBody(messagesRequest, body);
    return {
      api: 'anthropic',
      model: request.model,
      system: contentText(request.system),
      messages: request.messages.map((turn) => ({ role: turn.role, content: contentText(turn.content) })),
      maxOutputTokens: request.max_tokens,
    };
  },

  parseCountTokens(body) {
    const request = parseBody(countTokensRequest, body);
    return {
      model: request.model,
      system: contentText(request.system),
      messages: request.messages.map((turn) => ({ role: turn.role, content: contentText(turn.content) })),
    };
  },

  tokenCount(inputTokens) {
    return jsonResponse(200, { input_tokens: inputTokens });
  },

  completion(result) {
    return jsonResponse(
      200,
      {
        id: `msg_sim_${String(result.serial).padStart(8, '0')}`,
        type: 'message',
        role: 'assistant',
        model: result.call.model,
        content: [{ type: 'text', text: result.text }],
        stop_reason: STOP_REASONS[result.stop],
        stop_sequence: null,
        usage: {
          input_tokens: result.promptTokens,
          output_tokens: result.outputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
      { 'request-id': `req_sim_${result.serial}` },
    );
  },

  failure(failure) {
    switch (failure.kind) {
      case 'context_overflow':
        return errorBody(
          400,
          'invalid_request_error',
          `prompt is too long: ${failure.promptTokens} tokens > ${failure.contextWindow} maximum`,
        );
      case 'rate_limit':
        return errorBody(
          429,
          'rate_limit_error',
          "This request would exceed your organization's rate limit. Please wait before trying again.",
          retryAfterHeader(failure.retryAfterSeconds),
        );
      case 'auth':
        return errorBody(401, 'authentication_error', 'invalid x-api-key');
      case 'invalid_request':
        return errorBody(400, 'invalid_request_error', failure.message);
      case 'request_too_large':
        return errorBody(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
      case 'internal':
        return errorBody(500, 'api_error', `Internal server error (simulator: ${failure.message})`);
    }
  },
};
