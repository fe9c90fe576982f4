import { DATA_RULE } from '../../../src/llm/data-fence.js';
import { describe, expect, it } from 'vitest';
import type { LlmCallRecord } from '../../../src/domain/run.js';
import { LlmContextOverflowError, type LlmError, LlmRateLimitError } from '../../../src/errors/index.js';
import { callLlm, overflowShrinkFactor, OVERFLOW_EXTRA_MARGIN } from '../../../src/llm/budgeted-call.js';
import type { ModelCatalogEntry } from '../../../src/llm/catalog.js';
import type { LlmProvider, LlmRequest, LlmResponse } from '../../../src/llm/port.js';
import { PromptBudgetExceededError, type PromptSection } from '../../../src/llm/prompt-builder.js';
import { estimateTokens } from '../../../src/llm/tokens.js';

const entry: ModelCatalogEntry = {
  provider: 'scripted',
  model: 'scripted-model',
  contextWindow: 50_000,
  maxOutputTokens: 4_000,
  inputPricePerMTok: 3,
  outputPricePerMTok: 15,
  cacheReadPricePerMTok: 0.3,
  cacheWritePricePerMTok: 3.75,
  promptCache: 'breakpoints',
  minCacheableTokens: 1_024,
  tools: true,
  structuredOutput: true,
  tier: 'strong',
  family: 'anthropic',
};

/** Size of a request as the scripted provider sees it (its own "tokenizer": our estimator). */
function requestTokens(request: LlmRequest): number {
  return (
    estimateTokens(request.system ?? '', 'anthropic') +
    request.messages.reduce((sum, message) => sum + estimateTokens(message.content, 'anthropic'), 0)
  );
}

type Step = { fail: LlmError } | { answer: string };

/** A provider that plays a script: each call takes the next step; it records every request it got. */
function scriptedProvider(steps: Step[]): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    provider: 'scripted',
    model: 'scripted-model',
    requests,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      requests.push(request);
      const step = steps[requests.length - 1];
      if (!step) throw new Error('script exhausted');
      if ('fail' in step) throw step.fail;
      return {
        text: step.answer,
        usage: { inputTokens: requestTokens(request) + 11, outputTokens: 40 },
        stopReason: { unified: 'end', raw: 'end_turn' },
        model: 'scripted-model-2026',
        latencyMs: 12,
      };
    },
  };
}

const words = (count: number): string => Array.from({ length: count }, (_, index) => `step_${index} revenue 1234`).join(' ');

const sections: PromptSection[] = [
  { id: 'base', role: 'system', text: 'You are a data analyst. Answer in JSON.', priority: 100, shrink: 'none' },
  { id: 'history', role: 'user', text: words(4_000), priority: 1, shrink: 'truncate' },
  { id: 'ask', role: 'user', text: 'Next action?', priority: 100, shrink: 'none' },
];

const noWait = { sleep: async () => undefined, random: () => 0 };

describe('when the prompt fits and the provider answers', () => {
  it('sends the built prompt and records estimated vs reported prompt tokens and cost', async () => {
    const provider = scriptedProvider([{ answer: '{"action":"done"}' }]);
    const records: LlmCallRecord[] = [];
    const result = await callLlm({
      provider,
      catalogEntry: entry,
      sections,
      phase: 'exploration',
      maxOutputTokens: 2_000,
      onRecord: (record) => records.push(record),
      step: 3,
    });
    expect(result.response.text).toBe('{"action":"done"}');
    expect(provider.requests[0]!.maxOutputTokens).toBe(2_000);
    expect(provider.requests[0]!.system).toBe(`You are a data analyst. Answer in JSON.\n\n${DATA_RULE}`);
    expect(records).toEqual([result.record]);
    const reported = requestTokens(provider.requests[0]!) + 11;
    expect(result.record).toMatchObject({
      phase: 'exploration',
      model: 'scripted-model',
      prompt_tokens_estimated: result.prompt.estimatedTokens,
      prompt_tokens_reported: reported,
      output_tokens: 40,
      context_window: 50_000,
      max_output_tokens: 2_000,
      overflow_retry: false,
      shrunk: false,
      step: 3,
    });
    expect(result.record.cost_usd).toBeCloseTo((reported * 3 + 40 * 15) / 1_000_000, 12);
  });

  it('caps the requested output at the model limit', async () => {
    const provider = scriptedProvider([{ answer: 'ok' }]);
    await callLlm({ provider, catalogEntry: entry, sections, phase: 'analysis', maxOutputTokens: 100_000 });
    expect(provider.requests[0]!.maxOutputTokens).toBe(4_000);
  });

  it('retries a rate limit through the retry policy and still records one call', async () => {
    const provider = scriptedProvider([
      { fail: new LlmRateLimitError('slow down', { provider: 'scripted', retryAfterMs: 10 }) },
      { answer: 'ok' },
    ]);
    const records: LlmCallRecord[] = [];
    await callLlm({
      provider,
      catalogEntry: entry,
      sections,
      phase: 'analysis',
      retry: noWait,
      onRecord: (record) => records.push(record),
    });
    expect(provider.requests).toHaveLength(2);
    expect(records).toHaveLength(1);
  });
});

describe('when the provider reports the prompt too long', () => {
  it('rebuilds smaller by at least the reported ratio, retries once and marks overflow_retry', async () => {
    const reportedPromptTokens = 60_000;
    const reportedMaxTokens = 45_000;
    const provider = scriptedProvider([
      { fail: new LlmContextOverflowError('prompt is too long', { provider: 'scripted', reportedPromptTokens, reportedMaxTokens }) },
      { answer: 'ok' },
    ]);
    const result = await callLlm({ provider, catalogEntry: entry, sections, phase: 'exploration', maxOutputTokens: 2_000, retry: noWait });
    expect(provider.requests).toHaveLength(2);
    const [first, second] = provider.requests.map(requestTokens) as [number, number];
    expect(second).toBeLessThanOrEqual(first * (reportedMaxTokens / reportedPromptTokens));
    expect(result.record.overflow_retry).toBe(true);
    expect(result.record.shrunk).toBe(true);
    expect(provider.requests[1]!.messages.at(-1)!.content).toContain('Next action?');
  });

  it('shrinks by 25 % when the error carries no numbers', async () => {
    const provider = scriptedProvider([
      { fail: new LlmContextOverflowError('input is too long', { provider: 'scripted' }) },
      { answer: 'ok' },
    ]);
    const result = await callLlm({ provider, catalogEntry: entry, sections, phase: 'analysis', retry: noWait });
    const [first, second] = provider.requests.map(requestTokens) as [number, number];
    expect(second).toBeLessThanOrEqual(first * 0.75);
    expect(result.prompt.budgetTokens).toBeLessThan(40_000);
  });

  it('throws a second overflow instead of dropping it', async () => {
    const second = new LlmContextOverflowError('still too long', {
      provider: 'scripted',
      reportedPromptTokens: 50_000,
      reportedMaxTokens: 45_000,
    });
    const provider = scriptedProvider([
      { fail: new LlmContextOverflowError('too long', { provider: 'scripted', reportedPromptTokens: 50_000, reportedMaxTokens: 45_000 }) },
      { fail: second },
      { answer: 'never reached' },
    ]);
    const records: LlmCallRecord[] = [];
    await expect(
      callLlm({ provider, catalogEntry: entry, sections, phase: 'analysis', retry: noWait, onRecord: (record) => records.push(record) }),
    ).rejects.toBe(second);
    expect(provider.requests).toHaveLength(2);
    expect(records).toEqual([]);
  });

  it('surfaces a budget error when the fixed sections cannot shrink to the reported size', async () => {
    const fixedOnly: PromptSection[] = [{ id: 'fixed', role: 'user', text: words(3_000), priority: 1, shrink: 'none' }];
    const provider = scriptedProvider([
      { fail: new LlmContextOverflowError('too long', { provider: 'scripted', reportedPromptTokens: 40_000, reportedMaxTokens: 10_000 }) },
    ]);
    await expect(callLlm({ provider, catalogEntry: entry, sections: fixedOnly, phase: 'analysis', retry: noWait })).rejects.toBeInstanceOf(
      PromptBudgetExceededError,
    );
  });
});

describe('when computing the overflow shrink factor', () => {
  it('uses the room left for the prompt (limit minus output) over the reported prompt, less the extra margin', () => {
    const error = new LlmContextOverflowError('x', { provider: 'p', reportedPromptTokens: 210_000, reportedMaxTokens: 200_000 });
    expect(overflowShrinkFactor(error, 8_000)).toBeCloseTo((192_000 / 210_000) * (1 - OVERFLOW_EXTRA_MARGIN), 10);
  });

  it('never returns a factor that would not shrink the prompt', () => {
    const odd = new LlmContextOverflowError('x', { provider: 'p', reportedPromptTokens: 1_000, reportedMaxTokens: 200_000 });
    expect(overflowShrinkFactor(odd, 1_000)).toBeLessThan(1);
  });
});
