/**
 * The one recovery policy of a run, for both drivers: a run whose driver lost it or whose coordination
 * failed after its retries is taken up again — counted in `run.recoveries` — at most
 * MAX_RUN_RECOVERIES times, then finished as failed with the reason. The fleet's reconciler applies it
 * to runs whose coordinator job failed, vanished or completed early (`judgeRun`); the in-process
 * driver to a coordination step that failed after its retries, and the local launcher to a run it
 * finds interrupted when it starts. Pure: the drivers read, apply the verdict, and write.
 */
import type { Run } from '../../domain/index.js';

/** A run is looked at only when nothing has touched it for this long (launch writes the run, then adds its job). */
export const STUCK_RUN_GRACE_MS = 60_000;
/** Recoveries of one run (re-enqueues of its coordinator, resumes of an interrupted local run) before it is finished as failed. */
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

export type RecoveryVerdict = { action: 'recover' } | { action: 'fail'; reason: string };

/** Why a run lost its driver when its coordination failed after its retries: the same words in both drivers. */
export function coordinationFailed(failure: string): string {
  return `its coordinator failed: ${failure}`;
}

/** Whether a run that lost its driver (`reason`) is taken up again or finished as failed. */
export function recoveryOf(run: Pick<Run, 'recoveries'>, reason: string): RecoveryVerdict {
  if (run.recoveries >= MAX_RUN_RECOVERIES)
    return { action: 'fail', reason: `the run could not be recovered after ${run.recoveries} attempts: ${reason}` };
  return { action: 'recover' };
}

/** The update a driver applies when it takes a run up again (the one counter). */
export function countRecovery(run: Run): Run {
  return { ...run, recoveries: run.recoveries + 1 };
}

/** The fleet's reconciler: which runs in flight have lost their coordinator job, and what to do about them. */
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
      reason = coordinationFailed(coordinator.failedReason ?? 'no reason recorded');
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
  const verdict = recoveryOf(run, reason);
  return verdict.action === 'fail' ? verdict : { action: 'requeue', reason };
}
