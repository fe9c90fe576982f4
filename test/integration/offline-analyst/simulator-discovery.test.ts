import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';
import { runDemoDiscovery } from './demo-discovery.js';

let simulator: LlmSimulator;

beforeAll(async () => {
  const analyst = createOfflineAnalyst();
  simulator = await startLlmSimulator({
    brain: (call) => analyst({ system: call.system, messages: call.messages, maxOutputTokens: call.maxOutputTokens }),
  });
});

afterAll(async () => {
  await simulator?.close();
});

describe('when the offline analyst answers over HTTP through the LLM simulator (OpenAI wire format)', () => {
  it('runs the same discovery on the social demo and finds its planted patterns', async () => {
    const outcome = await runDemoDiscovery('social', 24, `openai-compatible:${simulator.url}/v1#analyst-sim`);
    console.log(
      `offline analyst via simulator on social: ${outcome.score.found}/${outcome.score.planted} planted patterns, confirmed share ${outcome.score.confirmed_share}, ${outcome.elapsedMs} ms, ${simulator.stats.requests} HTTP requests`,
    );
    expect(outcome.run.status).toBe('completed');
    expect(simulator.stats.requests).toBeGreaterThan(24);
    expect(outcome.score.found).toBeGreaterThanOrEqual(2);
    expect(outcome.score.confirmed_share).toBeGreaterThanOrEqual(0.8);
  }, 60_000);
});
