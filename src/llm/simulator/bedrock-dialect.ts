/**
 * Bedrock Converse as the simulator speaks it: `toolConfig`, `outputConfig.textFormat`, `cachePoint` blocks
 * in tools, system and messages; replies with `toolUse` blocks and usage with `cacheReadInputTokens` and
 * `cacheWriteInputTokens`. Errors follow the restJson1 protocol the AWS SDK reads: the exception name in
 * the `x-amzn-errortype` header (the SDK keeps the part before `:`), the message in the JSON body's `message`.
 */
import { z } from 'zod';
import type { LlmToolChoice } from '../port.js';
import {
  SimulatedRequestError,
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

/** Output cap when `inferenceConfig.maxTokens` is absent (Bedrock then uses a model default). */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** The namespace suffix Bedrock puts after the exception name in `x-amzn-errortype`. */
const ERROR_TYPE_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

const cachePoint = z.object({ type: z.literal('default'), ttl: z.string().optional() }).loose();
const contentBlock = z.object({ text: z.string().optional(), cachePoint: cachePoint.optional() }).loose();

const converseRequest = z
  .object({
    messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.array(contentBlock) })).min(1),
    system: z.array(contentBlock).optional(),
    inferenceConfig: z.object({ maxTokens: z.number().int().positive().optional() }).loose().optional(),
    toolConfig: z
      .object({
        tools: z.array(
          z
            .object({
              toolSpec: z
                .object({
                  name: z.string().min(1),
                  description: z.string().optional(),
                  inputSchema: z.object({ json: z.record(z.string(), z.unknown()) }).loose(),
                  strict: z.boolean().optional(),
                })
                .loose()
                .optional(),
              cachePoint: cachePoint.optional(),
            })
            .loose(),
        ),
        toolChoice: z
          .object({
            any: z.object({}).loose().optional(),
            auto: z.object({}).loose().optional(),
            tool: z.object({ name: z.string() }).loose().optional(),
          })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
    outputConfig: z
      .object({
        textFormat: z
          .object({
            type: z.literal('json_schema'),
            structure: z.object({ jsonSchema: z.object({ schema: z.string(), name: z.string().optional() }).loose() }).loose(),
          })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

type ConverseRequest = z.infer<typeof converseRequest>;

/** A `cachePoint` block ends a cacheable prefix with the blocks before it. */
function cacheMarksOf(request: ConverseRequest): CacheMarks {
  const marks = noCacheMarks();
  const points = (blocks: ReadonlyArray<{ cachePoint?: unknown }> | undefined): number =>
    (blocks ?? []).filter((entry) => entry.cachePoint !== undefined).length;
  const toolPoints = points(request.toolConfig?.tools);
  marks.tools = toolPoints > 0;
  marks.system = points(request.system) > 0;
  request.messages.forEach((turn, index) => {
    if (points(turn.content) > 0) marks.messages.add(index);
  });
  marks.count = toolPoints + points(request.system) + request.messages.reduce((sum, turn) => sum + points(turn.content), 0);
  return marks;
}

function choiceOf(choice: NonNullable<ConverseRequest['toolConfig']>['toolChoice']): LlmToolChoice | undefined {
  if (choice?.tool) return { type: 'tool', name: choice.tool.name };
  if (choice?.any) return { type: 'any' };
  return choice?.auto ? { type: 'auto' } : undefined;
}

/** The JSON Schema of `outputConfig`, sent as a string; a schema that does not parse is a bad request. */
function parsedSchema(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new SimulatedRequestError('outputConfig.textFormat.structure.jsonSchema.schema: not a JSON object');
}

const STOP_REASONS: Record<SimulatedStop, string> = {
  end: 'end_turn',
  tool_use: 'tool_use',
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
    const specs = (request.toolConfig?.tools ?? []).flatMap((entry) => (entry.toolSpec ? [entry.toolSpec] : []));
    const choice = choiceOf(request.toolConfig?.toolChoice);
    const format = request.outputConfig?.textFormat;
    return {
      api: 'bedrock',
      model: pathModel ?? '',
      system: contentText(request.system),
      messages: request.messages.map((turn) => ({ role: turn.role, content: contentText(turn.content) })),
      maxOutputTokens: request.inferenceConfig?.maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      ...(specs.length > 0
        ? {
            tools: specs.map((spec) => ({
              name: spec.name,
              description: spec.description ?? '',
              inputSchema: spec.inputSchema.json,
              ...(spec.strict ? { strict: true } : {}),
            })),
          }
        : {}),
      ...(choice ? { toolChoice: choice } : {}),
      ...(format
        ? {
            responseFormat: {
              name: format.structure.jsonSchema.name ?? 'output',
              schema: parsedSchema(format.structure.jsonSchema.schema),
            },
          }
        : {}),
      cacheMarks: cacheMarksOf(request),
    };
  },

  completion(result) {
    return jsonResponse(
      200,
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              ...(result.text === '' && result.toolCalls.length > 0 ? [] : [{ text: result.text }]),
              ...result.toolCalls.map((call) => ({ toolUse: { toolUseId: call.id, name: call.name, input: call.input } })),
            ],
          },
        },
        stopReason: STOP_REASONS[result.stop],
        // inputTokens counts what was neither read from the cache nor written to it; totalTokens counts all
        usage: {
          inputTokens: result.promptTokens - result.cacheReadTokens - result.cacheWriteTokens,
          outputTokens: result.outputTokens,
          totalTokens: result.promptTokens + result.outputTokens,
          cacheReadInputTokens: result.cacheReadTokens,
          cacheWriteInputTokens: result.cacheWriteTokens,
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
