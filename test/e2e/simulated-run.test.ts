import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareEstimateWithUsage } from '../../src/discovery/cost-estimate.js';
import { estimatePackRunCost } from '../../src/discovery/packs/pack-cost-estimate.js';
import { runAreas } from '../../src/discovery/phases/run-setting.js';
import { lookupModel } from '../../src/llm/catalog.js';
import { createOfflineAnalyst } from '../../src/llm/offline-analyst/index.js';
import { createOpenAiProvider } from '../../src/llm/providers/openai.js';
import { startLlmSimulator, type LlmSimulator } from '../../src/llm/simulator/index.js';
import { runDiscoveryLocally } from '../../src/fleet/local/runner.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { createHarness, type Harness } from '../support/engine-harness.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * The whole run through an official SDK over real HTTP: the OpenAI adapter talks to the LLM
 * simulator, whose brain is the offline analyst, answering through tool calls with automatic prompt
 * caching. Then the cost estimate is compared with the usage the run recorded.
 */
describe('a discovery run through the OpenAI SDK against the LLM simulator', () => {
  let simulator: LlmSimulator;
  let harness: Harness;
  const analyst = createOfflineAnalyst();
  const spec = 'openai:gpt-5.4-mini';

  beforeAll(async () => {
    const { entry } = lookupModel(spec);
    simulator = await startLlmSimulator({
      contextWindow: entry.contextWindow,
      brain: (call) =>
        analyst({ ...(call.system ? { system: call.system } : {}), messages: call.messages, maxOutputTokens: call.maxOutputTokens }),
    });
    const dir = tempDir('assay-sim-run-');
    const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(dir, 'shop.duckdb') });
    harness = await createHarness(analyst, {
      warehousePath: demo.path,
      llm: { provider: createOpenAiProvider({ model: 'gpt-5.4-mini', apiKey: 'sim-key', baseUrl: `${simulator.url}/v1` }), entry },
    });
  });

  afterAll(async () => {
    await harness?.close();
    await simulator?.close();
  });

  it('completes through native tools with prompt caching, records provider-reported usage and cache reads, and the estimate is within 15 % of the cost', async () => {
    const maxSteps = 24;
    const run = await harness.newRun({ maxSteps });
    await runDiscoveryLocally(harness.deps, run.id, { concurrency: 2 });
    const stored = await harness.deps.store.getRun(run.id);
    expect(stored?.status).toBe('completed');
    expect(simulator.stats.completions.openai).toBeGreaterThan(maxSteps);
    expect(simulator.stats.toolCallReplies).toBeGreaterThanOrEqual(maxSteps);
    const calls = stored!.telemetry.llm_calls;
    for (const call of calls) {
      expect(call.prompt_tokens_reported).not.toBeNull();
      expect(call.prompt_tokens_estimated).toBeLessThanOrEqual(call.context_window - call.max_output_tokens);
    }
    const exploration = calls.filter((call) => call.phase === 'exploration');
    expect(exploration.every((call) => call.protocol === 'tools')).toBe(true);
    const read = exploration.reduce((sum, call) => sum + (call.cache_read_tokens ?? 0), 0);
    const input = exploration.reduce((sum, call) => sum + (call.prompt_tokens_reported ?? 0), 0);
    expect(read / input).toBeGreaterThan(0.5);

    const pack = harness.deps.loadPack('ecommerce');
    const entry = harness.deps.llm.entry;
    const estimate = estimatePackRunCost({
      entry,
      pack,
      areas: runAreas(pack, stored!),
      maxSteps,
      catalogTokens: stored!.telemetry.schema_tokens,
    });
    const comparison = compareEstimateWithUsage(estimate, stored!.telemetry.usage_by_phase, true);
    const explorationRow = comparison.find((row) => row.phase === 'exploration')!;
    const actualCost = calls.reduce((sum, call) => sum + call.cost_usd, 0);
    console.log(
      `exploration input over ${maxSteps} steps: actual ${explorationRow.actual_input_tokens}, estimated ${explorationRow.estimated_input_tokens}; cost with caching: actual $${actualCost.toFixed(4)}, estimated $${estimate.llm.cost_usd_cached.toFixed(4)}`,
    );
    expect(explorationRow.input_ratio).toBeGreaterThan(0.85);
    expect(explorationRow.input_ratio).toBeLessThan(1.15);
    expect(Math.abs(estimate.llm.cost_usd_cached / actualCost - 1)).toBeLessThan(0.15);
  }, 120_000);
});
