import Anthropic from '@anthropic-ai/sdk';
import {
  AccessDeniedException,
  BedrockRuntimeServiceException,
  InternalServerException,
  ModelNotReadyException,
  ModelTimeoutException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { LlmAuthError, LlmContextOverflowError, LlmError, LlmRateLimitError } from '../../../src/errors/index.js';
import { classifyAnthropicError } from '../../../src/llm/providers/anthropic-errors.js';
import { classifyBedrockError } from '../../../src/llm/providers/bedrock-errors.js';
import { kindForStatus, parsePromptTooLong, parseRetryAfterMs } from '../../../src/llm/providers/errors.js';
import { classifyOpenAiError } from '../../../src/llm/providers/openai-errors.js';

/** An Anthropic error exactly as the SDK builds it from a response (status → class, body → type/apiMessage). */
function anthropicApiError(status: number, type: string, message: string, headers: Record<string, string> = {}) {
  return Anthropic.APIError.generate(status, { type: 'error', error: { type, message } }, undefined, new Headers(headers));
}

/** An OpenAI error exactly as the SDK builds it: it passes the body's `error` object to the class. */
function openAiApiError(status: number, error: Record<string, unknown>, headers: Record<string, string> = {}) {
  return OpenAI.APIError.generate(status, { error }, undefined, new Headers(headers));
}

const metadata = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });

describe('when reading retry-after', () => {
  it('prefers retry-after-ms, then seconds (fractional too), then an HTTP date', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '12' }))).toBe(12_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '0.25' }))).toBe(250);
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Mon, 23 Nov 2026 10:00:30 GMT' }), now)).toBe(30_000);
  });

  it('reads a plain header record case-insensitively (the AWS SDK shape)', () => {
    expect(parseRetryAfterMs({ 'Retry-After': '3' })).toBe(3_000);
  });

  it('gives undefined for a missing, empty, negative or unparsable value', () => {
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '' }))).toBeUndefined();
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '-4' }))).toBeUndefined();
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });
});

describe('when reading a "prompt too long" message', () => {
  it.each([
    ['prompt is too long: 210345 tokens > 200000 maximum', 210_345, 200_000],
    ['The model returned the following errors: prompt is too long: 1,048,577 tokens > 1,000,000 maximum', 1_048_577, 1_000_000],
    [
      'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      198_000,
      200_000,
    ],
    [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      130_512,
      128_000,
    ],
    [
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
      4_000,
      4_096,
    ],
    ["This model's maximum context length is 8192 tokens, however you requested 9000 tokens. Please reduce your prompt.", 9_000, 8_192],
  ])('parses %j', (message, promptTokens, maxTokens) => {
    expect(parsePromptTooLong(message)).toEqual({ promptTokens, maxTokens });
  });

  it('recognises messages without numbers', () => {
    expect(parsePromptTooLong('Input is too long for requested model.')).toEqual({});
  });

  it('says nothing for other errors', () => {
    expect(parsePromptTooLong('messages.0.content: field required')).toBeUndefined();
    expect(parsePromptTooLong('max_tokens: 100000 > 64000, which is the maximum allowed')).toBeUndefined();
  });
});

describe('when only the status is known', () => {
  it.each([
    [400, 'invalid_request'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'invalid_request'],
    [408, 'timeout'],
    [409, 'transient'],
    [413, 'context_overflow'],
    [422, 'invalid_request'],
    [429, 'rate_limit'],
    [500, 'transient'],
    [503, 'transient'],
    [529, 'transient'],
  ] as const)('maps %i to %s', (status, kind) => {
    expect(kindForStatus(status)).toBe(kind);
  });
});

describe('when classifying Anthropic SDK errors', () => {
  it('turns 400 "prompt is too long: N > M" into context_overflow with both numbers, keeping the SDK error as cause', () => {
    const native = anthropicApiError(400, 'invalid_request_error', 'prompt is too long: 210345 tokens > 200000 maximum');
    expect(native).toBeInstanceOf(Anthropic.BadRequestError);
    const error = classifyAnthropicError(native);
    expect(error).toBeInstanceOf(LlmContextOverflowError);
    expect(error.info).toEqual({
      kind: 'context_overflow',
      provider: 'anthropic',
      status: 400,
      retryAfterMs: undefined,
      isRetryable: false,
      reportedPromptTokens: 210_345,
      reportedMaxTokens: 200_000,
    });
    expect(error.cause).toBe(native);
  });

  it('turns 413 request_too_large into context_overflow without numbers', () => {
    const error = classifyAnthropicError(
      anthropicApiError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
    );
    expect(error.info).toMatchObject({ kind: 'context_overflow', status: 413, reportedPromptTokens: undefined });
  });

  it('keeps other 400s as non-retryable invalid_request', () => {
    const error = classifyAnthropicError(anthropicApiError(400, 'invalid_request_error', 'messages: roles must alternate'));
    expect(error.info).toMatchObject({ kind: 'invalid_request', isRetryable: false });
  });

  it.each([
    [401, 'authentication_error', 'auth', false],
    [403, 'permission_error', 'auth', false],
    [408, 'timeout_error', 'timeout', true],
    [409, 'conflict_error', 'transient', true],
    [500, 'api_error', 'transient', true],
    [529, 'overloaded_error', 'transient', true],
  ] as const)('maps HTTP %i %s to %s (retryable: %s)', (status, type, kind, isRetryable) => {
    expect(classifyAnthropicError(anthropicApiError(status, type, 'x')).info).toMatchObject({ kind, status, isRetryable });
  });

  it('turns 429 into rate_limit with the retry-after wait', () => {
    const error = classifyAnthropicError(anthropicApiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '12' }));
    expect(error).toBeInstanceOf(LlmRateLimitError);
    expect(error.info).toMatchObject({ kind: 'rate_limit', status: 429, retryAfterMs: 12_000, isRetryable: true });
  });

  it('maps the SDK abort, timeout and connection errors', () => {
    expect(classifyAnthropicError(new Anthropic.APIUserAbortError()).info.kind).toBe('aborted');
    expect(classifyAnthropicError(new Anthropic.APIConnectionTimeoutError()).info).toMatchObject({ kind: 'timeout', isRetryable: true });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(classifyAnthropicError(new Anthropic.APIConnectionError({ cause: refused })).info).toMatchObject({
      kind: 'transient',
      isRetryable: true,
    });
  });

  it('reports aborted for any failure once the caller has aborted', () => {
    const controller = new AbortController();
    controller.abort();
    const error = classifyAnthropicError(anthropicApiError(500, 'api_error', 'x'), { provider: 'anthropic', signal: controller.signal });
    expect(error.info.kind).toBe('aborted');
  });

  it('passes an LlmError through and wraps an unknown error as non-retryable', () => {
    const already = new LlmError('x', { kind: 'timeout', provider: 'anthropic', isRetryable: true });
    expect(classifyAnthropicError(already)).toBe(already);
    expect(classifyAnthropicError(new TypeError('cannot read properties of undefined')).info).toMatchObject({
      kind: 'transient',
      isRetryable: false,
    });
  });

  it('keeps the message short even when the provider message is long', () => {
    const error = classifyAnthropicError(
      anthropicApiError(400, 'invalid_request_error', `bad input: ${'SELECT * FROM secret_table; '.repeat(100)}`),
    );
    expect(error.message.length).toBeLessThan(300);
  });
});

describe('when classifying OpenAI SDK errors', () => {
  it('turns code context_length_exceeded into context_overflow with both numbers', () => {
    const native = openAiApiError(400, {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    });
    expect(native).toBeInstanceOf(OpenAI.BadRequestError);
    const error = classifyOpenAiError(native);
    expect(error).toBeInstanceOf(LlmContextOverflowError);
    expect(error.info).toMatchObject({
      kind: 'context_overflow',
      status: 400,
      reportedPromptTokens: 130_512,
      reportedMaxTokens: 128_000,
      provider: 'openai',
    });
    expect(error.cause).toBe(native);
  });

  it('trusts the code even when the wording is unfamiliar', () => {
    const error = classifyOpenAiError(
      openAiApiError(400, {
        message: 'Too much input.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      }),
    );
    expect(error.info).toMatchObject({ kind: 'context_overflow', reportedPromptTokens: undefined });
  });

  it('recognises a compatible server (vLLM) that sends the message without a code', () => {
    const error = classifyOpenAiError(
      openAiApiError(400, {
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
        type: 'BadRequestError',
        code: 400,
      }),
      { provider: 'openai-compatible' },
    );
    expect(error.info).toMatchObject({
      kind: 'context_overflow',
      provider: 'openai-compatible',
      reportedPromptTokens: 4_000,
      reportedMaxTokens: 4_096,
    });
  });

  it('maps 429 to rate_limit with retry-after-ms, 401 to auth, 500 to transient and the abort error to aborted', () => {
    const limited = classifyOpenAiError(
      openAiApiError(429, { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }, { 'retry-after-ms': '750' }),
    );
    expect(limited.info).toMatchObject({ kind: 'rate_limit', retryAfterMs: 750, isRetryable: true });
    expect(classifyOpenAiError(openAiApiError(401, { message: 'Incorrect API key provided', code: 'invalid_api_key' }))).toBeInstanceOf(
      LlmAuthError,
    );
    expect(classifyOpenAiError(openAiApiError(500, { message: 'server error', type: 'server_error' })).info).toMatchObject({
      kind: 'transient',
      isRetryable: true,
    });
    expect(classifyOpenAiError(new OpenAI.APIUserAbortError()).info.kind).toBe('aborted');
  });
});

describe('when classifying Bedrock SDK errors', () => {
  it('turns a ValidationException "prompt is too long: N > M" into context_overflow with both numbers', () => {
    const native = new ValidationException({
      message: 'The model returned the following errors: prompt is too long: 210345 tokens > 200000 maximum',
      ...metadata(400),
    });
    const error = classifyBedrockError(native);
    expect(error).toBeInstanceOf(LlmContextOverflowError);
    expect(error.info).toMatchObject({
      kind: 'context_overflow',
      provider: 'bedrock',
      status: 400,
      reportedPromptTokens: 210_345,
      reportedMaxTokens: 200_000,
    });
    expect(error.cause).toBe(native);
  });

  it('turns "Input is too long for requested model." into context_overflow without numbers', () => {
    const error = classifyBedrockError(new ValidationException({ message: 'Input is too long for requested model.', ...metadata(400) }));
    expect(error.info).toMatchObject({ kind: 'context_overflow', reportedPromptTokens: undefined, reportedMaxTokens: undefined });
  });

  it('keeps other validation failures as invalid_request', () => {
    const error = classifyBedrockError(new ValidationException({ message: 'The provided model identifier is invalid.', ...metadata(400) }));
    expect(error.info).toMatchObject({ kind: 'invalid_request', isRetryable: false });
  });

  it('turns ThrottlingException into rate_limit, reading retry-after from the raw response when present', () => {
    const native = new ThrottlingException({ message: 'Too many requests, please wait before trying again.', ...metadata(429) });
    native.$response = { statusCode: 429, headers: { 'retry-after': '2' }, body: undefined } as unknown as NonNullable<
      typeof native.$response
    >;
    expect(classifyBedrockError(native).info).toMatchObject({ kind: 'rate_limit', status: 429, retryAfterMs: 2_000, isRetryable: true });
  });

  it.each([
    [new ModelTimeoutException({ message: 'Model has timed out', ...metadata(408) }), 'timeout', true],
    [new AccessDeniedException({ message: 'not authorized', ...metadata(403) }), 'auth', false],
    [
      new BedrockRuntimeServiceException({
        name: 'UnrecognizedClientException',
        $fault: 'client',
        message: 'The security token is invalid.',
        ...metadata(403),
      }),
      'auth',
      false,
    ],
    [new ServiceUnavailableException({ message: 'unavailable', ...metadata(503) }), 'transient', true],
    [new InternalServerException({ message: 'internal', ...metadata(500) }), 'transient', true],
    [new ModelNotReadyException({ message: 'not ready', ...metadata(429) }), 'transient', true],
  ])('maps %s', (native, kind, isRetryable) => {
    expect(classifyBedrockError(native).info).toMatchObject({ kind, isRetryable });
  });

  it('maps the HTTP handler abort, timeout and socket errors', () => {
    expect(classifyBedrockError(Object.assign(new Error('Request aborted'), { name: 'AbortError' })).info.kind).toBe('aborted');
    expect(classifyBedrockError(Object.assign(new Error('timed out'), { name: 'TimeoutError' })).info).toMatchObject({
      kind: 'timeout',
      isRetryable: true,
    });
    expect(classifyBedrockError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })).info).toMatchObject({
      kind: 'transient',
      isRetryable: true,
    });
  });
});
