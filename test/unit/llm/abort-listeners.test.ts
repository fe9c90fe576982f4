/**
 * A run hands one AbortSignal to every model and embedding call it makes, so no call may leave a
 * listener on it: the OpenAI SDK never removes the one it adds, which made the OpenAI and
 * openai-compatible adapters leak a listener per call (Node's MaxListenersExceededWarning at the 11th).
 * Each adapter is driven over real HTTP against the in-process LLM simulator (or, for embeddings, a
 * small server speaking the embeddings wire format).
 */
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiEmbedder } from '../../../src/embed/openai.js';
import { LlmError } from '../../../src/errors/index.js';
import type { LlmProvider } from '../../../src/llm/port.js';
import { createAnthropicProvider } from '../../../src/llm/providers/anthropic.js';
import { createBedrockProvider } from '../../../src/llm/providers/bedrock.js';
import { createOpenAiProvider } from '../../../src/llm/providers/openai.js';
import { withRetry } from '../../../src/llm/retry.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';

/** More calls than Node's default limit of 10 listeners on one event target before it warns. */
const CALLS = 12;

type Adapter = LlmProvider & { close?(): void };

const ADAPTERS: Record<string, (url: string) => Adapter> = {
  openai: (url) => createOpenAiProvider({ model: 'gpt-5.4', apiKey: 'k', baseUrl: `${url}/v1` }),
  'openai-compatible': (url) =>
    createOpenAiProvider({ provider: 'openai-compatible', model: 'qwen2.5:7b', apiKey: 'k', baseUrl: `${url}/v1` }),
  anthropic: (url) => createAnthropicProvider({ model: 'claude-sonnet-4-6', apiKey: 'k', baseUrl: url }),
  bedrock: (url) =>
    createBedrockProvider({
      modelId: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
      region: 'us-east-1',
      endpoint: url,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    }),
};

function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

describe('when many calls share one AbortSignal', () => {
  let simulator: LlmSimulator;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    simulator = await startLlmSimulator();
  });
  afterAll(() => simulator.close());
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });

  /** Warnings are emitted on a later tick than the listener that caused them. */
  async function leakWarnings(): Promise<Error[]> {
    await new Promise((resolve) => setImmediate(resolve));
    return warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning');
  }

  it.each(Object.keys(ADAPTERS))('the %s adapter leaves no abort listener on it after each call', async (name) => {
    const adapter = ADAPTERS[name]!(simulator.url);
    const run = new AbortController();
    try {
      for (let call = 1; call <= CALLS; call += 1) {
        const response = await adapter.complete({
          messages: [{ role: 'user', content: `call ${call}` }],
          maxOutputTokens: 50,
          signal: run.signal,
        });
        expect(response.text).toContain(`call ${call}`);
        expect(abortListeners(run.signal)).toBe(0);
      }
    } finally {
      adapter.close?.();
    }
    expect(await leakWarnings()).toEqual([]);
  });

  it('a call still stops, reported as aborted, when the shared signal aborts during it', async () => {
    const slow = await startLlmSimulator({ latencyMs: 10_000 });
    const run = new AbortController();
    try {
      const adapter = ADAPTERS['openai-compatible']!(slow.url);
      const pending = adapter.complete({ messages: [{ role: 'user', content: 'slow' }], maxOutputTokens: 20, signal: run.signal });
      setTimeout(() => run.abort(new Error('run cancelled')), 50);
      const error = await pending.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(LlmError);
      expect((error as LlmError).kind).toBe('aborted');
      expect(abortListeners(run.signal)).toBe(0);
    } finally {
      await slow.close();
    }
  });

  it('retries of one call, waiting on the shared signal, leave no abort listener on it', async () => {
    const run = new AbortController();
    let attempts = 0;
    const result = await withRetry(
      async () => {
        attempts += 1;
        if (attempts <= CALLS) throw new LlmError('busy', { kind: 'transient', isRetryable: true, provider: 'test' });
        return 'ok';
      },
      { signal: run.signal, maxAttempts: CALLS + 1, baseDelayMs: 1, maxDelayMs: 1 },
    );
    expect(result).toBe('ok');
    expect(attempts).toBe(CALLS + 1);
    expect(abortListeners(run.signal)).toBe(0);
    expect(await leakWarnings()).toEqual([]);
  });

  describe('the OpenAI embedder', () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer((request, response) => {
        let text = '';
        request.on('data', (chunk: Buffer) => (text += chunk.toString()));
        request.on('end', () => {
          const inputs = (JSON.parse(text) as { input: string[] }).input;
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              object: 'list',
              data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [index, 1, 0] })),
              model: 'm',
              usage: { prompt_tokens: 1, total_tokens: 1 },
            }),
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('leaves no abort listener on it after each batch', async () => {
      const embedder = createOpenAiEmbedder({ model: 'custom', apiKey: 'k', baseURL: url, provider: 'openai-compatible', maxRetries: 0 });
      const run = new AbortController();
      for (let call = 1; call <= CALLS; call += 1) {
        expect(await embedder.embed([`table ${call}`], { signal: run.signal })).toHaveLength(1);
        expect(abortListeners(run.signal)).toBe(0);
      }
      expect(await leakWarnings()).toEqual([]);
    });
  });
});
