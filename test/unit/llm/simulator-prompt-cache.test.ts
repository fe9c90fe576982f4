import { describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, SimulatedPromptCache, type PromptBlock } from '../../../src/llm/simulator/prompt-cache.js';

function blocks(texts: string[], marks: number[] = [], tokens = 100): PromptBlock[] {
  return texts.map((text, index) => ({
    kind: index === 0 ? 'system' : index % 2 === 1 ? 'user' : 'assistant',
    text,
    tokens,
    breakpoint: marks.includes(index),
  }));
}

describe('when the simulated cache follows breakpoint rules (Anthropic, Bedrock)', () => {
  it('writes the prefix up to the last breakpoint, then reads it when the same prefix comes again', () => {
    const cache = new SimulatedPromptCache();
    expect(cache.breakpoints('s', blocks(['sys', 'u1'], [0, 1]), 150)).toEqual({ readTokens: 0, writeTokens: 200 });
    expect(cache.breakpoints('s', blocks(['sys', 'u1', 'a1', 'u2'], [0, 3]), 150)).toEqual({ readTokens: 200, writeTokens: 200 });
  });

  it('finds an earlier entry within 20 blocks before a breakpoint, not further back', () => {
    const cache = new SimulatedPromptCache();
    const history = Array.from({ length: 30 }, (_, index) => `turn ${index}`);
    cache.breakpoints('s', blocks(history.slice(0, 5), [4]), 0);
    expect(cache.breakpoints('s', blocks(history.slice(0, 24), [23]), 0).readTokens).toBe(500);
    const far = new SimulatedPromptCache();
    far.breakpoints('s', blocks(history.slice(0, 5), [4]), 0);
    expect(far.breakpoints('s', blocks(history.slice(0, 25), [24]), 0).readTokens).toBe(0);
  });

  it('caches nothing at a breakpoint whose prefix is below the minimum, and reads nothing across scopes', () => {
    const cache = new SimulatedPromptCache();
    expect(cache.breakpoints('s', blocks(['sys'], [0]), 1_024)).toEqual({ readTokens: 0, writeTokens: 0 });
    cache.breakpoints('a', blocks(['sys', 'u'], [1]), 0);
    expect(cache.breakpoints('b', blocks(['sys', 'u'], [1]), 0).readTokens).toBe(0);
  });

  it('drops an entry five minutes after its last use, and a read keeps it alive', () => {
    let now = 0;
    const cache = new SimulatedPromptCache(() => now);
    cache.breakpoints('s', blocks(['sys'], [0]), 0);
    now += CACHE_TTL_MS - 1;
    expect(cache.breakpoints('s', blocks(['sys'], [0]), 0).readTokens).toBe(100);
    now += CACHE_TTL_MS - 1;
    expect(cache.breakpoints('s', blocks(['sys'], [0]), 0).readTokens).toBe(100);
    now += CACHE_TTL_MS + 1;
    expect(cache.breakpoints('s', blocks(['sys'], [0]), 0)).toEqual({ readTokens: 0, writeTokens: 100 });
  });

  it('never caches a request without breakpoints', () => {
    const cache = new SimulatedPromptCache();
    cache.breakpoints('s', blocks(['sys', 'u']), 0);
    expect(cache.breakpoints('s', blocks(['sys', 'u']), 0)).toEqual({ readTokens: 0, writeTokens: 0 });
  });
});

describe('when the simulated cache follows automatic rules (OpenAI)', () => {
  it('reads the longest shared prefix in 128-token steps from 1,024 tokens, into a changed block too', () => {
    const cache = new SimulatedPromptCache();
    const system = 'rule '.repeat(3_000);
    const first = blocks([system, 'question one'], [], 0).map((block, index) => ({ ...block, tokens: index === 0 ? 2_000 : 10 }));
    expect(cache.automatic('m', first, 'openai')).toEqual({ readTokens: 0, writeTokens: 0 });
    const second = first.map((block, index) => (index === 1 ? { ...block, text: 'question two' } : block));
    const read = cache.automatic('m', second, 'openai').readTokens;
    expect(read).toBe(1_024 + Math.floor((2_000 + 2 - 1_024) / 128) * 128);
  });

  it('does not cache a prompt under 1,024 tokens', () => {
    const cache = new SimulatedPromptCache();
    const small = blocks(['short'], [], 500);
    cache.automatic('m', small, 'openai');
    expect(cache.automatic('m', small, 'openai').readTokens).toBe(0);
  });
});
