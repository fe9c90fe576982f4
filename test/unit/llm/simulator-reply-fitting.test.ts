import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitReply, longestPrefixWithin } from '../../../src/llm/simulator/reply-fitting.js';
import { estimateTokens } from '../../../src/llm/tokens.js';

describe('when a reply is longer than the output cap', () => {
  it('keeps the longest prefix within the cap and reports max_tokens', () => {
    const reply = 'The churn rate rose in March for players who skipped the tutorial. '.repeat(20);
    const fitted = fitReply(reply, { maxOutputTokens: 25, promptTokens: 100, contextWindow: 10_000, family: 'anthropic' });
    expect(fitted.stop).toBe('max_tokens');
    expect(fitted.outputTokens).toBeLessThanOrEqual(25);
    expect(reply.startsWith(fitted.text)).toBe(true);
    expect(estimateTokens(reply.slice(0, fitted.text.length + 1), 'anthropic')).toBeGreaterThan(25);
  });
});

describe('when the window has less room than the output cap', () => {
  it('cuts at the window and reports context_window', () => {
    const fitted = fitReply('word '.repeat(500), { maxOutputTokens: 1_000, promptTokens: 90, contextWindow: 100, family: 'openai' });
    expect(fitted.stop).toBe('context_window');
    expect(fitted.outputTokens).toBeLessThanOrEqual(10);
  });
});

describe('when the reply fits', () => {
  it('returns it whole with stop end', () => {
    expect(fitReply('ok', { maxOutputTokens: 10, promptTokens: 0, contextWindow: 100, family: 'default' })).toEqual({
      text: 'ok',
      outputTokens: estimateTokens('ok', 'default'),
      stop: 'end',
    });
  });
});

describe('longestPrefixWithin', () => {
  it('always returns a prefix within the budget that cannot grow by one character (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('anthropic' as const, 'openai' as const, 'default' as const),
        (text, budget, family) => {
          const prefix = longestPrefixWithin(text, budget, family);
          expect(text.startsWith(prefix)).toBe(true);
          expect(estimateTokens(prefix, family)).toBeLessThanOrEqual(budget);
          if (prefix.length < text.length) expect(estimateTokens(text.slice(0, prefix.length + 1), family)).toBeGreaterThan(budget);
        },
      ),
      { numRuns: 200 },
    );
  });
});
