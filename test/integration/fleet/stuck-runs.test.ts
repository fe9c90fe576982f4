/**
 * No run is ever stuck: the maintenance queue's reconciler, on a real redis-server, re-enqueues a run
 * whose coordinator failed (past its stall limit) or vanished (Redis flushed), and finishes one whose
 * recoveries are used up as failed with the reason — freeing its project either way.
 */
import { UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { maintenanceQueue } from '../../../src/fleet/bullmq/queues/index.js';
import { MAX_RUN_RECOVERIES } from '../../../src/discovery/pipeline/index.js';
import { workerConnectionOptions } from '../../../src/fleet/bullmq/connection.js';
import { QUERY_DEVICE, QUERY_REVENUE, scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet, type Fleet } from './fleet-harness.js';
import { useRedisServer } from './redis-lifecycle.js';
import { redisServerMissing } from './redis-server.js';

const redis = useRedisServer();
const SCRIPT = { 1: QUERY_DEVICE, 2: QUERY_REVENUE };

async function newFleet(): Promise<Fleet> {
  const fleet = redis.track(await createFleet(redis.url, scriptedBrain({ exploration: SCRIPT }).brain));
  fleet.harness.deps.config = { ...fleet.harness.deps.config, fleet: { ...fleet.harness.deps.config.fleet, stuckRunGraceMs: 0 } };
  return fleet;
}

/** Takes the run's coordinator job the way a worker would, and fails it as BullMQ does past the stall limit. */
async function failCoordinatorAsStalled(fleet: Fleet, runId: string): Promise<void> {
  const taker = new Worker('coordinator', null, { connection: workerConnectionOptions(redis.url), prefix: fleet.prefix, autorun: false });
  const token = 'test-token';
  const job = await taker.getNextJob(token);
  expect(job?.id).toBe(runId);
  // past the stall limit BullMQ fails the job for good, whatever attempts it had left
  await job?.moveToFailed(new UnrecoverableError('job stalled more than allowable limit'), token, false);
  await taker.close();
}

async function reconcileOnce(fleet: Fleet): Promise<void> {
  const job = await fleet.producer.queue(maintenanceQueue.name).add(maintenanceQueue.jobName, { task: 'reconcile-runs' });
  for (let waited = 0; waited < 10_000; waited += 25) {
    if (['completed', 'failed'].includes(await job.getState())) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the reconcile job did not finish');
}

describe.skipIf(redisServerMissing)('when a run has lost its coordinator', () => {
  it('re-enqueues a coordinator that failed past its stall limit, and the run completes', async () => {
    const fleet = await newFleet();
    const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion'] });
    await fleet.launcher.launch(run.id);
    await failCoordinatorAsStalled(fleet, run.id);
    expect(await fleet.producer.queue('coordinator').getJobState(run.id)).toBe('failed');
    await fleet.startWorkers();
    await reconcileOnce(fleet);
    const finished = await fleet.waitForRunEnd(run.id);
    expect(finished.status).toBe('completed');
    expect(finished.recoveries).toBe(1);
    expect((await fleet.harness.deps.store.listSteps(run.id)).map((step) => step.step)).toEqual([1, 2, 3]);
  });

  it('re-enqueues a run whose jobs Redis lost mid-run, keeping the steps already stored', async () => {
    const fleet = await newFleet();
    const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion'] });
    await fleet.startWorkers();
    await fleet.launcher.launch(run.id);
    for (let waited = 0; (await fleet.harness.deps.store.listSteps(run.id)).length === 0; waited += 10) {
      if (waited > 10_000) throw new Error('no step was stored');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Redis restarts without persistence in the middle of exploration: every job of the run is gone
    const client = new Redis(redis.url);
    await client.flushall();
    await client.quit();
    expect(await fleet.producer.queue('coordinator').getJob(run.id)).toBeUndefined();
    await reconcileOnce(fleet);
    const finished = await fleet.waitForRunEnd(run.id);
    expect(finished.status).toBe('completed');
    expect(finished.recoveries).toBe(1);
    // every step once, in order, whatever was redone
    const steps = (await fleet.harness.deps.store.listSteps(run.id)).map((step) => step.step);
    expect(steps).toEqual(steps.map((_, index) => index + 1));
  });

  it('finishes a run whose recoveries are used up as failed, with the reason, and frees the project', async () => {
    const fleet = await newFleet();
    const run = await fleet.harness.newRun({ maxSteps: 4, areas: ['conversion'] });
    await fleet.harness.deps.store.updateRun(run.id, (current) => ({ ...current, recoveries: MAX_RUN_RECOVERIES }));
    await fleet.launcher.launch(run.id);
    await failCoordinatorAsStalled(fleet, run.id);
    await fleet.startWorkers({ queues: ['maintenance'] });
    await reconcileOnce(fleet);
    const finished = await fleet.waitForRunEnd(run.id);
    expect(finished.status).toBe('failed');
    expect(finished.error).toMatch(
      /could not be recovered after 3 attempts: its coordinator failed: job stalled more than allowable limit/,
    );
  });
});
