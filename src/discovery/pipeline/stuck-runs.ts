/**
 * Which runs in flight have lost their driver, and what to do about them (the fleet's reconciler).
 * Pure: the reconciler job reads the run and the state of its coordinator job, and applies the verdict.
 */
import type { Run } from '../../domain/index.js';

/** A run is looked at only when nothing has touched it for this long (launch writes the run, then adds its job). */
export const STUCK_RUN_GRACE_MS = 60_000;
/** Re-enqueues of one run's coordinator before the run is finished as failed. */
export const MAX_RUN_RECOVERIES = 3;

/** BullMQ's job states, plus `missing` when Redis no longer has the job (data lost, job removed). */
export type CoordinatorState =
  | 'active'
  | 'waiting'
  | 'waiting-children'
  | 'delayed'
  | 'prioritized'
  | 'completed'
  | 'failed'
  | 'missing'
  | 'unknown';

export type StuckRunVerdict = { action: 'leave' } | { action: 'requeue'; reason: string } | { action: 'fail'; reason: string };

export function judgeRun(
  run: Pick<Run, 'status' | 'updated_at' | 'recoveries'>,
  coordinator: { state: CoordinatorState; failedReason?: string | undefined },
  nowMs: number,
  graceMs = STUCK_RUN_GRACE_MS,
): StuckRunVerdict {
  if (run.status !== 'pending' && run.status !== 'running') return { action: 'leave' };
  if (nowMs - Date.parse(run.updated_at) < graceMs) return { action: 'leave' };
  let reason: string;
  switch (coordinator.state) {
    case 'failed':
      reason = `its coordinator job failed: ${coordinator.failedReason ?? 'no reason recorded'}`;
      break;
    case 'missing':
      reason = 'its coordinator job is gone from Redis (data lost or removed)';
      break;
    case 'completed':
      reason = 'its coordinator job completed without finishing the run';
      break;
    default:
      return { action: 'leave' };
  }
  if (run.recoveries >= MAX_RUN_RECOVERIES)
    return { action: 'fail', reason: `the run could not be recovered after ${run.recoveries} attempts: ${reason}` };
  return { action: 'requeue', reason };
}
