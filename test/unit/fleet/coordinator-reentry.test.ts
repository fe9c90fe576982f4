/**
 * The coordinator re-entered with children still pending — the stalled check handing back a
 * coordinator that died between adding a child and parking — parks again instead of reading the
 * stage as settled (which used to end the run `failed`: "step 2 settled without a stored result").
 */
import type { Job } from 'bullmq';
import { WaitingChildrenError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { CoordinatorPayload } from '../../../src/fleet/bullmq/queues/index.js';
import type { DiscoveryDeps } from '../../../src/discovery/context.js';
import type { QueueSet } from '../../../src/fleet/bullmq/queue-set.js';
import { silentLogger } from '../../../src/logging/index.js';
import { coordinate } from '../../../src/fleet/bullmq/workers/coordinator.js';
import type { JobContext } from '../../../src/fleet/bullmq/workers/handler.js';
import { realisticRun } from '../../support/realistic-run.js';

function reenteredCoordinator(payload: CoordinatorPayload, childrenPending: boolean) {
  const run = { ...realisticRun(payload.runId), status: 'running' as const };
  const touched: string[] = [];
  const deps = {
    store: {
      getRun: async () => structuredClone(run),
      updateRun: async () => {
        touched.push('updateRun');
        return run;
      },
      listSteps: async () => {
        touched.push('listSteps');
        return [];
      },
    },
    logger: silentLogger,
  } as unknown as DiscoveryDeps;
  const job = {
    id: `${payload.runId}-coordinator`,
    data: payload,
    moveToWaitingChildren: async () => {
      touched.push('moveToWaitingChildren');
      return childrenPending;
    },
    getDependencies: async () => {
      touched.push('getDependencies');
      return { processed: {}, unprocessed: [] };
    },
    getFailedChildrenValues: async () => ({}),
    getIgnoredChildrenFailures: async () => ({}),
    updateData: async () => undefined,
  } as unknown as Job;
  const context: JobContext<CoordinatorPayload> = {
    job,
    token: 'token-1',
    signal: new AbortController().signal,
    payload,
    deps,
    logger: silentLogger,
    queues: {} as QueueSet,
  };
  return { context, touched };
}

describe('a coordinator re-entered while the stage in flight still has pending children', () => {
  it.each([
    { stage: 'explore', step: 2 },
    { stage: 'analyze', step: 0 },
    { stage: 'recommend', step: 0 },
    { stage: 'prepare', step: 0 },
  ] as const)('parks again in $stage without reading or writing the run', async ({ stage, step }) => {
    const { context, touched } = reenteredCoordinator({ runId: 'run-20240304-000000-abc123', stage, step }, true);
    await expect(coordinate(context)).rejects.toBeInstanceOf(WaitingChildrenError);
    expect(touched).toEqual(['moveToWaitingChildren']);
  });
});
