/**
 * The LLM simulator: one local port that answers the Anthropic Messages API, OpenAI Chat Completions
 * and Bedrock Converse well enough for the official SDKs to talk to it unchanged (only the base URL /
 * endpoint differs). It counts prompt tokens with the project's estimator (tool definitions included),
 * refuses prompts over its context window with each API's real error, answers offered tools with native
 * tool calls and a response format with structured output (the brain still answers in text), accounts
 * prompt caching by each provider's rules (prompt-cache.ts), and injects rate limits, latency and
 * malformed replies.
 */
import type http from 'node:http';
import type http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { lookupModel } from '../catalog.js';
import { nativeAnswer } from '../native-answer.js';
import { MESSAGE_OVERHEAD_TOKENS, toolDefinitionTokens } from '../prompt-builder.js';
import { estimatePromptTokens } from '../providers/prompt-size.js';
import { MAX_CACHE_BREAKPOINTS } from '../providers/cache-breakpoints.js';
import { estimateTokens, type TokenFamily } from '../tokens.js';
import { anthropicDialect } from './anthropic-dialect.js';
import { bedrockDialect } from './bedrock-dialect.js';
import { echoBrain, type SimulatorBrain } from './brains.js';
import {
  SimulatedRequestError,
  noCacheMarks,
  type SimulatedCall,
  type SimulatedFailure,
  type SimulatedToolCall,
  type SimulatorApi,
  type SimulatorDialect,
  type WireResponse,
} from './dialect.js';
import { listenDualProtocol } from './dual-protocol-server.js';
import { openAiDialect } from './openai-dialect.js';
import { FaultSchedule } from './fault-schedule.js';
import { SimulatedPromptCache, type CacheUse, type PromptBlock } from './prompt-cache.js';
import { fitReply, type FittedReply } from './reply-fitting.js';

export interface LlmSimulatorOptions {
  /** @defaultValue 0 (a free port) */
  port?: number | undefined;
  /** @defaultValue `127.0.0.1` */
  host?: string | undefined;
  /** Prompts over this many (estimated) tokens are refused with the API's "prompt too long" error. @defaultValue 200_000 */
  contextWindow?: number | undefined;
  /** Refuse every K-th completion request with 429 and open a `retryAfterSeconds` cool-down. @defaultValue never */
  rateLimitEvery?: number | undefined;
  /** @defaultValue 1 */
  retryAfterSeconds?: number | undefined;
  /** Delay before every completion answer. @defaultValue 0 */
  latencyMs?: number | undefined;
  /**
   * Replace every K-th reply with prose (the "model ignored the JSON format" case). A reply constrained by a
   * strict tool or a response format is left as it is, as constrained decoding leaves no room to stray.
   * @defaultValue never
   */
  malformedEvery?: number | undefined;
  /** Upper bound on a request body, answered with the API's 413. @defaultValue 32 MiB (Anthropic's limit) */
  maxBodyBytes?: number | undefined;
  /** @defaultValue {@link echoBrain} */
  brain?: SimulatorBrain | undefined;
  /** Serve prompt-cache hits by each provider's rules; off, every request is billed as uncached. @defaultValue true */
  promptCaching?: boolean | undefined;
}

export interface LlmSimulatorStats {
  /** Every HTTP request, whatever the outcome. */
  requests: number;
  /** Of those, the ones that came over HTTP/2 (the AWS SDK's default). */
  http2Requests: number;
  /** Completion requests answered with 200, per API. */
  completions: Record<SimulatorApi, number>;
  tokenCounts: number;
  rateLimited: number;
  contextOverflows: number;
  authFailures: number;
  invalidRequests: number;
  malformedReplies: number;
  /** Requests whose client went away before the answer. */
  abandoned: number;
  /** Largest prompt (estimated tokens) seen on a completion request, refused ones included. */
  maxPromptTokens: number;
  /** Input tokens of answered completions, and of them those read from and written to the prompt cache. */
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Replies that were native tool calls, and replies that were structured output. */
  toolCallReplies: number;
  structuredReplies: number;
}

export interface LlmSimulator {
  /** `http://host:port` — Anthropic base URL and Bedrock endpoint as is; append `/v1` for OpenAI. */
  readonly url: string;
  readonly port: number;
  /** A snapshot of the counters. */
  readonly stats: LlmSimulatorStats;
  /** Stop listening, cancel delayed answers, drop every connection. */
  close(): Promise<void>;
}

/** Anthropic refuses bodies over 32 MB with 413 `request_too_large`. */
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Claude's standard window: large enough that only tests that mean it hit the limit. */
const DEFAULT_CONTEXT_WINDOW = 200_000;
/** What a malformed reply says instead of the JSON the prompt asked for. */
const MALFORMED_REPLY =
  'Sure! I looked at the data and found several interesting patterns, which I describe below in prose rather than JSON.';

type Request = http.IncomingMessage | http2.Http2ServerRequest;
type Response = http.ServerResponse | http2.Http2ServerResponse;

type Operation = 'complete' | 'count_tokens';

interface Route {
  pattern: RegExp;
  dialect: SimulatorDialect;
  operation: Operation;
}

const ROUTES: readonly Route[] = [
  { pattern: /^\/v1\/messages\/count_tokens$/, dialect: anthropicDialect, operation: 'count_tokens' },
  { pattern: /^\/v1\/messages$/, dialect: anthropicDialect, operation: 'complete' },
  { pattern: /^(?:\/v1)?\/chat\/completions$/, dialect: openAiDialect, operation: 'complete' },
  { pattern: /^\/model\/([^/]+)\/converse$/, dialect: bedrockDialect, operation: 'complete' },
];

interface RouteMatch {
  route: Route;
  /** The model id from the URL (Bedrock), decoded. */
  pathModel: string | undefined;
}

function matchRoute(method: string | undefined, path: string): RouteMatch | undefined {
  if (method !== 'POST') return undefined;
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    try {
      return { route, pathModel: match[1] === undefined ? undefined : decodeURIComponent(match[1]) };
    } catch {
      // a malformed %-escape in the model id: no such model
      return undefined;
    }
  }
  return undefined;
}

class BodyTooLargeError extends Error {}

async function readBody(request: Request, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: Response, wire: WireResponse): void {
  if (response.headersSent || response.writableEnded) return;
  response.writeHead(wire.status, { ...wire.headers, 'content-length': String(Buffer.byteLength(wire.body)) });
  response.end(wire.body);
}

/** Counted as the budgeted prompt builder counts, so the simulator's refusal checks exactly the builder's promise. */
function countPromptTokens(
  call: Pick<SimulatedCall, 'system' | 'messages' | 'tools' | 'responseFormat'>,
  dialect: SimulatorDialect,
  model: string,
): number {
  return estimatePromptTokens(call, dialect.tokenFamily(model));
}

/** The request as the cache sees it: tools, system, then each message, with their tokens summing to the prompt's count. */
export function promptBlocks(call: SimulatedCall, family: TokenFamily): PromptBlock[] {
  const marks = call.cacheMarks ?? noCacheMarks();
  const blocks: PromptBlock[] = [];
  const toolTokens = toolDefinitionTokens(call, family);
  if (toolTokens > 0) {
    blocks.push({
      kind: 'tools',
      text: JSON.stringify([call.tools ?? [], call.responseFormat ?? null]),
      tokens: toolTokens,
      breakpoint: marks.tools,
    });
  }
  if (call.system) {
    blocks.push({
      kind: 'system',
      text: call.system,
      tokens: estimateTokens(call.system, family) + MESSAGE_OVERHEAD_TOKENS,
      breakpoint: marks.system,
    });
  }
  call.messages.forEach((turn, index) => {
    blocks.push({
      kind: turn.role,
      text: turn.content,
      tokens: estimateTokens(turn.content, family) + MESSAGE_OVERHEAD_TOKENS,
      breakpoint: marks.messages.has(index),
    });
  });
  const last = blocks.at(-1);
  if (marks.last && last) last.breakpoint = true;
  return blocks;
}

/** A native reply: the brain's answer as tool calls or structured output where the request asked for them, fitted to the output cap. */
function nativeReply(
  reply: string,
  call: SimulatedCall,
  serial: number,
  limits: Parameters<typeof fitReply>[1],
): FittedReply & { toolCalls: SimulatedToolCall[] } {
  if (!call.tools?.length && !call.responseFormat) return { ...fitReply(reply, limits), toolCalls: [] };
  const native = nativeAnswer(reply, call);
  if (native.toolCalls.length === 0) return { ...fitReply(native.text, limits), toolCalls: [] };
  const written = native.toolCalls.map((toolCall) => JSON.stringify(toolCall.input)).join('');
  const fitted = fitReply(written, limits);
  // arguments cut by the output cap are no call at all: the reply is the cut text, as a stopped model leaves it
  if (fitted.stop !== 'end') return { ...fitted, toolCalls: [] };
  return {
    text: '',
    outputTokens: fitted.outputTokens,
    stop: 'tool_use',
    toolCalls: native.toolCalls.map((toolCall, index) => ({ id: `toolu_sim_${serial}_${index + 1}`, ...toolCall })),
  };
}

export async function startLlmSimulator(options: LlmSimulatorOptions = {}): Promise<LlmSimulator> {
  const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const latencyMs = options.latencyMs ?? 0;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const brain = options.brain ?? echoBrain;
  const promptCaching = options.promptCaching ?? true;
  const cache = new SimulatedPromptCache();
  const faults = new FaultSchedule({
    rateLimitEvery: options.rateLimitEvery,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    malformedEvery: options.malformedEvery,
  });
  const shutdown = new AbortController();
  const stats: LlmSimulatorStats = {
    requests: 0,
    http2Requests: 0,
    completions: { anthropic: 0, openai: 0, bedrock: 0 },
    tokenCounts: 0,
    rateLimited: 0,
    contextOverflows: 0,
    authFailures: 0,
    invalidRequests: 0,
    malformedReplies: 0,
    abandoned: 0,
    maxPromptTokens: 0,
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    toolCallReplies: 0,
    structuredReplies: 0,
  };
  let serial = 0;

  function refuse(dialect: SimulatorDialect, failure: SimulatedFailure): WireResponse {
    if (failure.kind === 'rate_limit') stats.rateLimited += 1;
    else if (failure.kind === 'context_overflow') stats.contextOverflows += 1;
    else if (failure.kind === 'auth') stats.authFailures += 1;
    else if (failure.kind === 'invalid_request' || failure.kind === 'request_too_large') stats.invalidRequests += 1;
    return dialect.failure(failure);
  }

  function isAuthorised(dialect: SimulatorDialect, request: Request): boolean {
    const credential = dialect.credential(request.headers);
    return credential !== undefined && credential !== '' && credential !== 'bad-key';
  }

  /** Prompt-cache use of an answered request: breakpoints for Anthropic and Bedrock, automatic prefixes for OpenAI. */
  function cacheUse(dialect: SimulatorDialect, call: SimulatedCall, credential: string): CacheUse {
    if (!promptCaching) return { readTokens: 0, writeTokens: 0 };
    const family = dialect.tokenFamily(call.model);
    const blocks = promptBlocks(call, family);
    const scope = `${dialect.api}\u0000${credential}\u0000${call.model}`;
    if (dialect.api === 'openai') return cache.automatic(scope, blocks, family);
    return cache.breakpoints(scope, blocks, lookupModel(`${dialect.api}:${call.model}`).entry.minCacheableTokens);
  }

  async function complete(
    dialect: SimulatorDialect,
    call: SimulatedCall,
    credential: string,
    clientGone: AbortSignal,
  ): Promise<WireResponse | undefined> {
    const started = performance.now();
    const promptTokens = countPromptTokens(call, dialect, call.model);
    stats.maxPromptTokens = Math.max(stats.maxPromptTokens, promptTokens);
    if (latencyMs > 0) {
      try {
        await sleep(latencyMs, undefined, { signal: AbortSignal.any([clientGone, shutdown.signal]) });
      } catch {
        return undefined;
      }
    }
    const retryAfterSeconds = faults.rateLimit();
    if (retryAfterSeconds !== undefined) return refuse(dialect, { kind: 'rate_limit', retryAfterSeconds });
    if (promptTokens > contextWindow) {
      return refuse(dialect, { kind: 'context_overflow', promptTokens, contextWindow, model: call.model });
    }
    const marks = call.cacheMarks?.count ?? 0;
    if (marks > MAX_CACHE_BREAKPOINTS) {
      return refuse(dialect, {
        kind: 'invalid_request',
        message: `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks}.`,
      });
    }
    let reply: string;
    try {
      // the brain answers the conversation; where the cache breaks is the simulator's business
      const { cacheMarks: _marks, ...question } = call;
      reply = await brain(question);
    } catch (error) {
      return refuse(dialect, { kind: 'internal', message: error instanceof Error ? error.message : String(error) });
    }
    // constrained decoding: a strict tool or a response format cannot be answered outside its schema
    const constrained = call.responseFormat !== undefined || ((call.tools?.length ?? 0) > 0 && call.tools?.every((tool) => tool.strict));
    if (faults.malformed() && !constrained) {
      stats.malformedReplies += 1;
      reply = MALFORMED_REPLY;
    }
    serial += 1;
    const fitted = nativeReply(reply, call, serial, {
      maxOutputTokens: call.maxOutputTokens,
      promptTokens,
      contextWindow,
      family: dialect.tokenFamily(call.model),
    });
    const cached = cacheUse(dialect, call, credential);
    stats.completions[dialect.api] += 1;
    stats.promptTokens += promptTokens;
    stats.cacheReadTokens += cached.readTokens;
    stats.cacheWriteTokens += cached.writeTokens;
    if (fitted.toolCalls.length > 0) stats.toolCallReplies += 1;
    else if (call.responseFormat) stats.structuredReplies += 1;
    return dialect.completion({
      call,
      ...fitted,
      promptTokens,
      cacheReadTokens: cached.readTokens,
      cacheWriteTokens: cached.writeTokens,
      serial,
      latencyMs: Math.round(performance.now() - started),
    });
  }

  async function answer({ route, pathModel }: RouteMatch, request: Request, clientGone: AbortSignal): Promise<WireResponse | undefined> {
    const { dialect } = route;
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request, maxBodyBytes));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return refuse(dialect, { kind: 'request_too_large' });
      return refuse(dialect, { kind: 'invalid_request', message: 'the request body is not valid JSON' });
    }
    if (!isAuthorised(dialect, request)) return refuse(dialect, { kind: 'auth' });
    const credential = dialect.credential(request.headers) ?? '';
    try {
      // counting tokens is an Anthropic-only endpoint
      if (route.operation === 'count_tokens') {
        const counted = anthropicDialect.parseCountTokens(body);
        stats.tokenCounts += 1;
        return anthropicDialect.tokenCount(countPromptTokens(counted, dialect, counted.model));
      }
      return await complete(dialect, dialect.parseCall(body, pathModel), credential, clientGone);
    } catch (error) {
      if (error instanceof SimulatedRequestError) return refuse(dialect, { kind: 'invalid_request', message: error.message });
      throw error;
    }
  }

  const server = await listenDualProtocol(
    (request, response) => {
      stats.requests += 1;
      if (request.httpVersion === '2.0') stats.http2Requests += 1;
      const clientGone = new AbortController();
      response.once('close', () => {
        if (!response.writableEnded) {
          stats.abandoned += 1;
          clientGone.abort();
        }
      });
      const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
      const matched = matchRoute(request.method, path);
      if (!matched) {
        send(response, {
          status: 404,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: `no simulated API at ${request.method} ${path}` }),
        });
        return;
      }
      answer(matched, request, clientGone.signal).then(
        (wire) => {
          if (wire) send(response, wire);
        },
        (error: unknown) =>
          send(
            response,
            matched.route.dialect.failure({ kind: 'internal', message: error instanceof Error ? error.message : String(error) }),
          ),
      );
    },
    { port: options.port ?? 0, host: options.host ?? '127.0.0.1' },
  );

  const host = options.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`,
    port: server.port,
    get stats(): LlmSimulatorStats {
      return structuredClone(stats);
    },
    async close(): Promise<void> {
      shutdown.abort();
      await server.close();
    },
  };
}
