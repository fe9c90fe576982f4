/** What every simulated API (Anthropic, OpenAI, Bedrock) provides: request parsing and its real wire bodies. */
import type { IncomingHttpHeaders } from 'node:http';
import type { LlmMessage, LlmResponseFormat, LlmTool, LlmToolChoice } from '../port.js';
import type { TokenFamily } from '../tokens.js';

export type SimulatorApi = 'anthropic' | 'openai' | 'bedrock';

/** Where a request asked for cache breakpoints (`cache_control`, `cachePoint`), in API-neutral form. */
export interface CacheMarks {
  tools: boolean;
  system: boolean;
  /** Indexes into `messages`. */
  messages: Set<number>;
  /** Anthropic's top-level `cache_control`: a breakpoint on the last block. */
  last: boolean;
  /** How many markers the request carried, to refuse more than the API allows. */
  count: number;
}

/** A completion request in API-neutral form; this is also what the simulator's brain receives. */
export interface SimulatedCall {
  api: SimulatorApi;
  model: string;
  system: string;
  messages: LlmMessage[];
  maxOutputTokens: number;
  /** Offered tools (their arguments come back as a native tool call); the brain still answers in text. */
  tools?: LlmTool[];
  toolChoice?: LlmToolChoice;
  responseFormat?: LlmResponseFormat;
  /** Cache breakpoints of the request, for APIs that take them. */
  cacheMarks?: CacheMarks;
}

/** One call of a tool in a simulated reply. */
export interface SimulatedToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** No breakpoints. */
export function noCacheMarks(): CacheMarks {
  return { tools: false, system: false, messages: new Set(), last: false, count: 0 };
}

/** Why the simulated generation stopped. */
export type SimulatedStop = 'end' | 'tool_use' | 'max_tokens' | 'context_window';

export interface SimulatedCompletion {
  call: SimulatedCall;
  text: string;
  /** Tool calls of the reply (the brain's JSON answer in native form); none for a text reply. */
  toolCalls: SimulatedToolCall[];
  /** Every input token; of them `cacheReadTokens` were read from the prompt cache and `cacheWriteTokens` written to it. */
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  stop: SimulatedStop;
  /** Serial number of the request, for ids. */
  serial: number;
  latencyMs: number;
}

/** Failures the simulator can answer with, each rendered in the API's own status and body. */
export type SimulatedFailure =
  | { kind: 'context_overflow'; promptTokens: number; contextWindow: number; model: string }
  | { kind: 'rate_limit'; retryAfterSeconds: number }
  | { kind: 'auth' }
  | { kind: 'invalid_request'; message: string }
  | { kind: 'request_too_large' }
  /** `message` is appended to the API's generic wording so a failing test shows why (e.g. a used-up script). */
  | { kind: 'internal'; message: string };

/** An HTTP answer: status, headers (lower-case names) and a JSON body text. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Thrown by `parseCall` when the body is not a valid request for the API. */
export class SimulatedRequestError extends Error {
  override readonly name = 'SimulatedRequestError';
}

export interface SimulatorDialect {
  readonly api: SimulatorApi;
  /** The estimator family the simulator counts this API's tokens with. */
  tokenFamily(model: string): TokenFamily;
  /** The caller's credential (API key or AWS access key id), undefined when none was sent. */
  credential(headers: IncomingHttpHeaders): string | undefined;
  /** `pathModel` is the model taken from the URL (Bedrock). Throws SimulatedRequestError. */
  parseCall(body: unknown, pathModel: string | undefined): SimulatedCall;
  completion(result: SimulatedCompletion): WireResponse;
  failure(failure: SimulatedFailure): WireResponse;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): WireResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** `retry-after` as the simulator sends it: seconds, fractional when configured so (the SDKs parse floats). */
export function retryAfterHeader(seconds: number): Record<string, string> {
  return { 'retry-after': String(seconds) };
}

/** Tool arguments as JSON text, the way OpenAI sends them. */
export function toolArguments(call: SimulatedToolCall): string {
  return JSON.stringify(call.input);
}

/** Text of a message content in any of the three APIs: a string, or blocks/parts of which the text ones count. */
export function contentText(content: string | ReadonlyArray<{ text?: string | undefined }> | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((block) => (typeof block.text === 'string' ? [block.text] : [])).join('\n');
}

/** Parse a body with a zod schema, turning issues into one short SimulatedRequestError. */
export function parseBody<T>(
  schema: {
    safeParse(
      value: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
  },
  body: unknown,
): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new SimulatedRequestError(issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'invalid request body');
}
