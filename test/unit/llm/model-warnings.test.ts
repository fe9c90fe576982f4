import { describe, expect, it } from 'vitest';
import { lookupModel } from '../../../src/llm/catalog.js';
import { warnIfDeprecated } from '../../../src/llm/model-warnings.js';
import { withoutSdkDeprecationNotice } from '../../../src/llm/providers/sdk-warnings.js';

describe('when a configuration names a deprecated model', () => {
  it('warns once per process, with the end-of-life date and a current model of the same tier', () => {
    const warnings: string[] = [];
    const logger = { warn: (_fields: unknown, message: string) => warnings.push(message) };
    const { entry } = lookupModel('anthropic:claude-sonnet-4-5');
    expect(warnIfDeprecated('anthropic:claude-sonnet-4-5', entry, logger)).toBe(true);
    expect(warnIfDeprecated('anthropic:claude-sonnet-4-5', entry, logger)).toBe(false);
    expect(warnings).toEqual([
      'model "anthropic:claude-sonnet-4-5" is deprecated by its vendor (end of life: November 30th, 2026): choose a current model, e.g. anthropic:claude-sonnet-5-5',
    ]);
  });

  it('says nothing for a current model', () => {
    const warnings: string[] = [];
    expect(warnIfDeprecated('openai:gpt-5.4', lookupModel('openai:gpt-5.4').entry, { warn: () => warnings.push('x') })).toBe(false);
    expect(warnings).toEqual([]);
  });
});

describe('when the Anthropic SDK prints its deprecation notice during a call', () => {
  it('drops that notice and lets every other warning through, and puts console.warn back', () => {
    const original = console.warn;
    const printed: unknown[][] = [];
    console.warn = (...args: unknown[]) => printed.push(args);
    try {
      const value = withoutSdkDeprecationNotice(() => {
        console.warn("The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on November 30th, 2026\nPlease migrate.");
        console.warn('something else', 1);
        return 42;
      });
      expect(value).toBe(42);
      expect(printed).toEqual([['something else', 1]]);
      console.warn('after');
      expect(printed.at(-1)).toEqual(['after']);
    } finally {
      console.warn = original;
    }
  });
});
