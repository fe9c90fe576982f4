/**
 * What a job's failure means for BullMQ, decided in one place: retry with backoff, fail now, pause
 * the queue for a provider's rate limit, complete as cancelled, or hand the job back to another
 * worker because this one is shutting down.
 */
import { DelayedError, RateLimitError, WaitingChildrenError, WaitingError } from 'bullmq';
import { AssayError, CancelledError, LlmError, type ErrorCode } from '../src/errors/index.js';

/** Pause after a 429 that did not say how long to wait. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 30_000;

/** Failures no retry can fix: bad input, a missing run, a broken pack or config, refused SQL. */
const PERMANENT_CODES: ReadonlySet<ErrorCode> = new Set(['validation', 'not_found', 'conflict', 'pack', 'config', 'unsafe_sql']);

export type JobFailure =
  /** BullMQ's own control-flow signals (waiting for children, moved to delayed/wait, rate limited): pass through. */
  | { action: 'control' }
  | { action: 'cancelled'; reason: string }
  /** Aborted because this worker is shutting down: back to `wait` for another worker, no attempt spent. */
  | { action: 'hand_over' }
  | { action: 'rate_limited'; pauseMs: number }
  | { action: 'unrecoverable'; reason: string }
  | { action: 'retry' };

function isBullmqControl(error: unknown): boolean {
  return error instanceof WaitingChildrenError || error instanceof DelayedError || error instanceof WaitingError || error instanceof RateLimitError;
}

function isCancellation(error: unknown): boolean {
  return error instanceof CancelledError || (error instanceof LlmError && error.kind === 'aborted');
}

export function classifyJobFailure(error: unknown, state: { shuttingDown: boolean; aborted: boolean }): JobFailure {
  if (isBullmqControl(error)) return { action: 'control' };
  // during shutdown, whatever an aborted job threw (a cancelled call, an interrupted query) is the abort's doing
  if (state.shuttingDown && (state.aborted || isCancellation(error))) return { action: 'hand_over' };
  if (isCancellation(error)) return { action: 'cancelled', reason: (error as Error).message };
  if (error instanceof LlmError) {
    if (error.kind === 'rate_limit') return { action: 'rate_limited', pauseMs: error.info.retryAfterMs ?? DEFAULT_RATE_LIMIT_PAUSE_MS };
    if (!error.info.isRetryable) return { action: 'unrecoverable', reason: `${error.kind}: ${error.message}` };
    return { action: 'retry' };
  }
  if (error instanceof AssayError && PERMANENT_CODES.has(error.code)) return { action: 'unrecoverable', reason: `${error.code}: ${error.message}` };
  return { action: 'retry' };
}
