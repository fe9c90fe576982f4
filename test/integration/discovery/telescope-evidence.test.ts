import { afterEach, describe, expect, it } from 'vitest';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { phaseOf } from './scripted-brain.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function runWith(evidence: 'digests' | 'telescope', brain = createOfflineAnalyst(), maxExpansions = 2) {
  harness = await createHarness(brain);
  harness.deps.config = { ...harness.deps.config, compaction: { ...harness.deps.config.compaction, evidence, maxExpansions } };
  const run = await harness.newRun({ maxSteps: 12 });
  const result = await runDiscoveryLocally(harness.deps, run.id, { concurrency: 2 });
  const stored = await harness.deps.store.getRun(run.id);
  await harness.close();
  harness = undefined;
  return { result, run: stored };
}

describe('when analysis reads telescoped evidence (compaction.evidence: telescope)', () => {
  it('finds what the digests find, drilling down where the first view held steps back, and records the tree in the telemetry', async () => {
    const digests = await runWith('digests');
    const telescoped = await runWith('telescope');
    expect(telescoped.result.insights.map((insight) => insight.name).sort()).toEqual(
      digests.result.insights.map((insight) => insight.name).sort(),
    );
    const telemetry = telescoped.run?.telemetry.telescope;
    expect(telemetry?.evidence).toBe('telescope');
    const areas = Object.values(telemetry?.areas ?? {});
    expect(areas.length).toBeGreaterThan(0);
    expect(areas.every((area) => area.nodes.l1 > 0 && area.nodes.ln === 1)).toBe(true);
    expect(areas.some((area) => area.drill_down_calls > 0)).toBe(true);
    expect(telemetry?.strategies.result_digest?.cache_misses).toBeGreaterThan(0);
    expect(digests.run?.telemetry.telescope).toBeUndefined();
    const analysisCalls = telescoped.run?.telemetry.llm_calls.filter((call) => call.phase === 'analysis') ?? [];
    expect(analysisCalls.every((call) => call.tier === 'strong')).toBe(true);
    expect(telescoped.run?.telemetry.usage_by_tier.strong?.calls).toBeGreaterThanOrEqual(analysisCalls.length);
  });

  it('stops honouring expand requests after the allowed number and records the area as failed, never looping', async () => {
    const analysisPrompts: string[] = [];
    const analyst = createOfflineAnalyst();
    const greedy = (request: LlmRequest): string => {
      if (phaseOf(request) !== 'analysis') return analyst(request) as string;
      analysisPrompts.push(request.messages.map((message) => message.content).join('\n'));
      const id = /\[(L1-[0-9a-f]{12})\]/.exec(analysisPrompts[0] ?? '')?.[1] ?? 'L1-000000000000';
      return JSON.stringify({ expand: [id] });
    };
    const { result, run } = await runWith('telescope', greedy, 1);
    const analysed = run?.areas.filter((area) => area.status !== 'skipped') ?? [];
    expect(analysed.length).toBeGreaterThan(0);
    expect(analysed.every((area) => area.status === 'failed' && /unusable/.test(area.error ?? ''))).toBe(true);
    // per area: the first ask, answered with an honoured expansion; then the ask after it, whose expand request is
    // refused (the offline model takes tools, and the expand tool is no longer offered), and its one repair turn
    const perArea = (run?.telemetry.llm_calls ?? []).filter((call) => call.phase === 'analysis' && call.area === analysed[0]?.area_id);
    expect(perArea.map((call) => [call.protocol, call.attempt])).toEqual([
      ['tools', 1],
      ['tools', 1],
      ['tools', 2],
    ]);
    expect(analysisPrompts.some((prompt) => prompt.includes('Expanded nodes:'))).toBe(true);
    expect(result.run_type).toBeDefined();
  });
});

describe('when recommendations read telescoped evidence', () => {
  it('see one audit_findings node per area citing its steps, may expand a cited step, and record the drill-down', async () => {
    const recommendationPrompts: string[] = [];
    const analyst = createOfflineAnalyst();
    const drilling = (request: LlmRequest): string => {
      if (phaseOf(request) !== 'recommendations') return analyst(request) as string;
      const prompt = request.messages.map((message) => message.content).join('\n');
      recommendationPrompts.push(prompt);
      // first ask: expand the first step a finding cites; then answer as the analyst would
      const cited = /cites \[(L1-[0-9a-f]{12})\]/.exec(prompt)?.[1];
      if (recommendationPrompts.length === 1 && cited) return JSON.stringify({ expand: [cited] });
      return analyst(request) as string;
    };
    const { result, run } = await runWith('telescope', drilling);
    expect(result.recommendations.length).toBeGreaterThan(0);
    const first = recommendationPrompts[0] ?? '';
    expect(first).toContain('Verified findings');
    expect(first).toMatch(/findings of area \w+/);
    expect(first).toMatch(/confirmed|adjusted|skipped/);
    expect(recommendationPrompts[1]).toContain('Expanded nodes');
    const figures = run?.telemetry.telescope?.areas.recommendations;
    expect(figures?.drill_down_calls).toBe(1);
    expect(figures?.nodes.l2).toBeGreaterThan(0);
    expect(run?.telemetry.telescope?.strategies.audit_findings?.cache_misses).toBeGreaterThan(0);
  });
});
