/**
 * Handler of `maintenance`: the stuck-run reconciler and the orphan collection sweep (src/fleet/bullmq/queues/maintenance.ts).
 * Every pod may run them; each verdict is applied through the store's atomic update and BullMQ's own
 * job operations, so two pods reconciling the same run at once do no harm.
 */
import {
  COORDINATOR_JOB,
  coordinatorPayloadSchema,
  coordinatorQueue,
  type MaintenancePayload,
  type MaintenanceResult,
} from '../queues/index.js';
import { finalizeRun } from '../../../discovery/phases/finalize.js';
import { runsInFlight, sweepRunCollections } from '../../../discovery/phases/maintenance.js';
import { countRecovery, judgeRun, type CoordinatorState } from '../../../discovery/pipeline/index.js';
import type { JobContext, JobHandler } from './handler.js';

async function reconcileRuns(context: JobContext<MaintenancePayload>): Promise<MaintenanceResult> {
  const { deps, queues, logger } = context;
  const coordinator = queues.queue(coordinatorQueue.name);
  let requeued = 0;
  let failed = 0;
  for (const run of await runsInFlight(deps.store)) {
    const job = await coordinator.getJob(coordinatorQueue.jobId({ runId: run.id, stage: 'schema', step: 0 }));
    const state = (job ? await job.getState() : 'missing') as CoordinatorState;
    const verdict = judgeRun(run, { state, failedReason: job?.failedReason }, Date.now(), deps.config.fleet.stuckRunGraceMs);
    if (verdict.action === 'leave') continue;
    if (verdict.action === 'fail') {
      logger.error({ runId: run.id, reason: verdict.reason }, 'finishing a stuck run as failed');
      await finalizeRun(deps, run.id, { fatalError: verdict.reason });
      failed++;
      continue;
    }
    // its stages are idempotent: a fresh coordinator redoes what is missing and re-reads what is stored
    await deps.store.updateRun(run.id, countRecovery);
    if (job) await job.remove({ removeChildren: true });
    const payload = coordinatorPayloadSchema.parse({ runId: run.id });
    await coordinator.add(COORDINATOR_JOB, payload, { jobId: coordinatorQueue.jobId(payload) });
    logger.warn({ runId: run.id, reason: verdict.reason, recoveries: run.recoveries + 1 }, 're-enqueued the coordinator of a stuck run');
    requeued++;
  }
  return { task: 'reconcile-runs', requeued, failed, dropped: 0 };
}

export const maintain: JobHandler<MaintenancePayload, MaintenanceResult> = async (context) => {
  if (context.payload.task === 'reconcile-runs') return reconcileRuns(context);
  const dropped = await sweepRunCollections(context.deps);
  return { task: 'sweep-collections', requeued: 0, failed: 0, dropped: dropped.length };
};
