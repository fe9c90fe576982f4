/**
 * What a job's failure means for BullMQ: the pipeline's one error policy (`classifyStageError`) mapped
 * onto BullMQ's controls — retry with backoff, fail now, pause the queue for a provider's rate limit,
 * complete as cancelled — plus what only a worker knows: BullMQ's own control-flow signals, handing a
 * job back to another worker because this one is shutting down, and a job this worker no longer owns.
 */
import { DelayedError, RateLimitError, WaitingChildrenError, WaitingError } from 'bullmq';
import { MAX_RATE_LIMIT_WAITS, classifyStageError } from '../../../discovery/pipeline/index.js';

export { DEFAULT_RATE_LIMIT_PAUSE_MS } from '../../../discovery/pipeline/index.js';

export type JobFailure =
  /** BullMQ's own control-flow signals (waiting for children, moved to delayed/wait, rate limited): pass through. */
  | { action: 'control' }
  | { action: 'cancelled'; reason: string }
  /** Aborted because this worker is shutting down: back to `wait` for another worker, no attempt spent. */
  | { action: 'hand_over' }
  /**
   * The job's lock could not be renewed: Redis lost it (FLUSHALL, a restart without persistence) or
   * another worker took the job over as stalled. Whatever it threw, the job is no longer this worker's to
   * finish or fail: leave it to its new holder, or to the stuck-run reconciler.
   */
  | { action: 'lock_lost' }
  | { action: 'rate_limited'; pauseMs: number }
  | { action: 'unrecoverable'; reason: string }
  /** Spends an attempt (BullMQ's backoff); `reason` is what the run records once the last one fails. */
  | { action: 'retry'; reason: string };

function isBullmqControl(error: unknown): boolean {
  return (
    error instanceof WaitingChildrenError ||
    error instanceof DelayedError ||
    error instanceof WaitingError ||
    error instanceof RateLimitError
  );
}

export interface JobState {
  shuttingDown: boolean;
  aborted: boolean;
  /** BullMQ reported that the job's lock could not be renewed (the registry then aborts the job). */
  lockLost?: boolean;
  /** Provider rate limits this job has already waited out (`rateLimitWaitsOf(job.data)`). @defaultValue 0 */
  rateLimitWaits?: number;
}

export function classifyJobFailure(error: unknown, state: JobState): JobFailure {
  if (isBullmqControl(error)) return { action: 'control' };
  if (state.lockLost) return { action: 'lock_lost' };
  const classified = classifyStageError(error);
  // during shutdown, whatever an aborted job threw (a cancelled call, an interrupted query) is the abort's doing
  if (state.shuttingDown && (state.aborted || classified.kind === 'cancelled')) return { action: 'hand_over' };
  switch (classified.kind) {
    case 'cancelled':
      return { action: 'cancelled', reason: classified.reason };
    case 'rate_limited':
      // as in the in-process runner: past the cap, a rate limit spends an attempt like any retryable failure
      if ((state.rateLimitWaits ?? 0) >= MAX_RATE_LIMIT_WAITS) return { action: 'retry', reason: classified.reason };
      return { action: 'rate_limited', pauseMs: classified.retryAfterMs };
    case 'final':
      return { action: 'unrecoverable', reason: classified.reason };
    case 'retryable':
      return { action: 'retry', reason: classified.reason };
  }
}

/**
 * Where a job counts the rate limits it waited out: in its own data, in Redis beside BullMQ's
 * `attemptsMade`. A queue pause hands the job back to `wait` with its data, and a worker killed under
 * the job leaves the data for the worker that takes it over as stalled, so the count survives both.
 * It is per unit of work, as the in-process runner's: the coordinator replaces its data when it moves
 * to a new stage, which starts that stage's count afresh.
 */
export const RATE_LIMIT_WAITS_KEY = 'rateLimitWaits';

export function rateLimitWaitsOf(data: unknown): number {
  const waits = (data as Record<string, unknown> | null | undefined)?.[RATE_LIMIT_WAITS_KEY];
  return typeof waits === 'number' && Number.isInteger(waits) && waits > 0 ? waits : 0;
}

/** What a worker `error` event says about a job that Redis no longer holds for this worker. */
export interface JobGoneFromRedis {
  jobId: string;
  /** `renew_lock`: BullMQ's lock renewal failed (the registry abandons the job); else the BullMQ command that found no job. */
  operation: string;
}

/**
 * BullMQ reports a job that vanished under a worker (FLUSHALL, a restart without persistence, a job
 * removed or taken over) only as a worker `error` with one of two messages; this reads them, so the
 * registry can log them as what they are instead of as failures of the worker.
 */
export function jobGoneFromRedis(error: Error): JobGoneFromRedis | undefined {
  const missing = /^Missing key for job (\S+)\. (\w+)$/.exec(error.message);
  if (missing) return { jobId: missing[1] as string, operation: missing[2] as string };
  const lock = /^could not renew lock for job (\S+)$/.exec(error.message);
  if (lock) return { jobId: lock[1] as string, operation: 'renew_lock' };
  return undefined;
}
