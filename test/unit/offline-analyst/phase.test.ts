import { describe, expect, it } from 'vitest';
import { collectJsonCandidates } from '../../../src/common/json-extract.js';
import { UNKNOWN_PROMPT_REPLY, createOfflineAnalyst, detectPhase } from '../../../src/llm/offline-analyst/index.js';
import { analysisRequest, insight, kickoffRequest, queryStep, recommendationsRequest, sqlFixRequest } from './prompts.js';

const analysis = analysisRequest('conversion', [
  queryStep(1, 'conversion: sessions by device', 'SELECT 1', [{ device_type: 'mobile', sessions: 10 }]),
]);
const recommendations = recommendationsRequest([insight({ id: 'conversion-1', name: 'mobile abandons' })]);
const sqlFix = sqlFixRequest('SELECT devic FROM shop.sessions', 'Referenced column "devic" not found', {
  'shop.sessions': ['device_type VARCHAR'],
});

describe('when the analyst reads a prompt', () => {
  it.each([
    ['exploration', kickoffRequest()],
    ['analysis', analysis],
    ['recommendations', recommendations],
    ['sql_fix', sqlFix],
  ] as const)('recognises the %s prompt from its engine-owned markers', (phase, request) => {
    expect(detectPhase(request)).toBe(phase);
  });

  it('still recognises analysis after a reformat nudge was appended', () => {
    const nudged = {
      ...analysis,
      messages: [
        ...analysis.messages,
        { role: 'assistant' as const, content: 'oops' },
        { role: 'user' as const, content: 'Your last reply could not be used.' },
      ],
    };
    expect(detectPhase(nudged)).toBe('analysis');
  });
});

describe('when the prompt is not one the analyst knows', () => {
  it('answers politely without any JSON, so the engine parsers retry or record an error', async () => {
    const reply = await createOfflineAnalyst()({
      system: 'You are a poet.',
      messages: [{ role: 'user', content: 'Write a haiku about {"insight": 1}' }],
      maxOutputTokens: 100,
    });
    expect(reply).toBe(UNKNOWN_PROMPT_REPLY);
    expect(collectJsonCandidates(reply)).toEqual([]);
  });
});

describe('when the same prompt is sent twice', () => {
  it.each([
    ['exploration', kickoffRequest()],
    ['analysis', analysis],
    ['recommendations', recommendations],
    ['sql_fix', sqlFix],
  ] as const)('gives the byte-identical %s reply, from separate analyst instances too', async (_phase, request) => {
    const first = await createOfflineAnalyst()(request);
    const second = await createOfflineAnalyst()(structuredClone(request));
    expect(second).toBe(first);
  });
});
