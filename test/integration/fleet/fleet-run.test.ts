import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { createHarness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, QUERY_REVENUE, scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet, type Fleet } from './fleet-harness.js';
import { redisServerMissing, startRedisServer, type RedisServer } from './redis-server.js';

if (redisServerMissing) console.warn('skipping fleet tests: /usr/bin/redis-server is not installed');

const LOOKUP = JSON.stringify({ thinking: 'need columns', lookup_schema: ['main.sessions', 'main.orders'] });
const SCRIPT = { 1: LOOKUP, 2: QUERY_DEVICE, 3: QUERY_REVENUE };

let redis: RedisServer;
let fleet: Fleet | undefined;
beforeAll(async () => {
  if (!redisServerMissing) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

describe.skipIf(redisServerMissing)('a run through the BullMQ fleet (real redis-server, scripted model)', () => {
  it('completes with the same result shape as the in-process runner', async () => {
    const started = performance.now();
    const { brain } = scriptedBrain({ exploration: SCRIPT });
    fleet = await createFleet(redis.url, brain);
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
    expect(fleetResult?.run_type).toBe(localResult.run_type);
    expect(fleetResult?.run_type).toBe('full');
    expect((await fleet.harness.deps.store.listSteps(run.id)).map((step) => step.action)).toEqual(['lookup_schema', 'query', 'query', 'done']);
    expect(fleetResult?.total_steps).toBe(localResult.total_steps);
    const shape = (result: typeof localResult) => ({
      insights: result.insights.map((insight) => [insight.id, insight.source_steps, insight.validation?.status, insight.validation?.verified_count]),
      recommendations: result.recommendations.map((recommendation) => [recommendation.title, recommendation.related_insight_ids]),
      areas: result.analysis_log.map((area) => [area.area_id, area.status, area.insight_ids]),
      dropped: result.recommendation_log.dropped_insight_ids,
      errors: result.summary.errors,
    });
    expect(shape(fleetResult!)).toEqual(shape(localResult));
    expect(fleetResult?.insights.find((insight) => insight.id === 'conversion-1')?.validation).toMatchObject({ status: 'adjusted', verified_count: 160 });
  });
});
