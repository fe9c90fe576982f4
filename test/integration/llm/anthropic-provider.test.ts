import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../../src/llm/providers/anthropic.js';
import { estimatePromptTokens } from '../../../src/llm/providers/prompt-size.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';
import { runProviderContract } from './provider-contract.js';

const MODEL = 'claude-sonnet-4-6';

runProviderContract('anthropic', (url, credential) => createAnthropicProvider({ model: MODEL, apiKey: credential, baseUrl: url }), {
  provider: 'anthropic',
  model: MODEL,
  tokenFamily: 'anthropic',
  authStatus: 401,
  promptCache: 'breakpoints',
});

describe('when the Anthropic adapter counts tokens', () => {
  let simulator: LlmSimulator;
  beforeAll(async () => {
    simulator = await startLlmSimulator();
  });
  afterAll(() => simulator.close());

  it('returns the count from /v1/messages/count_tokens without generating anything', async () => {
    const provider = createAnthropicProvider({ model: MODEL, apiKey: 'simulated-key', baseUrl: simulator.url });
    const request = { system: 'Be terse.', messages: [{ role: 'user' as const, content: 'How many orders were placed in March?' }] };
    expect(await provider.countTokens(request)).toBe(estimatePromptTokens(request, 'anthropic'));
    expect(simulator.stats.tokenCounts).toBe(1);
    expect(simulator.stats.completions.anthropic).toBe(0);
  });
});

describe('when the configured Claude model is one the SDK deprecates', () => {
  let simulator: LlmSimulator;
  beforeAll(async () => {
    simulator = await startLlmSimulator();
  });
  afterAll(() => simulator.close());

  it("keeps the SDK's per-request deprecation notice out of the output (Assay warns once itself, when binding the model)", async () => {
    const provider = createAnthropicProvider({ model: 'claude-sonnet-4-5', apiKey: 'simulated-key', baseUrl: simulator.url });
    const original = console.warn;
    const printed: string[] = [];
    console.warn = (...args: unknown[]) => printed.push(String(args[0]));
    try {
      for (let call = 0; call < 3; call += 1) {
        await provider.complete({ messages: [{ role: 'user', content: `question ${call}` }], maxOutputTokens: 20 });
      }
    } finally {
      console.warn = original;
    }
    expect(simulator.stats.completions.anthropic).toBe(3);
    expect(printed.filter((line) => line.includes('deprecated'))).toEqual([]);
  });
});
