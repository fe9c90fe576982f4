/**
 * The behaviour every HTTP LlmProvider adapter must have, checked over real HTTP against the LLM
 * simulator with the official SDK inside the adapter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmAuthError, LlmContextOverflowError, LlmError, LlmRateLimitError } from '../../../src/errors/index.js';
import type { LlmProvider, LlmRequest } from '../../../src/llm/port.js';
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
