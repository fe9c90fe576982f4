import { describe, expect, it } from 'vitest';
import { EXPLORER_ACTIONS, parseAction } from '../../../src/discovery/parsing/action-parser.js';
import { renderKickoff } from '../../../src/discovery/parsing/turn-format.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { explorationSystem, kickoffRequest } from './prompts.js';

const brain = createOfflineAnalyst();

describe('when exploration begins', () => {
  it('looks up the catalog tables by their qualified names in one call', async () => {
    const parsed = parseAction(await brain(kickoffRequest()), EXPLORER_ACTIONS);
    expect(parsed.ok && parsed.action.type === 'lookup_schema' ? [...parsed.action.tables].sort() : []).toEqual([
      'shop.customers',
      'shop.orders',
      'shop.sessions',
    ]);
  });

  it('finishes instead of looking up when the run has no lookup calls left and nothing is known', async () => {
    const request = {
      system: explorationSystem(),
      messages: [{ role: 'user' as const, content: renderKickoff({ maxSteps: 20, minSteps: 0, lookupsLeft: 0, searchesLeft: 0 }) }],
      maxOutputTokens: 4_096,
    };
    const parsed = parseAction(await brain(request), EXPLORER_ACTIONS);
    expect(parsed.ok && parsed.action.type).toBe('done');
  });
});
