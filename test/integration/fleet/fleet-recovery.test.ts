import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../../src/errors/index.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import { QUERY_DEVICE, QUERY_REVENUE, nextStep, phaseOf, scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet } from './fleet-harness.js';
import { useRedisServer } from './redis-lifecycle.js';
import { redisServerMissing } from './redis-server.js';

const LOOKUP = JSON.stringify({ thinking: 'need columns', lookup_schema: ['main.sessions', 'main.orders'] });
const SCRIPT = { 1: LOOKUP, 2: QUERY_DEVICE, 3: QUERY_REVENUE };
/** Short locks so a dead worker's job is recovered in about a second instead of a minute. */
const FAST_STALL = { lockDurationMs: 1_000, stalledIntervalMs: 500 };
const redis = useRedisServer();

/** The scripted model, except that the first exploration call for `step` runs `onStep(request)` instead of answering. */
function interceptStep(step: number, onStep: (request: LlmRequest) => Promise<string>) {
  const scripted = scriptedBrain({ exploration: SCRIPT });
  let intercepted = false;
  let entered: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const brain = async (request: LlmRequest): Promise<string> => {
    if (!intercepted && phaseOf(request) === 'exploration' && nextStep(request) === step) {
      intercepted = true;
      entered();
      return onStep(request);
    }
    return scripted.brain(request);
  };
  return { brain, reached, calls: scripted.calls };
}

describe.skipIf(redisServerMissing)('when a worker dies in the middle of an exploration step', () => {
  it('a second worker recovers the job through the stalled check and the run completes', async () => {
    // the first worker's model call never returns: its process is as good as dead
    const { brain, reached } = interceptStep(2, () => new Promise<string>(() => undefined));
    const fleet = redis.track(await createFleet(redis.url, brain));
    const doomed = await fleet.startWorkers({ workerOverrides: FAST_STALL, workerName: 'doomed' });
    const run = await fleet.harness.newRun({ maxSteps: 6, areas: ['conversion', 'revenue'] });
    await fleet.launcher.launch(run.id);
    await reached;

    const crashedAt = performance.now();
    await Promise.all([...doomed.workers.values()].map((worker) => worker.close(true)));
    await fleet.startWorkers({ workerOverrides: FAST_STALL, workerName: 'rescuer' });
    const finished = await fleet.waitForRunEnd(run.id);
    const recoveryMs = Math.round(performance.now() - crashedAt);
    console.info(`crash recovery: run finished ${recoveryMs} ms after the worker was killed`);

    expect(finished.status).toBe('completed');
    expect(finished.run_type).toBe('full');
    expect((await fleet.harness.deps.store.listSteps(run.id)).map((step) => [step.step, step.action])).toEqual([
      [1, 'lookup_schema'],
      [2, 'query'],
      [3, 'query'],
      [4, 'done'],
    ]);
    const recovered = await fleet.producer.queue('explore').getJob(`${run.id}-explore-2`);
    expect(recovered?.stalledCounter).toBe(1);
    expect(recovered?.processedBy).toBe('rescuer');
  });
});

describe.skipIf(redisServerMissing)('when a run is cancelled while a step is waiting on the model', () => {
  it('aborts the in-flight call, finalizes the run as cancelled and starts nothing after it', async () => {
    const { brain, reached, calls } = interceptStep(
      3,
      (request) =>
        new Promise<string>((_resolve, reject) => {
          request.signal?.addEventListener('abort', () => reject(new CancelledError('model call aborted')), { once: true });
        }),
    );
    const fleet = redis.track(await createFleet(redis.url, brain));
    await fleet.startWorkers();
    const run = await fleet.harness.newRun({ maxSteps: 6, areas: ['conversion', 'revenue'] });
    await fleet.launcher.launch(run.id);
    await reached;

    const cancelledAt = performance.now();
    await fleet.launcher.cancel(run.id);
    const finished = await fleet.waitForRunEnd(run.id, 5_000);
    console.info(`cancellation: run finalized ${Math.round(performance.now() - cancelledAt)} ms after cancel`);

    expect(finished.status).toBe('cancelled');
    expect(finished.run_type).toBe('cancelled');
    expect((await fleet.harness.deps.store.listSteps(run.id)).map((step) => step.step)).toEqual([1, 2]);
    expect((await fleet.harness.deps.store.getResult(run.id))?.run_type).toBe('cancelled');
    expect(calls.analysis).toBe(0);
    const step3 = await fleet.producer.queue('explore').getJob(`${run.id}-explore-3`);
    expect(step3?.returnvalue).toMatchObject({ runId: run.id, cancelled: true });
    expect(await fleet.producer.queue('analyze-area').getJobCounts('completed', 'waiting', 'active', 'failed')).toEqual({
      completed: 0,
      waiting: 0,
      active: 0,
      failed: 0,
    });
  });
});

describe.skipIf(redisServerMissing)('when a worker is shut down (SIGTERM) while a step is waiting on the model', () => {
  it('aborts the call, hands the job back to wait without spending an attempt, and another worker finishes the run', async () => {
    const { brain, reached } = interceptStep(
      2,
      (request) =>
        new Promise<string>((_resolve, reject) => {
          request.signal?.addEventListener('abort', () => reject(new CancelledError('model call aborted')), { once: true });
        }),
    );
    const fleet = redis.track(await createFleet(redis.url, brain));
    const leaving = await fleet.startWorkers({ workerName: 'leaving' });
    const run = await fleet.harness.newRun({ maxSteps: 6, areas: ['conversion'] });
    await fleet.launcher.launch(run.id);
    await reached;

    const shutdownStarted = performance.now();
    const { timedOut } = await leaving.shutdown(5_000);
    console.info(`graceful shutdown with one job in flight: ${Math.round(performance.now() - shutdownStarted)} ms`);
    expect(timedOut).toBe(false);
    const handedBack = await fleet.producer.queue('explore').getJob(`${run.id}-explore-2`);
    expect(await handedBack?.getState()).toBe('waiting');
    expect(handedBack?.attemptsMade).toBe(0);

    await fleet.startWorkers({ workerName: 'staying' });
    const finished = await fleet.waitForRunEnd(run.id);
    expect(finished.status).toBe('completed');
    expect((await fleet.harness.deps.store.listSteps(run.id)).map((step) => step.action)).toEqual([
      'lookup_schema',
      'query',
      'query',
      'done',
    ]);
    expect((await fleet.producer.queue('explore').getJob(`${run.id}-explore-2`))?.processedBy).toBe('staying');
  });
});

describe.skipIf(redisServerMissing)('when a run is cancelled before any worker picks it up', () => {
  it('removes its waiting jobs and is finalized as cancelled without a single model call', async () => {
    const { brain, calls } = scriptedBrain({ exploration: SCRIPT });
    const fleet = redis.track(await createFleet(redis.url, brain));
    const run = await fleet.harness.newRun({ maxSteps: 6, areas: ['conversion'] });
    // another run's job in the same queue (never processed here: removed before workers start)
    const other = { id: 'run-of-another-project' };
    await fleet.launcher.launch(run.id);
    await fleet.producer
      .queue('verify')
      .add('insight', { runId: run.id, insightId: 'conversion-1' }, { jobId: `${run.id}-verify-conversion-1` });
    await fleet.producer
      .queue('verify')
      .add('insight', { runId: other.id, insightId: 'conversion-1' }, { jobId: `${other.id}-verify-conversion-1` });
    await fleet.launcher.cancel(run.id);
    expect(await fleet.producer.queue('verify').getJob(`${run.id}-verify-conversion-1`)).toBeUndefined();
    expect(await fleet.producer.queue('verify').getJobState(`${other.id}-verify-conversion-1`)).toBe('waiting');
    await fleet.producer.queue('verify').remove(`${other.id}-verify-conversion-1`);
    await fleet.startWorkers();
    const finished = await fleet.waitForRunEnd(run.id);

    expect([finished.status, finished.run_type]).toEqual(['cancelled', 'cancelled']);
    expect(Object.values(calls).reduce((sum, count) => sum + count, 0)).toBe(0);
    await fleet.waitForJobEnd('coordinator', run.id);
    expect(await fleet.producer.queue('coordinator').getJobState(run.id)).toBe('completed');
  });
});
