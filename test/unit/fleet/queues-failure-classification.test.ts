import { DelayedError, RateLimitError, WaitingChildrenError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  CancelledError,
  LlmAuthError,
  LlmContextOverflowError,
  LlmError,
  LlmRateLimitError,
  NotFoundError,
  PackError,
  WarehouseError,
} from '../../../src/errors/index.js';
import { MAX_RATE_LIMIT_WAITS, classifyStageError } from '../../../src/discovery/pipeline/index.js';
import {
  DEFAULT_RATE_LIMIT_PAUSE_MS,
  RATE_LIMIT_WAITS_KEY,
  classifyJobFailure,
  jobGoneFromRedis,
  rateLimitWaitsOf,
} from '../../../src/fleet/bullmq/workers/job-errors.js';

const RUNNING = { shuttingDown: false, aborted: false };
const provider = 'anthropic';

describe('what a failed job means to the queue', () => {
  it('passes BullMQ control-flow signals through untouched', () => {
    for (const signal of [new WaitingChildrenError(), new DelayedError(), new RateLimitError()])
      expect(classifyJobFailure(signal, RUNNING)).toEqual({ action: 'control' });
  });

  it('pauses the queue for as long as the provider asked on a rate limit, or a default when it did not say', () => {
    expect(classifyJobFailure(new LlmRateLimitError('429', { provider, retryAfterMs: 7_000 }), RUNNING)).toEqual({
      action: 'rate_limited',
      pauseMs: 7_000,
    });
    expect(classifyJobFailure(new LlmRateLimitError('429', { provider }), RUNNING)).toEqual({
      action: 'rate_limited',
      pauseMs: DEFAULT_RATE_LIMIT_PAUSE_MS,
    });
  });

  it('fails at once on errors no retry can fix', () => {
    for (const error of [
      new LlmContextOverflowError('prompt is too long', { provider }),
      new LlmAuthError('invalid x-api-key', { provider }),
      new NotFoundError('run r does not exist'),
      new PackError('pack "x" has no prompt'),
    ]) {
      expect(classifyJobFailure(error, RUNNING).action, error.message).toBe('unrecoverable');
    }
  });

  it('retries transient failures: a provider 5xx, a warehouse hiccup, an unexpected bug', () => {
    expect(
      classifyJobFailure(new LlmError('overloaded', { kind: 'transient', isRetryable: true, status: 529, provider }), RUNNING),
    ).toMatchObject({ action: 'retry', reason: expect.stringContaining('overloaded') });
    expect(classifyJobFailure(new WarehouseError('connection reset'), RUNNING)).toEqual({
      action: 'retry',
      reason: 'connection reset',
    });
    expect(classifyJobFailure(new TypeError('undefined is not a function'), RUNNING)).toMatchObject({
      action: 'retry',
      reason: expect.stringContaining('undefined is not a function'),
    });
  });

  describe('when the provider keeps rate limiting the job', () => {
    const limited = new LlmRateLimitError('429 too many requests', { provider, retryAfterMs: 5 });

    it(`pauses the queue for each of the first ${MAX_RATE_LIMIT_WAITS} rate limits, then spends an attempt like any retryable failure`, () => {
      expect(classifyJobFailure(limited, { ...RUNNING, rateLimitWaits: MAX_RATE_LIMIT_WAITS - 1 })).toEqual({
        action: 'rate_limited',
        pauseMs: 5,
      });
      expect(classifyJobFailure(limited, { ...RUNNING, rateLimitWaits: MAX_RATE_LIMIT_WAITS })).toEqual({
        action: 'retry',
        reason: classifyStageError(limited).reason,
      });
    });

    it("reads the waits from the job's data, counting a missing or corrupt count as none", () => {
      expect(rateLimitWaitsOf({ runId: 'r', [RATE_LIMIT_WAITS_KEY]: 4 })).toBe(4);
      for (const data of [{ runId: 'r' }, { [RATE_LIMIT_WAITS_KEY]: 'x' }, { [RATE_LIMIT_WAITS_KEY]: -2 }, null, undefined])
        expect(rateLimitWaitsOf(data), JSON.stringify(data)).toBe(0);
    });
  });

  describe('when the run was cancelled', () => {
    it('completes the job as cancelled instead of retrying it', () => {
      expect(classifyJobFailure(new CancelledError('run r was cancelled'), RUNNING)).toEqual({
        action: 'cancelled',
        reason: 'run r was cancelled',
      });
      expect(
        classifyJobFailure(new LlmError('aborted', { kind: 'aborted', isRetryable: false, provider }), {
          shuttingDown: false,
          aborted: true,
        }).action,
      ).toBe('cancelled');
    });
  });

  describe('when the worker is shutting down', () => {
    it('hands an aborted job back whatever the abort made it throw', () => {
      expect(classifyJobFailure(new CancelledError('aborted'), { shuttingDown: true, aborted: true })).toEqual({ action: 'hand_over' });
      expect(classifyJobFailure(new WarehouseError('query interrupted'), { shuttingDown: true, aborted: true })).toEqual({
        action: 'hand_over',
      });
    });

    it('still retries a job that failed on its own', () => {
      expect(classifyJobFailure(new WarehouseError('connection reset'), { shuttingDown: true, aborted: false })).toMatchObject({
        action: 'retry',
      });
    });
  });

  describe("when the job's lock could not be renewed (Redis lost it, or another worker took the job over)", () => {
    it('leaves the job alone whatever it threw: neither retried, failed, cancelled nor handed back from here', () => {
      const lost = { shuttingDown: false, aborted: true, lockLost: true };
      for (const error of [
        new CancelledError(`the job's lock could not be renewed`),
        new WarehouseError('connection reset'),
        new LlmAuthError('invalid x-api-key', { provider }),
        new LlmRateLimitError('429', { provider }),
      ])
        expect(classifyJobFailure(error, lost), error.message).toEqual({ action: 'lock_lost' });
      expect(classifyJobFailure(new CancelledError('aborted'), { ...lost, shuttingDown: true })).toEqual({ action: 'lock_lost' });
    });

    it("still passes BullMQ's own control-flow signals through", () => {
      expect(classifyJobFailure(new WaitingChildrenError(), { shuttingDown: false, aborted: false, lockLost: true })).toEqual({
        action: 'control',
      });
    });
  });
});

describe("reading BullMQ's worker errors about a job Redis no longer holds", () => {
  it('reads the job and the command from a missing-key error', () => {
    expect(jobGoneFromRedis(new Error('Missing key for job run-1-explore-3. moveToFinished'))).toEqual({
      jobId: 'run-1-explore-3',
      operation: 'moveToFinished',
    });
  });

  it('reads a failed lock renewal', () => {
    expect(jobGoneFromRedis(new Error('could not renew lock for job run-1-area-churn'))).toEqual({
      jobId: 'run-1-area-churn',
      operation: 'renew_lock',
    });
  });

  it('leaves every other worker error alone', () => {
    for (const message of ['Connection is closed.', 'Missing lock for job run-1. moveToFinished', 'ERR unknown command'])
      expect(jobGoneFromRedis(new Error(message)), message).toBeUndefined();
  });
});
