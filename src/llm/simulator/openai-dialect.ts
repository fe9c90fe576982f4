/**
 * OpenAI Chat Completions as the simulator speaks it: request schema (function `tools`, `tool_choice`,
 * `response_format` with a JSON schema, `prompt_cache_key`), response (`tool_calls`, usage with
 * `prompt_tokens_details.cached_tokens`) and error bodies. Prompt caching is automatic: no markers.
 */
import { z } from 'zod';
import type { LlmToolChoice } from '../port.js';
import {
  contentText,
  jsonResponse,
  parseBody,
  retryAfterHeader,
  toolArguments,
  type SimulatedStop,
  type SimulatorDialect,
  type WireResponse,
} from './dialect.js';

/** Output cap when the request sets none (OpenAI then allows up to the window; this keeps replies bounded). */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

const content = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).loose()), z.null()]);

const chatRequest = z
  .object({
    model: z.string().min(1),
    messages: z
      .array(z.object({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']), content: content.optional() }).loose())
      .min(1),
    max_completion_tokens: z.number().int().positive().nullish(),
    max_tokens: z.number().int().positive().nullish(),
    tools: z
      .array(
        z
          .object({
            type: z.literal('function'),
            function: z
              .object({
                name: z.string().min(1),
                description: z.string().optional(),
                parameters: z.record(z.string(), z.unknown()).optional(),
                strict: z.boolean().nullish(),
              })
              .loose(),
          })
          .loose(),
      )
      .optional(),
    tool_choice: z
      .union([
        z.enum(['none', 'auto', 'required']),
        z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }).loose() }).loose(),
      ])
      .optional(),
    response_format: z
      .union([
        z.object({ type: z.literal('text') }).loose(),
        z.object({ type: z.literal('json_object') }).loose(),
        z
          .object({
            type: z.literal('json_schema'),
            json_schema: z
              .object({
                name: z.string().min(1),
                description: z.string().optional(),
                schema: z.record(z.string(), z.unknown()).optional(),
                strict: z.boolean().nullish(),
              })
              .loose(),
          })
          .loose(),
      ])
      .optional(),
    prompt_cache_key: z.string().nullish(),
  })
  .loose();

type ChatRequest = z.infer<typeof chatRequest>;

function choiceOf(choice: ChatRequest['tool_choice']): LlmToolChoice | undefined {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.function.name };
}

const FINISH_REASONS: Record<SimulatedStop, string> = {
  end: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  context_window: 'length',
};

function errorBody(
  status: number,
  error: { message: string; type: string; param: string | null; code: string | null },
  headers: Record<string, string> = {},
): WireResponse {
  return jsonResponse(status, { error }, headers);
}

export const openAiDialect: SimulatorDialect = {
  api: 'openai',
  tokenFamily: () => 'openai',

  credential(headers) {
    const authorization = headers.authorization;
    return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  },

  parseCall(body) {
    const request = parseBody(chatRequest, body);
    const isInstruction = (role: string): boolean => role === 'system' || role === 'developer';
    return {
      api: 'openai',
      model: request.model,
      system: request.messages
        .filter((message) => isInstruction(message.role))
        .map((message) => contentText(message.content ?? undefined))
        .join('\n'),
      messages: request.messages.flatMap((message) =>
        message.role === 'user' || message.role === 'assistant'
          ? [{ role: message.role, content: contentText(message.content ?? undefined) }]
          : [],
      ),
      maxOutputTokens: request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      ...(request.tools && request.tools.length > 0 && request.tool_choice !== 'none'
        ? {
            tools: request.tools.map((candidate) => ({
              name: candidate.function.name,
              description: candidate.function.description ?? '',
              inputSchema: candidate.function.parameters ?? { type: 'object', properties: {} },
              ...(candidate.function.strict ? { strict: true } : {}),
            })),
          }
        : {}),
      ...(choiceOf(request.tool_choice) ? { toolChoice: choiceOf(request.tool_choice) as LlmToolChoice } : {}),
      ...(request.response_format?.type === 'json_schema'
        ? {
            responseFormat: {
              name: request.response_format.json_schema.name,
              schema: request.response_format.json_schema.schema ?? { type: 'object' },
            },
          }
        : {}),
    };
  },

  completion(result) {
    return jsonResponse(
      200,
      {
        id: `chatcmpl-sim-${result.serial}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: result.call.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: result.toolCalls.length > 0 && result.text === '' ? null : result.text,
              refusal: null,
              ...(result.toolCalls.length > 0
                ? {
                    tool_calls: result.toolCalls.map((call) => ({
                      id: call.id,
                      type: 'function',
                      function: { name: call.name, arguments: toolArguments(call) },
                    })),
                  }
                : {}),
            },
            finish_reason: FINISH_REASONS[result.stop],
            logprobs: null,
          },
        ],
        // prompt_tokens includes the cached part
        usage: {
          prompt_tokens: result.promptTokens,
          completion_tokens: result.outputTokens,
          total_tokens: result.promptTokens + result.outputTokens,
          prompt_tokens_details: { cached_tokens: result.cacheReadTokens, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
      },
      { 'x-request-id': `req_sim_${result.serial}` },
    );
  },

  failure(failure) {
    switch (failure.kind) {
      case 'context_overflow':
        return errorBody(400, {
          message: `This model's maximum context length is ${failure.contextWindow} tokens. However, your messages resulted in ${failure.promptTokens} tokens. Please reduce the length of the messages.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        });
      case 'rate_limit':
        return errorBody(
          429,
          {
            message: `Rate limit reached for requests. Please try again in ${failure.retryAfterSeconds}s.`,
            type: 'requests',
            param: null,
            code: 'rate_limit_exceeded',
          },
          retryAfterHeader(failure.retryAfterSeconds),
        );
      case 'auth':
        return errorBody(401, {
          message: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        });
      case 'invalid_request':
        return errorBody(400, { message: failure.message, type: 'invalid_request_error', param: null, code: null });
      case 'request_too_large':
        return errorBody(413, { message: 'Request too large.', type: 'invalid_request_error', param: null, code: 'request_too_large' });
      case 'internal':
        return errorBody(500, {
          message: `The server had an error while processing your request. Sorry about that! (simulator: ${failure.message})`,
          type: 'server_error',
          param: null,
          code: null,
        });
    }
  },
};
