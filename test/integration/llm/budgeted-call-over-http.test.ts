import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmCallRecord } from '../../../src/domain/run.js';
import { callLlm } from '../../../src/llm/budgeted-call.js';
import type { ModelCatalogEntry } from '../../../src/llm/catalog.js';
import { createAnthropicProvider } from '../../../src/llm/providers/anthropic.js';
import { createBedrockProvider } from '../../../src/llm/providers/bedrock.js';
import { createOpenAiProvider } from '../../../src/llm/providers/openai.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';
import type { LlmProvider } from '../../../src/llm/port.js';

/** The provider's real window is smaller than the catalog believes: the overflow path must save the call. */
const SIMULATOR_WINDOW = 3_000;
const MAX_OUTPUT = 500;

function catalogEntry(provider: string, family: ModelCatalogEntry['family']): ModelCatalogEntry {
  return {
    provider,
    model: 'simulated',
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
    inputPricePerMTok: 0,
    outputPricePerMTok: 0,
    cacheReadPricePerMTok: 0,
    cacheWritePricePerMTok: 0,
    promptCache: 'none',
    minCacheableTokens: 0,
    tools: false,
    structuredOutput: false,
    tier: 'strong',
    family,
  };
}

const steps = Array.from(
  { length: 200 },
  (_, index) =>
    `Step ${index}: SELECT region, count(*) FROM orders_${index} GROUP BY region -> 12 rows, top region "north" with 4,120 orders.`,
).join('\n');

describe('when the catalog overstates the window and the provider says "prompt too long"', () => {
  let simulator: LlmSimulator;
  beforeAll(async () => {
    simulator = await startLlmSimulator({ contextWindow: SIMULATOR_WINDOW });
  });
  afterAll(() => simulator.close());

  const cases: Array<[string, () => LlmProvider & { close?(): void }, ModelCatalogEntry['family']]> = [
    ['anthropic', () => createAnthropicProvider({ model: 'claude-sonnet-4-6', apiKey: 'k', baseUrl: simulator.url }), 'anthropic'],
    ['openai', () => createOpenAiProvider({ model: 'gpt-5.4', apiKey: 'k', baseUrl: `${simulator.url}/v1` }), 'openai'],
    [
      'bedrock',
      () =>
        createBedrockProvider({
          modelId: 'anthropic.claude-sonnet-4-6',
          region: 'us-east-1',
          endpoint: simulator.url,
          credentials: { accessKeyId: 'k', secretAccessKey: 's' },
        }),
      'default',
    ],
  ];

  it.each(cases)(
    '%s: the budgeted call shrinks by the reported ratio, retries once over real HTTP, and succeeds',
    async (_name, makeProvider, family) => {
      const provider = makeProvider();
      const before = simulator.stats.contextOverflows;
      const records: LlmCallRecord[] = [];
      const { response, record } = await callLlm({
        provider,
        catalogEntry: catalogEntry(provider.provider, family),
        sections: [
          { id: 'instructions', role: 'system', text: 'Find insights in the exploration steps.', priority: 100, shrink: 'none' },
          { id: 'steps', role: 'user', text: steps, priority: 10, shrink: 'truncate' },
        ],
        maxOutputTokens: MAX_OUTPUT,
        phase: 'analysis',
        onRecord: (callRecord) => records.push(callRecord),
      });
      provider.close?.();
      expect(simulator.stats.contextOverflows).toBe(before + 1);
      expect(record.overflow_retry).toBe(true);
      expect(record.prompt_tokens_reported).not.toBeNull();
      expect(record.prompt_tokens_reported!).toBeLessThanOrEqual(SIMULATOR_WINDOW - MAX_OUTPUT);
      expect(response.stopReason.unified).toBe('end');
      expect(records).toHaveLength(1);
    },
  );
});
