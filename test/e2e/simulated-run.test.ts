import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareEstimateWithUsage, estimateRunCost } from '../../src/discovery/cost-estimate.js';
import { runAreas } from '../../src/discovery/phases/run-setting.js';
import { renderBaseContext, renderExplorationPrompt } from '../../src/discovery/packs/prompt-assembly.js';
import { lookupModel } from '../../src/llm/catalog.js';
import { createOfflineAnalyst } from '../../src/llm/offline-analyst/index.js';
import { createOpenAiProvider } from '../../src/llm/providers/openai.js';
import { startLlmSimulator, type LlmSimulator } from '../../src/llm/simulator/index.js';
import { estimateTokens } from '../../src/llm/tokens.js';
import { COMPACT_ASST_KEEP, COMPACT_HISTORY_MAX_CHARS, COMPACT_KEEP_TAIL, COMPACT_TOOL_KEEP } from '../../src/compaction/conversation.js';
import { digestOneLiner } from '../../src/compaction/render.js';
import { renderAssistantTurn, renderResultTurn } from '../../src/discovery/parsing/turn-format.js';
import { runDiscoveryLocally } from '../../src/fleet/local/runner.js';
import { generateDemoWarehouse } from '../../src/demo/index.js';
import { createHarness, type Harness } from '../support/engine-harness.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * The whole run through an official SDK over real HTTP: the OpenAI adapter talks to the LLM
 * simulator, whose brain is the offline analyst. Then the cost estimate is compared with the usage
 * the run recorded.
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

  it('completes, records provider-reported usage on every call, and the growth model of the estimate matches the recorded exploration input', async () => {
    const maxSteps = 16;
    const run = await harness.newRun({ maxSteps });
    const result = await runDiscoveryLocally(harness.deps, run.id, { concurrency: 2 });
    const stored = await harness.deps.store.getRun(run.id);
    expect(stored?.status).toBe('completed');
    expect(simulator.stats.completions.openai).toBeGreaterThan(maxSteps);
    const calls = stored!.telemetry.llm_calls;
    for (const call of calls) {
      expect(call.prompt_tokens_reported).not.toBeNull();
      expect(call.prompt_tokens_estimated).toBeLessThanOrEqual(call.context_window - call.max_output_tokens);
    }

    const pack = harness.deps.loadPack('ecommerce');
    const areas = runAreas(pack, stored!);
    const schema = await harness.deps.schema.load(harness.project, {
      areaKeywords: areas.flatMap((area) => area.keywords),
      catalogBudgetTokens: 150_000,
    });
    const entry = harness.deps.llm.entry;
    const base = renderBaseContext(pack, harness.project, '');
    const exploration = renderExplorationPrompt({
      pack,
      category: undefined,
      project: harness.project,
      dialect: 'duckdb',
      tables: schema.tables,
      catalogText: schema.catalog.text,
      areas,
      maxSteps,
      minSteps: 0,
    });
    // per-turn sizes measured on this run's own steps with the real renderers: the test checks the
    // growth model (full recent turns, compacted older ones, a capped history), not a guessed constant
    const steps = await harness.deps.store.listSteps(run.id);
    const turnTokens = steps.map((step) =>
      estimateTokens(
        `${renderAssistantTurn(step) ?? ''}${renderResultTurn(step, step.action === 'query' && !step.error ? digestOneLiner(step) : '', null)}`,
        entry.family,
      ),
    );
    const perRecentTurnTokens = Math.ceil(turnTokens.reduce((sum, tokens) => sum + tokens, 0) / turnTokens.length);
    const perOldTurnTokens = Math.ceil((COMPACT_TOOL_KEEP + COMPACT_ASST_KEEP + 200) / 3.2);
    const estimate = estimateRunCost({
      catalogEntry: entry,
      catalogTokens: 0, // already inside the rendered exploration prompt
      basePromptTokens: estimateTokens(base, entry.family),
      explorationPromptTokens: estimateTokens(exploration, entry.family),
      maxSteps: result.total_steps,
      areas: areas.length,
      loopCompaction: {
        keepTurns: COMPACT_KEEP_TAIL / 2,
        perOldTurnTokens,
        perRecentTurnTokens,
        maxCompactedHistoryTokens: Math.ceil(COMPACT_HISTORY_MAX_CHARS / 3.2),
      },
    });
    const comparison = compareEstimateWithUsage(estimate, stored!.telemetry.usage_by_phase);
    const explorationRow = comparison.find((row) => row.phase === 'exploration')!;
    // the reference's linear guess, for contrast: prefix once per step + 1200 per step
    const prefix = estimateTokens(base, entry.family) + estimateTokens(exploration, entry.family);
    const linear = result.total_steps * prefix + 1200 * result.total_steps;
    console.log(
      `exploration input over ${result.total_steps} steps: actual ${explorationRow.actual_input_tokens}, estimated ${explorationRow.estimated_input_tokens} (actual/estimate ${explorationRow.input_ratio?.toFixed(2)}; full turn ${perRecentTurnTokens} tokens), reference-style linear ${linear}`,
    );
    expect(explorationRow.input_ratio).toBeGreaterThan(0.75);
    expect(explorationRow.input_ratio).toBeLessThan(1.33);
    // and it beats the reference's linear formula by a wide margin
    expect(Math.abs(explorationRow.actual_input_tokens - linear)).toBeGreaterThan(
      2 * Math.abs(explorationRow.actual_input_tokens - explorationRow.estimated_input_tokens),
    );
  }, 120_000);
});
