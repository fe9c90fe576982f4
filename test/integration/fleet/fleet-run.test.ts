import { describe, expect, it } from 'vitest';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { createHarness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, QUERY_REVENUE, scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet } from './fleet-harness.js';
import { useRedisServer } from './redis-lifecycle.js';
import { redisServerMissing } from './redis-server.js';

const LOOKUP = JSON.stringify({ thinking: 'need columns', lookup_schema: ['main.sessions', 'main.orders'] });
const SCRIPT = { 1: LOOKUP, 2: QUERY_DEVICE, 3: QUERY_REVENUE };
const redis = useRedisServer();

describe.skipIf(redisServerMissing)('a run through the BullMQ fleet (real redis-server, scripted model)', () => {
  it('completes with the same result shape as the in-process runner', async () => {
    const started = performance.now();
    const fleet = redis.track(await createFleet(redis.url, scriptedBrain({ exploration: SCRIPT }).brain));
    await fleet.startWorkers();
    const run = await fleet.harness.newRun({ maxSteps: 6, areas: ['conversion', 'revenue'] });
    await fleet.launcher.launch(run.id);
    const finished = await fleet.waitForRunEnd(run.id);
    const fleetResult = await fleet.harness.deps.store.getResult(run.id);
    console.info(`fleet run: ${Math.round(performance.now() - started)} ms`);

    const local = await createHarness(scriptedBrain({ exploration: SCRIPT }).brain);
    const localRun = await local.newRun({ maxSteps: 6, areas: ['conversion', 'revenue'] });
    const localResult = await runDiscoveryLocally(local.deps, localRun.id, { concurrency: 2 });
    await local.close();

    expect(finished.status).toBe('completed');
    expect(fleetResult?.run_type).toBe('full');
    expect(fleetResult?.run_type).toBe(localResult.run_type);
    expect((await fleet.harness.deps.store.listSteps(run.id)).map((step) => step.action)).toEqual([
      'lookup_schema',
      'query',
      'query',
      'done',
    ]);
    expect(fleetResult?.total_steps).toBe(localResult.total_steps);
    const shape = (result: typeof localResult) => ({
      insights: result.insights.map((insight) => [
        insight.id,
        insight.source_steps,
        insight.validation?.status,
        insight.validation?.verified_count,
      ]),
      recommendations: result.recommendations.map((recommendation) => [recommendation.title, recommendation.related_insight_ids]),
      areas: result.analysis_log.map((area) => [area.area_id, area.status, area.insight_ids, area.selected_steps.map((step) => step.step)]),
      dropped: result.recommendation_log.dropped_insight_ids,
      errors: result.summary.errors,
    });
    expect(shape(fleetResult!)).toEqual(shape(localResult));
    expect(fleetResult?.insights.find((insight) => insight.id === 'conversion-1')?.validation).toMatchObject({
      status: 'adjusted',
      verified_count: 0.8,
    });
    await fleet.waitForJobEnd('coordinator', run.id);
    expect(await fleet.producer.queue('coordinator').getJobState(run.id)).toBe('completed');
  });

  describe('when the run is launched twice and a step job is enqueued before the coordinator asks for it', () => {
    it('runs every step, area, verification and recommendation call exactly once', async () => {
      const { brain, calls } = scriptedBrain({ exploration: SCRIPT });
      const fleet = redis.track(await createFleet(redis.url, brain));
      const run = await fleet.harness.newRun({ maxSteps: 6, areas: ['conversion', 'revenue'] });
      await Promise.all([fleet.launcher.launch(run.id), fleet.launcher.launch(run.id)]);
      // a stray duplicate of step 1 (a retried API call, a replayed message): same deterministic id
      await fleet.producer.queue('explore').add('step', { runId: run.id, step: 1 }, { jobId: `${run.id}-explore-1` });
      await fleet.startWorkers();
      await fleet.waitForRunEnd(run.id);
      await fleet.waitForJobEnd('coordinator', run.id);
      const before = await fleet.harness.deps.store.getRun(run.id);

      const coordinator = fleet.producer.queue('coordinator');
      const finished = await coordinator.getJob(run.id);
      const [mark] = await fleet.connection.xrevrange(coordinator.toKey('events'), '+', '-', 'COUNT', 1);
      await fleet.launcher.launch(run.id);
      // BullMQ refused the add (same job id): the events written since say so and none adds or wakes the
      // job, and the job is still the finished one, so nothing was enqueued that could run later — no
      // need to wait and see. (Idle workers append 'drained' to the same stream at any moment, so the
      // events are filtered to this job's rather than read as "the last one".)
      const since = await fleet.connection.xrange(coordinator.toKey('events'), `(${mark?.[0] ?? '0'}`, '+');
      const ofThisJob = since.map(([, fields]) => fields).filter((fields) => fields.includes(run.id));
      expect(ofThisJob).toEqual([['event', 'duplicated', 'jobId', run.id]]);
      expect((await coordinator.getJob(run.id))?.finishedOn).toBe(finished?.finishedOn);

      expect(calls).toMatchObject({ exploration: 4, analysis: 2, verification: 0, recommendations: 1 });
      const steps = await fleet.harness.deps.store.listSteps(run.id);
      expect(steps.map((step) => step.step)).toEqual([1, 2, 3, 4]);
      const result = await fleet.harness.deps.store.getResult(run.id);
      expect(result?.insights.map((insight) => insight.id)).toEqual(['conversion-1']);
      expect(await fleet.producer.queue('coordinator').getJobCounts('completed', 'waiting', 'active')).toEqual({
        completed: 1,
        waiting: 0,
        active: 0,
      });
      expect(await fleet.producer.queue('explore').getJobCounts('completed')).toEqual({ completed: 4 });
      expect((await fleet.harness.deps.store.getRun(run.id))?.updated_at).toBe(before?.updated_at);
    });
  });
});
