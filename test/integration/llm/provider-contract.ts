/**
 * The behaviour every HTTP LlmProvider adapter must have, checked over real HTTP against the LLM
 * simulator with the official SDK inside the adapter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmAuthError, LlmContextOverflowError, LlmError, LlmRateLimitError } from '../../../src/errors/index.js';
import { lookupModel } from '../../../src/llm/catalog.js';
import type { LlmProvider, LlmRequest, LlmTool } from '../../../src/llm/port.js';
import { MESSAGE_OVERHEAD_TOKENS } from '../../../src/llm/prompt-builder.js';
import { estimatePromptTokens } from '../../../src/llm/providers/prompt-size.js';
import { withRetry } from '../../../src/llm/retry.js';
import { startLlmSimulator, type LlmSimulator, type LlmSimulatorOptions } from '../../../src/llm/simulator/index.js';
import { estimateTokens, type TokenFamily } from '../../../src/llm/tokens.js';
import { waitFor } from '../../support/wait-for.js';

export type ClosableProvider = LlmProvider & { close?(): void };

export interface ProviderContractExpectations {
  /** `provider` the adapter reports. */
  provider: string;
  /** Model the adapter is built with (and reports back). */
  model: string;
  /** Estimator family the simulator counts this API with (the catalog's family for it). */
  tokenFamily: TokenFamily;
  /** Status the real API answers a rejected key with (Bedrock: 403). */
  authStatus: number;
  /** How the API caches prompts: at the request's breakpoints (Anthropic, Bedrock) or on its own (OpenAI). */
  promptCache: 'breakpoints' | 'automatic';
  /** The catalog's name of the provider, to look up the model's minimum cacheable prompt. @defaultValue `provider` */
  catalogProvider?: string;
}

/** Builds the adapter under test against `simulatorUrl` with `credential` as API key / access key id. */
export type MakeProvider = (simulatorUrl: string, credential: string) => ClosableProvider;

const GOOD_CREDENTIAL = 'simulated-key';
const LATENCY_MS = 60;

function ask(content: string, maxOutputTokens = 200, signal?: AbortSignal): LlmRequest {
  return {
    system: 'You are a careful data analyst.',
    messages: [{ role: 'user', content }],
    maxOutputTokens,
    ...(signal ? { signal } : {}),
  };
}

async function expectLlmError(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

export function runProviderContract(name: string, makeProvider: MakeProvider, expected: ProviderContractExpectations): void {
  describe(`LlmProvider contract: ${name} (official SDK, real HTTP, LLM simulator)`, () => {
    const simulators: LlmSimulator[] = [];
    const providers: ClosableProvider[] = [];

    async function simulator(options: LlmSimulatorOptions = {}): Promise<LlmSimulator> {
      const started = await startLlmSimulator(options);
      simulators.push(started);
      return started;
    }
    function provider(url: string, credential = GOOD_CREDENTIAL): ClosableProvider {
      const built = makeProvider(url, credential);
      providers.push(built);
      return built;
    }

    afterAll(async () => {
      for (const built of providers) built.close?.();
      await Promise.all(simulators.map((started) => started.close()));
    });

    describe('when the simulator answers normally', () => {
      let url: string;
      beforeAll(async () => {
        url = (await simulator({ latencyMs: LATENCY_MS })).url;
      });

      it('returns the reply text, the usage the server counted, the model and the latency', async () => {
        const request = ask('What is in the orders table?');
        const response = await provider(url).complete(request);
        expect(response.text).toContain('You said: What is in the orders table?');
        expect(response.usage.inputTokens).toBe(estimatePromptTokens(request, expected.tokenFamily));
        expect(response.usage.outputTokens).toBe(estimateTokens(response.text, expected.tokenFamily));
        expect(response.stopReason.unified).toBe('end');
        expect(response.model).toBe(expected.model);
        expect(response.latencyMs).toBeGreaterThanOrEqual(LATENCY_MS - 5);
      });

      it('reports itself with its provider name and model', () => {
        const built = provider(url);
        expect(built.provider).toBe(expected.provider);
        expect(built.model).toBe(expected.model);
      });

      it('stops with max_tokens and a cut reply when the output cap is smaller than the reply', async () => {
        const full = await provider(url).complete(ask('Describe every column of the customers table.'));
        const cut = await provider(url).complete(ask('Describe every column of the customers table.', 5));
        expect(cut.stopReason.unified).toBe('max_tokens');
        expect(cut.usage.outputTokens).toBeLessThanOrEqual(5);
        expect(cut.text.length).toBeGreaterThan(0);
        expect(full.text.startsWith(cut.text)).toBe(true);
        expect(cut.text.length).toBeLessThan(full.text.length);
      });
    });

    describe('when the prompt is larger than the context window', () => {
      it('throws a context_overflow LlmError with the prompt size and limit the provider reported', async () => {
        const { url } = await simulator({ contextWindow: 100 });
        const secret = 'CUSTOMER-EMAIL-alice@example.com';
        const request = ask(`${secret} ${'revenue by region and month, '.repeat(60)}`);
        const error = await expectLlmError(provider(url).complete(request));
        expect(error).toBeInstanceOf(LlmContextOverflowError);
        expect(error.info).toMatchObject({
          kind: 'context_overflow',
          provider: expected.provider,
          status: 400,
          isRetryable: false,
          reportedPromptTokens: estimatePromptTokens(request, expected.tokenFamily),
          reportedMaxTokens: 100,
        });
        expect(error.cause).toBeDefined();
        expect(error.message).not.toContain(secret);
      });
    });

    describe('when the provider rate-limits the request', () => {
      it('throws rate_limit with retryAfterMs taken from the retry-after header', async () => {
        const started = await simulator({ rateLimitEvery: 1, retryAfterSeconds: 7 });
        const error = await expectLlmError(provider(started.url).complete(ask('hello')));
        expect(error).toBeInstanceOf(LlmRateLimitError);
        expect(error.info).toMatchObject({
          kind: 'rate_limit',
          status: 429,
          retryAfterMs: 7000,
          isRetryable: true,
          provider: expected.provider,
        });
        expect(started.stats.rateLimited).toBe(1);
      });

      it('succeeds under the retry policy on the next attempt, after waiting at least retry-after', async () => {
        const started = await simulator({ rateLimitEvery: 2, retryAfterSeconds: 1 });
        const adapter = provider(started.url);
        await adapter.complete(ask('first call is admitted'));
        const attempts: number[] = [];
        const before = performance.now();
        // jitter off (random = 0) so the only wait is the provider's retry-after
        const response = await withRetry(
          (attempt) => {
            attempts.push(attempt);
            return adapter.complete(ask('second call is refused once'));
          },
          { maxAttempts: 3, random: () => 0 },
        );
        const waitedMs = performance.now() - before;
        expect(response.text).toContain('second call is refused once');
        expect(attempts).toEqual([1, 2]);
        expect(waitedMs).toBeGreaterThanOrEqual(1000);
        expect(started.stats.rateLimited).toBe(1);
      });
    });

    describe('when the key is rejected', () => {
      it('throws a non-retryable auth error', async () => {
        const { url } = await simulator();
        const error = await expectLlmError(provider(url, 'bad-key').complete(ask('hello')));
        expect(error).toBeInstanceOf(LlmAuthError);
        expect(error.info).toMatchObject({ kind: 'auth', status: expected.authStatus, isRetryable: false });
      });
    });

    describe('when the caller aborts a slow request', () => {
      it('throws aborted promptly instead of waiting for the answer', async () => {
        // an answer an hour away: only the abort can end the call within the test
        const started = await simulator({ latencyMs: 3_600_000 });
        const controller = new AbortController();
        const calling = expectLlmError(provider(started.url).complete(ask('slow question', 200, controller.signal)));
        await waitFor('the request to reach the simulator', () => started.stats.requests > 0);
        controller.abort();
        const error = await calling;
        expect(error.info).toMatchObject({ kind: 'aborted', isRetryable: false });
      });
    });

    describe('when tools are offered', () => {
      const tools: LlmTool[] = [
        {
          name: 'query',
          description: 'Run one SELECT.',
          inputSchema: {
            type: 'object',
            properties: { thinking: { type: 'string' }, query_purpose: { type: 'string' }, query: { type: 'string' } },
            required: ['thinking', 'query_purpose', 'query'],
          },
        },
        {
          name: 'done',
          description: 'Finish.',
          inputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
        },
      ];
      const answer = '{"thinking": "sizes first", "query_purpose": "orders: rows per month", "query": "SELECT 1"}';

      it('returns the answer as a typed call of the tool it names, stops with tool_use, and counts the tool definitions as input', async () => {
        const { url } = await simulator({ brain: () => `Let me check. ${answer}` });
        const request: LlmRequest = { ...ask('How big is orders?'), tools, toolChoice: { type: 'any' } };
        const response = await provider(url).complete(request);
        expect(response.toolCalls).toEqual([
          {
            id: expect.any(String),
            name: 'query',
            input: { thinking: 'sizes first', query_purpose: 'orders: rows per month', query: 'SELECT 1' },
          },
        ]);
        expect(response.stopReason.unified).toBe('tool_use');
        expect(response.usage.inputTokens).toBe(estimatePromptTokens(request, expected.tokenFamily));
        expect(response.usage.inputTokens).toBeGreaterThan(estimatePromptTokens(ask('How big is orders?'), expected.tokenFamily));
      });

      it('still calls the forced tool when the answer holds no JSON, with arguments the caller must reject', async () => {
        const { url } = await simulator({ brain: () => 'I would rather explain in prose.' });
        const response = await provider(url).complete({ ...ask('Finish.'), tools, toolChoice: { type: 'tool', name: 'done' } });
        expect(response.toolCalls).toEqual([{ id: expect.any(String), name: 'done', input: {} }]);
      });
    });

    describe('when a response format is asked for', () => {
      it('returns exactly the JSON object of the answer as the reply text, and parsed', async () => {
        const { url } = await simulator({ brain: () => 'Here you go: {"insights": [{"name": "Mobile converts less"}]} — done.' });
        const response = await provider(url).complete({
          ...ask('Report.'),
          responseFormat: {
            name: 'report',
            schema: { type: 'object', properties: { insights: { type: 'array' } }, required: ['insights'], additionalProperties: false },
          },
        });
        expect(JSON.parse(response.text)).toEqual({ insights: [{ name: 'Mobile converts less' }] });
        expect(response.parsed).toEqual({ insights: [{ name: 'Mobile converts less' }] });
      });
    });

    describe('when prompts repeat a long prefix', () => {
      const minimum = lookupModel(`${expected.catalogProvider ?? expected.provider}:${expected.model}`).entry.minCacheableTokens;
      const longSystem = `You are a careful data analyst. ${'Revenue by region and month, orders by device and week. '.repeat(Math.ceil(minimum / 8))}`;
      const cached = (question: string): LlmRequest => ({
        system: longSystem,
        messages: [{ role: 'user', content: question }],
        maxOutputTokens: 50,
        cache: { breakpoints: [{ after: 'system' }], key: 'contract' },
      });

      it('reads the repeated prefix from the cache on the second request and reports it within the input tokens', async () => {
        const started = await simulator();
        const adapter = provider(started.url);
        const first = await adapter.complete(cached('What sold best in March?'));
        const second = await adapter.complete(cached('And in April?'));
        expect(first.usage.inputTokens).toBe(estimatePromptTokens(cached('What sold best in March?'), expected.tokenFamily));
        expect(second.usage.inputTokens).toBe(estimatePromptTokens(cached('And in April?'), expected.tokenFamily));
        expect(first.usage.cacheReadTokens).toBe(0);
        const systemTokens = estimateTokens(longSystem, expected.tokenFamily) + MESSAGE_OVERHEAD_TOKENS;
        if (expected.promptCache === 'breakpoints') {
          expect(first.usage.cacheWriteTokens).toBe(systemTokens);
          expect(second.usage.cacheReadTokens).toBe(systemTokens);
          expect(second.usage.cacheWriteTokens).toBe(0);
        } else {
          // automatic caching reads the shared prefix in 128-token steps from 1,024 tokens up
          expect(second.usage.cacheReadTokens).toBeGreaterThanOrEqual(1_024);
          expect((second.usage.cacheReadTokens ?? 0) % 128).toBe(0);
          expect(second.usage.cacheReadTokens).toBeLessThanOrEqual(systemTokens + MESSAGE_OVERHEAD_TOKENS);
          expect(second.usage.cacheReadTokens).toBeGreaterThan(systemTokens - 128);
        }
        expect(started.stats.cacheReadTokens).toBe(second.usage.cacheReadTokens);
      });

      it('caches nothing below the minimum prefix length', async () => {
        const started = await simulator();
        const adapter = provider(started.url);
        const short: LlmRequest = { ...ask('Short question.'), cache: { breakpoints: [{ after: 'system' }] } };
        await adapter.complete(short);
        const again = await adapter.complete(short);
        expect(again.usage.cacheReadTokens ?? 0).toBe(0);
        expect(again.usage.cacheWriteTokens ?? 0).toBe(0);
      });

      it('serves no cache hits from a simulator with caching off', async () => {
        const started = await simulator({ promptCaching: false });
        const adapter = provider(started.url);
        await adapter.complete(cached('One.'));
        const again = await adapter.complete(cached('Two.'));
        expect(again.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
      });
    });

    describe('when the model ignores the requested format', () => {
      it('returns the malformed reply as text without parsing it', async () => {
        const { url } = await simulator({ malformedEvery: 1 });
        const response = await provider(url).complete(ask('Answer with JSON only.'));
        expect(response.text).toMatch(/^Sure!.*prose rather than JSON\.$/);
        expect(response.stopReason.unified).toBe('end');
      });
    });
  });
}
