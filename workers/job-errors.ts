/**
 * What a job's failure means for BullMQ: the pipeline's one error policy (`classifyStageError`) mapped
 * onto BullMQ's controls — retry with backoff, fail now, pause the queue for a provider's rate limit,
 * complete as cancelled — plus the two things only a worker knows: BullMQ's own control-flow signals,
 * and handing a job back to another worker because this one is shutting down.
 */
import { DelayedError, RateLimitError, WaitingChildrenError, WaitingError } from 'bullmq';
import { classifyStageError } from '../src/discovery/pipeline/index.js';

export { DEFAULT_RATE_LIMIT_PAUSE_MS } from '../src/discovery/pipeline/index.js';

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
  return (
    error instanceof WaitingChildrenError ||
    error instanceof DelayedError ||
    error instanceof WaitingError ||
    error instanceof RateLimitError
  );
}

export function classifyJobFailure(error: unknown, state: { shuttingDown: boolean; aborted: boolean }): JobFailure {
  if (isBullmqControl(error)) return { action: 'control' };
  const classified = classifyStageError(error);
  // during shutdown, whatever an aborted job threw (a cancelled call, an interrupted query) is the abort's doing
  if (state.shuttingDown && (state.aborted || classified.kind === 'cancelled')) return { action: 'hand_over' };
  switch (classified.kind) {
    case 'cancelled':
      return { action: 'cancelled', reason: classified.reason };
    case 'rate_limited':
      return { action: 'rate_limited', pauseMs: classified.retryAfterMs };
    case 'final':
      return { action: 'unrecoverable', reason: classified.reason };
    case 'retryable':
      return { action: 'retry' };
  }
}
