/**
 * The Anthropic Messages API as the simulator speaks it: request schema (tools, `tool_choice`,
 * `output_config.format`, `cache_control` on tools, system and message blocks, or top-level), response
 * (`text` and `tool_use` blocks, usage with `cache_creation_input_tokens` and `cache_read_input_tokens`)
 * and error bodies.
 */
import { z } from 'zod';
import type { LlmToolChoice } from '../port.js';
import {
  contentText,
  jsonResponse,
  noCacheMarks,
  parseBody,
  retryAfterHeader,
  type CacheMarks,
  type SimulatedStop,
  type SimulatorDialect,
  type WireResponse,
} from './dialect.js';

const cacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() }).loose();
const block = z.object({ type: z.string(), text: z.string().optional(), cache_control: cacheControl.nullish() }).loose();
const content = z.union([z.string(), z.array(block)]);

const tool = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    input_schema: z.object({ type: z.literal('object') }).loose(),
    strict: z.boolean().optional(),
    cache_control: cacheControl.nullish(),
  })
  .loose();

const toolChoice = z.union([
  z.object({ type: z.literal('auto') }).loose(),
  z.object({ type: z.literal('any') }).loose(),
  z.object({ type: z.literal('none') }).loose(),
  z.object({ type: z.literal('tool'), name: z.string().min(1) }).loose(),
]);

const messagesRequest = z
  .object({
    model: z.string().min(1),
    max_tokens: z.number().int().positive(),
    system: content.optional(),
    messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content })).min(1),
    tools: z.array(tool).optional(),
    tool_choice: toolChoice.optional(),
    output_config: z
      .object({ format: z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish() })
      .loose()
      .optional(),
    cache_control: cacheControl.nullish(),
  })
  .loose();

type MessagesRequest = z.infer<typeof messagesRequest>;

function marked(value: z.infer<typeof content> | undefined): number {
  return typeof value === 'object' ? value.filter((part) => part.cache_control).length : 0;
}

/** Where the request put `cache_control`: the last marked block of each place ends a cacheable prefix there. */
function cacheMarksOf(request: MessagesRequest): CacheMarks {
  const marks = noCacheMarks();
  const toolMarks = (request.tools ?? []).filter((candidate) => candidate.cache_control).length;
  marks.tools = toolMarks > 0;
  marks.system = marked(request.system) > 0;
  request.messages.forEach((turn, index) => {
    if (marked(turn.content) > 0) marks.messages.add(index);
  });
  marks.last = Boolean(request.cache_control);
  marks.count = toolMarks + marked(request.system) + request.messages.reduce((sum, turn) => sum + marked(turn.content), 0);
  return marks;
}

function choiceOf(choice: z.infer<typeof toolChoice> | undefined): LlmToolChoice | undefined {
  if (!choice || choice.type === 'none') return undefined;
  return choice.type === 'tool' ? { type: 'tool', name: choice.name } : { type: choice.type };
}

/** count_tokens takes the same body without the output cap. */
const countTokensRequest = messagesRequest.omit({ max_tokens: true });

const STOP_REASONS: Record<SimulatedStop, string> = {
  end: 'end_turn',
  tool_use: 'tool_use',
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
    const choice = choiceOf(request.tool_choice);
    const format = request.output_config?.format;
    return {
      api: 'anthropic',
      model: request.model,
      system: contentText(request.system),
      messages: request.messages.map((turn) => ({ role: turn.role, content: contentText(turn.content) })),
      maxOutputTokens: request.max_tokens,
      ...(request.tools && request.tools.length > 0 && request.tool_choice?.type !== 'none'
        ? {
            tools: request.tools.map((candidate) => ({
              name: candidate.name,
              description: candidate.description ?? '',
              inputSchema: candidate.input_schema,
              ...(candidate.strict ? { strict: true } : {}),
            })),
          }
        : {}),
      ...(choice ? { toolChoice: choice } : {}),
      ...(format ? { responseFormat: { name: 'output', schema: format.schema } } : {}),
      cacheMarks: cacheMarksOf(request),
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
        content: [
          ...(result.text === '' && result.toolCalls.length > 0 ? [] : [{ type: 'text', text: result.text }]),
          ...result.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input })),
        ],
        stop_reason: STOP_REASONS[result.stop],
        stop_sequence: null,
        // input_tokens counts only what follows the last breakpoint: neither read from the cache nor written to it
        usage: {
          input_tokens: result.promptTokens - result.cacheReadTokens - result.cacheWriteTokens,
          output_tokens: result.outputTokens,
          cache_creation_input_tokens: result.cacheWriteTokens,
          cache_read_input_tokens: result.cacheReadTokens,
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
