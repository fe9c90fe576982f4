import { afterEach, describe, expect, it } from 'vitest';
import { exploreStep } from '../../../src/discovery/phases/explore-step.js';
import { prepareRun } from '../../../src/discovery/phases/prepare.js';
import { LlmError } from '../../../src/errors/index.js';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, QUERY_REVENUE, scriptedBrain } from './scripted-brain.js';

const LOOKUP = JSON.stringify({ thinking: 'need columns', lookup_schema: ['main.sessions', 'main.orders'] });
const BAD_COLUMN = JSON.stringify({
  thinking: 'typo',
  query_purpose: 'conversion: sessions by device',
  query: 'SELECT devise, COUNT(*) AS sessions FROM main.sessions GROUP BY devise',
});

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a discovery run end to end (scripted model, real DuckDB, embedded ports)', () => {
  it('completes with steps, verified insights, linked recommendations and bounded prompts', async () => {
    const { brain } = scriptedBrain({ exploration: { 1: LOOKUP, 2: QUERY_DEVICE, 3: BAD_COLUMN, 4: QUERY_REVENUE } });
    harness = await createHarness(brain);
    const run = await harness.newRun({ maxSteps: 6, areas: ['conversion', 'revenue'] });
    const result = await runDiscoveryLocally(harness.deps, run.id, { concurrency: 2 });

    const steps = await harness.deps.store.listSteps(run.id);
    expect(steps.map((step) => step.action)).toEqual(['lookup_schema', 'query', 'query', 'query', 'done']);
    const fixed = steps[2]!;
    expect(fixed.fixed).toBe(true);
    expect(fixed.query).toContain('devise');
    expect(fixed.executed_query).toContain('device');

    const insight = result.insights.find((candidate) => candidate.id === 'conversion-1');
    expect(insight?.source_steps).toEqual([2]);
    // 600 sessions: mobile = i % 3 != 0 (400), checkout = even (200 mobile), ordered only when i % 5 = 0 among mobile
    // → 160 of 200 abandon (80%), every desktop checkout orders (0%); the claim said 60%: adjusted, re-rendered
    expect(insight?.validation).toMatchObject({ status: 'adjusted', verified_count: 0.8, original_count: 0.6, text_rerendered: true });
    expect(insight?.validation?.recount).toMatchObject({ value: 0.8, comparison_value: 0, n: 200 });
    expect(insight?.affected_count).toBe(200);
    expect(insight?.name).toMatch(/80\.0% vs 0%/);

    expect(result.recommendations).toHaveLength(1);
    expect(result.recommendations[0]?.related_insight_ids).toEqual(['conversion-1']);
    expect(result.recommendation_log.dropped_insight_ids).toEqual(['ghost-9']);
    expect(result.recommendations[0]?.segment_check).toMatchObject({ status: 'consistent', max_verified_count: 200 });

    // revenue got steps but the script found nothing there: completed with no insights
    expect(result.analysis_log.map((area) => [area.area_id, area.status])).toEqual([
      ['conversion', 'completed'],
      ['revenue', 'completed'],
    ]);
    expect(result.run_type).toBe('full');
    const stored = await harness.deps.store.getRun(run.id);
    expect(stored?.status).toBe('completed');
    expect(stored?.telemetry.schema_lookup_calls).toBe(1);
    expect(stored?.telemetry.analysis_step_index_upserts).toBe(3);
    expect(stored?.telemetry.analysis_step_search_calls).toBe(2);
    for (const call of stored?.telemetry.llm_calls ?? []) {
      expect(call.prompt_tokens_estimated).toBeLessThanOrEqual(call.context_window - call.max_output_tokens);
    }
    expect(stored?.telemetry.usage_by_phase.exploration).toBeDefined();
    expect((await harness.deps.vectorIndex.listCollections()).map((c) => c.name)).not.toContain(`assay_run_${run.id}`);
  });

  describe('when the model fails mid-exploration', () => {
    it('keeps every earlier step, records the error and completes as partial', async () => {
      const failing = () => {
        throw new LlmError('invalid x-api-key', { kind: 'auth', isRetryable: false, provider: 'offline' });
      };
      const { brain } = scriptedBrain({ exploration: { 1: LOOKUP, 2: QUERY_DEVICE, 3: failing } });
      harness = await createHarness(brain);
      const run = await harness.newRun({ maxSteps: 8, areas: ['conversion'] });
      const result = await runDiscoveryLocally(harness.deps, run.id, { concurrency: 2 });
      const steps = await harness.deps.store.listSteps(run.id);
      expect(steps.map((step) => step.action)).toEqual(['lookup_schema', 'query', 'error']);
      expect(steps[2]?.error).toMatch(/model call failed/);
      expect(result.run_type).toBe('partial');
      expect(result.insights.length).toBeGreaterThan(0);
      expect(result.summary.errors.join(' ')).toMatch(/exploration stopped at step 3/);
      expect((await harness.deps.store.getRun(run.id))?.status).toBe('completed');
    });
  });

  describe('when the model says done before the minimum steps', () => {
    it('records complete_rejected, nudges, and goes on exploring', async () => {
      const { brain } = scriptedBrain({ exploration: { 1: QUERY_DEVICE, 2: '{"done": true, "summary": "early"}', 3: QUERY_REVENUE } });
      harness = await createHarness(brain);
      const run = await harness.newRun({ maxSteps: 6, minSteps: 3, areas: ['conversion'] });
      await prepareRun(harness.deps, run.id);
      const outcomes = [];
      for (let step = 1; step <= 4; step++) outcomes.push(await exploreStep(harness.deps, run.id, step));
      expect(outcomes.map((outcome) => outcome.step.action)).toEqual(['query', 'complete_rejected', 'query', 'done']);
      expect(outcomes[1]?.step.result_text).toMatch(/at least 3/);
      expect(outcomes[3]?.finished).toBe(true);
    });
  });

  describe('when a reply cannot be parsed', () => {
    it('nudges with the reformat message and uses the corrected reply', async () => {
      let attempts = 0;
      const { brain } = scriptedBrain({
        exploration: {
          1: (() => {
            attempts++;
            if (attempts === 1) return 'Let me think about this.' as never;
            return QUERY_DEVICE as never;
          }) as () => never,
        },
      });
      harness = await createHarness(brain);
      const run = await harness.newRun({ maxSteps: 2, areas: ['conversion'] });
      await prepareRun(harness.deps, run.id);
      const outcome = await exploreStep(harness.deps, run.id, 1);
      expect(attempts).toBe(2);
      expect(outcome.step.action).toBe('query');
    });
  });

  describe('when a step job is redelivered', () => {
    it('returns the stored step without calling the model again', async () => {
      const script = scriptedBrain({ exploration: { 1: QUERY_DEVICE } });
      harness = await createHarness(script.brain);
      const run = await harness.newRun({ maxSteps: 3, areas: ['conversion'] });
      await prepareRun(harness.deps, run.id);
      const first = await exploreStep(harness.deps, run.id, 1);
      const callsAfterFirst = script.calls.exploration;
      const again = await exploreStep(harness.deps, run.id, 1);
      expect(again.step).toEqual(first.step);
      expect(script.calls.exploration).toBe(callsAfterFirst);
    });

    it('applies the stored step to the run once when the worker died between the two writes', async () => {
      const script = scriptedBrain({ exploration: { 1: QUERY_DEVICE } });
      harness = await createHarness(script.brain);
      const run = await harness.newRun({ maxSteps: 1, areas: ['conversion'] });
      await prepareRun(harness.deps, run.id);
      const store = harness.deps.store;
      let killed = false;
      // the step is written, then the process dies before the run update lands
      const dying = {
        ...harness.deps,
        store: Object.assign(Object.create(store) as typeof store, {
          updateRun: async (...args: Parameters<typeof store.updateRun>) => {
            if (!killed && (await store.listSteps(run.id)).length > 0) {
              killed = true;
              throw new Error('SIGKILL');
            }
            return store.updateRun(...args);
          },
        }),
      };
      await expect(exploreStep(dying, run.id, 1)).rejects.toThrow('SIGKILL');
      const before = await store.getRun(run.id);
      expect(before?.steps_completed).toBe(0);
      expect(before?.counters.total_queries).toBe(0);

      const redelivered = await exploreStep(harness.deps, run.id, 1);
      expect(redelivered.finished).toBe(true);
      const calls = script.calls.exploration;
      const after = await store.getRun(run.id);
      expect(after?.steps_completed).toBe(1);
      expect(after?.exploration_done_reason).toBe('max_steps');
      expect(after?.counters).toMatchObject({ total_queries: 1, successful_queries: 1, failed_queries: 0 });
      expect(after?.telemetry.analysis_step_index_upserts).toBe(1);

      // a second redelivery changes nothing and asks the model nothing
      await exploreStep(harness.deps, run.id, 1);
      const again = await store.getRun(run.id);
      expect(again?.counters).toEqual(after?.counters);
      expect(again?.telemetry.analysis_step_index_upserts).toBe(1);
      expect(script.calls.exploration).toBe(calls);
      expect(await store.listSteps(run.id)).toHaveLength(1);
    });
  });

  describe('when every area fails', () => {
    it('is a failed run, and a failed run is not completed', async () => {
      const { brain } = scriptedBrain({ exploration: { 1: QUERY_DEVICE }, insightsFor: () => 'no json here at all' });
      harness = await createHarness(brain);
      const run = await harness.newRun({ maxSteps: 3, areas: ['conversion'] });
      const result = await runDiscoveryLocally(harness.deps, run.id, { concurrency: 1 });
      expect(result.run_type).toBe('failed');
      // the offline model takes tools: the reply becomes an empty report_insights call, then one repair turn
      expect(result.analysis_log[0]?.error).toMatch(/unusable after 2 attempts: the answer has no "insights" array/);
      expect((await harness.deps.store.getRun(run.id))?.status).toBe('failed');
    });
  });
});
