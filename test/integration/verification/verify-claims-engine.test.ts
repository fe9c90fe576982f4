/**
 * Through the engine: insights carrying claims are confirmed, adjusted (and re-rendered) or rejected by
 * the recount, the validation records both sides, and an insight without a usable claim stays unverified.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, scriptedBrain } from '../discovery/scripted-brain.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const orderRate = (value: number, comparison: number, direction: 'higher' | 'lower') => ({
  metric: {
    kind: 'rate',
    table: 'main.sessions',
    condition: { column: 'ordered', op: '=', value: true },
    filters: [{ column: 'reached_checkout', op: '=', value: true }],
    label: 'order rate at checkout',
  },
  segment: { column: 'device', value: 'mobile' },
  comparison: { kind: 'rest' },
  value,
  comparison_value: comparison,
  direction,
});

describe('when the model states claims with its insights', () => {
  it('confirms the true one, adjusts and re-renders the one with the wrong size, rejects the wrong direction and leaves the malformed one unverified', async () => {
    const insights = [
      {
        name: 'Mobile checkouts rarely convert',
        severity: 'high',
        affected_count: 160,
        source_steps: [1],
        claim: orderRate(0.2, 1, 'lower'),
      },
      {
        name: 'Mobile checkouts order at half the desktop rate',
        severity: 'medium',
        affected_count: 160,
        source_steps: [1],
        claim: orderRate(0.5, 1, 'lower'),
      },
      {
        name: 'Mobile checkouts convert better',
        severity: 'low',
        affected_count: 160,
        source_steps: [1],
        claim: orderRate(0.9, 0.2, 'higher'),
      },
      { name: 'A claim of another shape', severity: 'low', affected_count: 120, source_steps: [1], claim: { metric: 'rate' } },
    ];
    const { brain } = scriptedBrain({
      exploration: { 1: QUERY_DEVICE },
      insightsFor: (prompt) => (prompt.includes('Funnel Conversion') ? JSON.stringify({ insights }) : '{"insights": []}'),
    });
    harness = await createHarness(brain);
    const run = await harness.newRun({ maxSteps: 3, areas: ['conversion'] });
    const result = await runDiscoveryLocally(harness.deps, run.id, { concurrency: 1 });
    const byName = new Map(result.insights.map((insight) => [insight.name, insight]));
    expect(byName.get('Mobile checkouts rarely convert')?.validation).toMatchObject({
      status: 'confirmed',
      claim_check: { value: 0.2, comparison_value: 1, direction_holds: true, segment_rows: 200 },
    });
    // no one sees the old numbers: the adjusted insight is re-rendered from its recount
    const adjusted = result.insights.find(
      (insight) => insight.validation?.original_text?.name === 'Mobile checkouts order at half the desktop rate',
    );
    expect(adjusted?.validation).toMatchObject({ status: 'adjusted', verified_count: 0.2, original_count: 0.5, text_rerendered: true });
    expect(adjusted?.name).toMatch(/20\.0% vs 100%/);
    expect(adjusted?.claim?.value).toBe(0.2);
    expect(byName.get('Mobile checkouts convert better')?.validation).toMatchObject({
      status: 'rejected',
      claim_check: { direction_holds: false },
    });
    const malformed = byName.get('A claim of another shape');
    expect(malformed?.claim).toBeUndefined();
    expect(malformed?.validation?.status).toBe('unverified');
    const area = (await harness.deps.store.getRun(run.id))?.areas.find((candidate) => candidate.area_id === 'conversion');
    expect(area?.dropped_outputs.join(' ')).toMatch(/dropped a malformed claim/);
    // where the time went: every phase, and warehouse time inside exploration and verification
    const durations = (await harness.deps.store.getRun(run.id))!.telemetry.phase_durations_ms;
    for (const phase of ['prepare', 'exploration', 'analysis', 'verification', 'recommendations', 'exploration_sql', 'verification_sql']) {
      expect(durations[phase], phase).toBeGreaterThan(0);
    }
    expect(result.telemetry.phase_durations_ms.verification).toBe(durations.verification);
    // a rejected insight never reaches the recommendations
    expect(result.recommendations.flatMap((recommendation) => recommendation.related_insight_ids)).not.toContain(
      byName.get('Mobile checkouts convert better')?.id,
    );
  });
});
