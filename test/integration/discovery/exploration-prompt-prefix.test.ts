import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { lookupModel } from '../../../src/llm/catalog.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { detectPhase } from '../../../src/llm/offline-analyst/phase.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import { createOfflineProvider } from '../../../src/llm/providers/offline.js';
import { explorationSections } from '../../../src/discovery/phases/explore-step.js';
import { callLlm } from '../../../src/llm/budgeted-call.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * The exploration prompt is built for a prompt cache: it only grows at its end between the moments turns
 * leave the verbatim tail, every result turn keeps its own budget footer, the model's working notes sit in
 * the opening, and the cache breakpoints go where a later prompt can read them. A provider that caches
 * by breakpoints is stood in for by the offline analyst, whose requests the test keeps.
 */
describe('when a 40-step exploration is asked of a model that caches prompts at breakpoints', () => {
  const analyst = createOfflineAnalyst();
  const requests: LlmRequest[] = [];
  let harness: Harness;
  let runId: string;

  beforeAll(async () => {
    const dir = tempDir('assay-prefix-');
    const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(dir, 'shop.duckdb') });
    const provider = createOfflineProvider({
      brain: (request) => {
        if (detectPhase(request) === 'exploration') requests.push(request);
        return analyst(request);
      },
    });
    // the analyst with breakpoint caching, as Claude has it
    const entry = { ...lookupModel('offline:analyst').entry, promptCache: 'breakpoints' as const };
    harness = await createHarness(analyst, { warehousePath: demo.path, llm: { provider, entry } });
    const run = await harness.newRun({ maxSteps: 40 });
    runId = run.id;
    await runDiscoveryLocally(harness.deps, run.id, { concurrency: 2 });
  }, 120_000);

  afterAll(() => harness?.close());

  it('sends every prompt as the previous one plus the newest turn, except when turns leave the tail', () => {
    expect(requests).toHaveLength(40);
    let extended = 0;
    for (let index = 1; index < requests.length; index += 1) {
      const before = requests[index - 1]!;
      const after = requests[index]!;
      const same =
        after.system === before.system && before.messages.every((message, at) => after.messages[at]?.content === message.content);
      if (same) extended += 1;
    }
    // 39 transitions: the tail moves every fourth step, and the notes change in the first steps
    expect(extended).toBeGreaterThanOrEqual(25);
  });

  it('marks the system prompt, the end of the shortened history and the newest turn as cache breakpoints', () => {
    const late = requests[30]!;
    const breakpoints = late.cache?.breakpoints ?? [];
    expect(breakpoints).toContainEqual({ after: 'system' });
    expect(breakpoints).toContainEqual({ after: 'message', index: late.messages.length - 1 });
    expect(breakpoints.length).toBeLessThanOrEqual(4);
    expect(late.cache?.key).toBe(`assay:${runId}:exploration`);
  });

  it('keeps the budget footer each result turn had when it was newest', () => {
    const late = requests[30]!;
    const footers = late.messages.filter((message) => /\[Steps used: \d+ of 40\./.test(message.content));
    expect(footers.length).toBeGreaterThan(3);
  });

  it('shows the model its latest notes in the opening, and the analyst writes notes only when they change', async () => {
    const steps = await harness.deps.store.listSteps(runId);
    const noted = steps.filter((step) => step.notes !== undefined);
    expect(noted.length).toBeGreaterThan(0);
    expect(noted.length).toBeLessThanOrEqual(4);
    const latest = noted.at(-1)!;
    const late = requests[30]!;
    expect(late.messages[0]?.content).toContain(`Your notes (saved with step ${latest.step};`);
    expect(late.messages[0]?.content).toContain(latest.notes);
    // the thinking of a query carries no notes any more: it is what a model would write
    expect(steps.every((step) => !step.thinking.includes('[notes:'))).toBe(true);
  });

  it('with prompt caching off sends no cache hints, and exactly the prompt text it sends with caching on', async () => {
    const steps = await harness.deps.store.listSteps(runId);
    const run = (await harness.deps.store.getRun(runId))!;
    const sections = explorationSections('You explore a warehouse.', steps.slice(0, 25), run);
    const sent: LlmRequest[] = [];
    const provider = createOfflineProvider({
      brain: (request) => {
        sent.push(request);
        return '{"done": true, "summary": "ok"}';
      },
    });
    const catalogEntry = { ...lookupModel('offline:analyst').entry, promptCache: 'breakpoints' as const };
    for (const enabled of [true, false]) {
      await callLlm({ provider, catalogEntry, sections, phase: 'exploration', cache: { enabled, key: 'k' } });
    }
    const [on, off] = sent;
    expect(on?.cache?.breakpoints.length).toBeGreaterThan(1);
    expect(off?.cache).toBeUndefined();
    expect([off?.system, off?.messages]).toEqual([on?.system, on?.messages]);
  });
});
