import { describe, expect, it } from 'vitest';
import { MAX_RATE_LIMIT_WAITS } from '../../../src/discovery/pipeline/index.js';
import { LlmRateLimitError } from '../../../src/errors/index.js';
import { lookupModel } from '../../../src/llm/catalog.js';
import { createAnthropicProvider } from '../../../src/llm/providers/anthropic.js';
import { startLlmSimulator, type SimulatorBrain } from '../../../src/llm/simulator/index.js';
import { failRunUpdates, failRunUpdatesEntering, type Harness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, QUERY_REVENUE, scriptedBrain } from '../discovery/scripted-brain.js';
import { RATE_LIMIT_WAITS_KEY } from '../../../src/fleet/bullmq/workers/job-errors.js';
import { createFleet } from './fleet-harness.js';
import { useRedisServer } from './redis-lifecycle.js';
import { redisServerMissing } from './redis-server.js';

const SCRIPT = { 1: QUERY_DEVICE, 2: QUERY_REVENUE };
const redis = useRedisServer();

/** A store whose writes fail whenever they would start analysing one of `areas`: the area job throws before it records anything. */
function breakAreas(areas: readonly string[]) {
  return (harness: Harness) =>
    failRunUpdates(harness, (_before, after) =>
      after.areas.some((area) => areas.includes(area.area_id) && area.status === 'running') ? new Error('disk full') : undefined,
    );
}

describe.skipIf(redisServerMissing)('when an area job fails after all its retries', () => {
  it('marks that area failed with the job error, still finishes the run as partial, and the coordinator completes', async () => {
    const fleet = redis.track(
      await createFleet(redis.url, scriptedBrain({ exploration: SCRIPT }).brain, { wrapStore: breakAreas(['revenue']) }),
    );
    await fleet.startWorkers();
    const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion', 'revenue'] });
    await fleet.launcher.launch(run.id);
    const finished = await fleet.waitForRunEnd(run.id);

    expect(finished.status).toBe('completed');
    expect(finished.run_type).toBe('partial');
    const revenue = finished.areas.find((area) => area.area_id === 'revenue');
    expect(revenue?.status).toBe('failed');
    expect(revenue?.error).toMatch(/analysis failed: disk full/);
    expect(finished.areas.find((area) => area.area_id === 'conversion')?.status).toBe('completed');
    const result = await fleet.harness.deps.store.getResult(run.id);
    expect(result?.insights.map((insight) => [insight.id, insight.validation?.status])).toEqual([['conversion-1', 'adjusted']]);
    expect(result?.summary.errors.join(' ')).toMatch(/area revenue failed/);
    const areaJob = await fleet.producer.queue('analyze-area').getJob(`${run.id}-area-revenue`);
    expect(await areaJob?.getState()).toBe('failed');
    expect(areaJob?.attemptsMade).toBe(3);
    await fleet.waitForJobEnd('coordinator', run.id);
    expect(await fleet.producer.queue('coordinator').getJobState(run.id)).toBe('completed');
  });

  describe('and every area fails', () => {
    it('finishes the run as failed with the error on the run', async () => {
      const fleet = redis.track(
        await createFleet(redis.url, scriptedBrain({ exploration: SCRIPT }).brain, { wrapStore: breakAreas(['conversion', 'revenue']) }),
      );
      await fleet.startWorkers();
      const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion', 'revenue'] });
      await fleet.launcher.launch(run.id);
      const finished = await fleet.waitForRunEnd(run.id);

      expect(finished.status).toBe('failed');
      expect(finished.run_type).toBe('failed');
      expect(finished.error).toMatch(/disk full/);
      expect(finished.recommendation_log.status).toBe('skipped');
    });
  });
});

describe.skipIf(redisServerMissing)('when a verify job fails after all its retries', () => {
  it('gives its insight an error validation naming the failure, and the area and run still complete', async () => {
    // every recount the verifier sends fails with an error no retry fixes in time: the verify job fails
    // after its retries, and only the analysis stage's transition can record the outcome
    const breakRecounts = (harness: Harness) => {
      const warehouse = harness.deps.warehouse;
      const query: typeof warehouse.query = (sql, options) =>
        sql.includes('AS total_rows') ? Promise.reject(new Error('disk full')) : warehouse.query(sql, options);
      harness.deps.warehouse = Object.assign(Object.create(warehouse) as typeof warehouse, { query });
    };
    const fleet = redis.track(await createFleet(redis.url, scriptedBrain({ exploration: SCRIPT }).brain, { wrapStore: breakRecounts }));
    await fleet.startWorkers();
    const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion'] });
    await fleet.launcher.launch(run.id);
    const finished = await fleet.waitForRunEnd(run.id);

    const insight = finished.areas[0]?.insights[0];
    expect(finished.status).toBe('completed');
    expect(finished.areas[0]?.status).toBe('completed');
    expect(insight?.validation).toMatchObject({
      status: 'error',
      verified_count: null,
      reasoning: 'verification failed: disk full (after 3 attempts)',
    });
    expect(insight?.affected_count).toBe(120);
    expect(await (await fleet.producer.queue('verify').getJob(`${run.id}-verify-conversion-1`))?.getState()).toBe('failed');
  });
});

describe.skipIf(redisServerMissing)('when a provider rate limit escapes a job', () => {
  it('pauses the queue for the retry-after, then redoes the job without spending an attempt', async () => {
    const RETRY_AFTER_MS = 400;
    let limitedAt = 0;
    const rateLimitRecommendationsOnce = (harness: Harness) =>
      failRunUpdatesEntering(harness, 'recommendations', () => {
        if (limitedAt !== 0) return undefined;
        limitedAt = Date.now();
        return new LlmRateLimitError('429 too many requests', { provider: 'anthropic', status: 429, retryAfterMs: RETRY_AFTER_MS });
      });
    const fleet = redis.track(
      await createFleet(redis.url, scriptedBrain({ exploration: SCRIPT }).brain, { wrapStore: rateLimitRecommendationsOnce }),
    );
    await fleet.startWorkers();
    const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion'] });
    await fleet.launcher.launch(run.id);
    const finished = await fleet.waitForRunEnd(run.id);

    expect(finished.status).toBe('completed');
    expect(finished.recommendations).toHaveLength(1);
    const job = await fleet.producer.queue('recommend').getJob(`${run.id}-recommend`);
    // started twice, but only the successful run counts as an attempt: the rate-limited one was moved back to wait
    expect([job?.attemptsStarted, job?.attemptsMade]).toEqual([2, 1]);
    expect(job!.processedOn! - limitedAt).toBeGreaterThanOrEqual(RETRY_AFTER_MS - 50);
  });
});

describe.skipIf(redisServerMissing)('when the provider rate limits a job every time', () => {
  it(`waits out ${MAX_RATE_LIMIT_WAITS} rate limits, counted in the job's data in Redis, then spends the attempts and records the failure`, async () => {
    let limits = 0;
    const rateLimitRecommendationsAlways = (harness: Harness) =>
      failRunUpdatesEntering(harness, 'recommendations', () => {
        limits++;
        return new LlmRateLimitError('429 too many requests', { provider: 'anthropic', status: 429, retryAfterMs: 1 });
      });
    const fleet = redis.track(
      await createFleet(redis.url, scriptedBrain({ exploration: SCRIPT }).brain, { wrapStore: rateLimitRecommendationsAlways }),
    );
    await fleet.startWorkers();
    const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion'] });
    await fleet.launcher.launch(run.id);
    const finished = await fleet.waitForRunEnd(run.id);

    const job = await fleet.producer.queue('recommend').getJob(`${run.id}-recommend`);
    const attempts = job?.opts.attempts ?? 0;
    // every delivery reads the count from Redis, as a worker taking the job over after a SIGKILL does
    expect(job?.data).toMatchObject({ runId: run.id, [RATE_LIMIT_WAITS_KEY]: MAX_RATE_LIMIT_WAITS });
    expect([job?.attemptsMade, limits]).toEqual([attempts, MAX_RATE_LIMIT_WAITS + attempts]);
    expect(job?.failedReason).toMatch(new RegExp(`429 too many requests.* \\(after ${attempts} attempts\\)$`));
    expect(finished.status).toBe('completed');
    expect(finished.recommendation_log).toMatchObject({ status: 'failed', error: `recommendations failed: ${job?.failedReason}` });
  });
});

describe.skipIf(redisServerMissing)('when the provider itself answers 429 (the LLM simulator over HTTP)', () => {
  it('pauses the queue for its retry-after and the run completes, without spending job attempts on the limit', async () => {
    const { brain } = scriptedBrain({ exploration: SCRIPT });
    const analyst: SimulatorBrain = (call) =>
      brain({ ...(call.system ? { system: call.system } : {}), messages: call.messages, maxOutputTokens: call.maxOutputTokens });
    const simulator = await startLlmSimulator({ brain: analyst, rateLimitEvery: 4, retryAfterSeconds: 1 });
    try {
      const { entry } = lookupModel('anthropic:claude-haiku-5-5');
      const provider = createAnthropicProvider({ model: 'claude-haiku-5-5', apiKey: 'sim-key', baseUrl: simulator.url });
      const fleet = redis.track(await createFleet(redis.url, brain, { harness: { llm: { provider, entry } } }));
      await fleet.startWorkers();
      const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion'] });
      await fleet.launcher.launch(run.id);
      const finished = await fleet.waitForRunEnd(run.id, 60_000);

      expect(finished.status, finished.error).toBe('completed');
      expect(simulator.stats.rateLimited).toBeGreaterThan(0);
      const jobs = (
        await Promise.all(
          ['explore', 'analyze-area', 'verify', 'recommend'].map((name) => fleet.producer.queue(name as never).getJobs(['completed'])),
        )
      ).flat();
      // a rate-limited job is moved back to wait: started more often than it spent attempts
      const restarted = jobs.filter((job) => (job.attemptsStarted ?? 0) > job.attemptsMade);
      expect(restarted.length).toBeGreaterThan(0);
      expect(jobs.every((job) => job.attemptsMade <= 1)).toBe(true);
    } finally {
      await simulator.close();
    }
  }, 90_000);
});
