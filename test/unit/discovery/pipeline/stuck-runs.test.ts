import { describe, expect, it } from 'vitest';
import {
  MAX_RUN_RECOVERIES,
  STUCK_RUN_GRACE_MS,
  countRecovery,
  judgeRun,
  nextStage,
  recoveryOf,
} from '../../../../src/discovery/pipeline/index.js';

const NOW = Date.parse('2026-11-24T12:00:00.000Z');
const quiet = new Date(NOW - STUCK_RUN_GRACE_MS - 1).toISOString();
const run = (
  overrides: Partial<{ status: 'pending' | 'running' | 'completed' | 'failed' | 'cancelled'; updated_at: string; recoveries: number }> = {},
) => ({ status: 'running' as const, updated_at: quiet, recoveries: 0, ...overrides });

describe('judging a run in flight by its coordinator job', () => {
  it('leaves runs whose coordinator is alive, runs that finished, and runs touched within the grace period', () => {
    for (const state of ['active', 'waiting', 'waiting-children', 'delayed', 'prioritized'] as const)
      expect(judgeRun(run(), { state }, NOW)).toEqual({ action: 'leave' });
    expect(judgeRun(run({ status: 'completed' }), { state: 'failed' }, NOW)).toEqual({ action: 'leave' });
    expect(judgeRun(run({ updated_at: new Date(NOW - 1_000).toISOString() }), { state: 'missing' }, NOW)).toEqual({ action: 'leave' });
  });

  it('re-enqueues a run whose coordinator failed, vanished or completed early, saying why', () => {
    expect(judgeRun(run(), { state: 'failed', failedReason: 'job stalled more than allowable limit' }, NOW)).toEqual({
      action: 'requeue',
      reason: 'its coordinator failed: job stalled more than allowable limit',
    });
    expect(judgeRun(run({ status: 'pending' }), { state: 'missing' }, NOW)).toMatchObject({
      action: 'requeue',
      reason: expect.stringMatching(/gone from Redis/),
    });
    expect(judgeRun(run(), { state: 'completed' }, NOW)).toMatchObject({ action: 'requeue' });
  });

  it('finishes the run as failed once its recoveries are used up', () => {
    expect(judgeRun(run({ recoveries: MAX_RUN_RECOVERIES }), { state: 'failed', failedReason: 'boom' }, NOW)).toEqual({
      action: 'fail',
      reason: `the run could not be recovered after ${MAX_RUN_RECOVERIES} attempts: its coordinator failed: boom`,
    });
  });
});

describe('the one recovery policy', () => {
  it('takes a run up again while it has recoveries left, counting each, then ends it with the reason', () => {
    let recovered = { recoveries: 0 } as Parameters<typeof countRecovery>[0];
    for (let count = 0; count < MAX_RUN_RECOVERIES; count++) {
      expect(recoveryOf(recovered, 'disk full')).toEqual({ action: 'recover' });
      recovered = countRecovery(recovered);
    }
    expect(recovered.recoveries).toBe(MAX_RUN_RECOVERIES);
    expect(recoveryOf(recovered, 'disk full')).toEqual({
      action: 'fail',
      reason: `the run could not be recovered after ${MAX_RUN_RECOVERIES} attempts: disk full`,
    });
  });
});

describe('the pipeline state machine', () => {
  it('explores step by step, stops at done, max steps or a failed step, then mines, analyses, recommends and finalizes', () => {
    expect(nextStage({ stage: 'prepare' }, 3).command).toEqual({ do: 'explore', step: 1 });
    expect(nextStage({ stage: 'prepare', failure: 'no pack' }, 3).command).toEqual({
      do: 'finalize',
      fatalError: 'prepare failed: no pack',
    });
    expect(nextStage({ stage: 'explore', step: 1, finished: false }, 3).command).toEqual({ do: 'explore', step: 2 });
    expect(nextStage({ stage: 'explore', step: 3, finished: false }, 3).command).toEqual({ do: 'mine' });
    expect(nextStage({ stage: 'explore', step: 2, finished: true }, 3).command).toEqual({ do: 'mine' });
    const failed = nextStage({ stage: 'explore', step: 2, finished: true, failure: '429' }, 3);
    expect(failed.command).toEqual({ do: 'mine' });
    expect(nextStage({ stage: 'mine' }, 3).command).toEqual({ do: 'analyze' });
    // a mining failure is recorded on the run, and analysis goes on from the digests
    const mining = nextStage({ stage: 'mine', failure: 'warehouse down' }, 3);
    expect(mining.command).toEqual({ do: 'analyze' });
    expect(mining.update).toBeTypeOf('function');
    expect(
      nextStage(
        {
          stage: 'analyze',
          failures: new Map(),
          verifications: { verdicts: [], failures: new Map(), settledAt: '2026-01-01T00:00:00.000Z' },
        },
        3,
      ).command,
    ).toEqual({ do: 'recommend' });
    expect(nextStage({ stage: 'recommend' }, 3).command).toEqual({ do: 'finalize' });
    expect(nextStage({ stage: 'recommend', failure: 'auth' }, 3).update).toBeTypeOf('function');
  });
});
