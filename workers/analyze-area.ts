/**
 * Handler of `analyze-area`: analyse one area, then fan out one `verify` child per insight and park
 * until they settle; on re-entry (`gather`), give every insight left without a validation (its
 * verify job failed after its retries) an `error` validation, and report the area to the coordinator.
 */
import { WaitingChildrenError } from 'bullmq';
import { verifyQueue, type AnalyzeAreaPayload, type AnalyzeAreaResult } from '../queues/index.js';
import { analyzeArea } from '../src/discovery/phases/analyze-area.js';
import { requireRun } from '../src/discovery/context.js';
import { addChild, readChildOutcomes } from '../src/fleet/bullmq/children.js';
import { failVerification } from '../src/discovery/pipeline/index.js';
import type { JobContext, JobHandler } from './handler.js';

async function gather(context: JobContext<AnalyzeAreaPayload>): Promise<AnalyzeAreaResult> {
  const { deps, job, payload } = context;
  const { runId, areaId } = payload;
  const outcomes = await readChildOutcomes(job);
  const run = await requireRun(deps, runId);
  const area = run.areas.find((candidate) => candidate.area_id === areaId);
  // in a cancelled run a verification that did not happen is not a failure
  const unverified = run.status === 'cancelled' ? [] : (area?.insights ?? []).filter((insight) => !insight.validation);
  for (const insight of unverified) {
    const failure =
      outcomes.failureOf(verifyQueue.name, verifyQueue.jobId({ runId, insightId: insight.id })) ??
      'it settled without recording a validation';
    await deps.store.updateRun(runId, (run) => failVerification(run, insight.id, failure, deps.now()));
  }
  if (unverified.length > 0)
    context.logger.warn(
      { unverified: unverified.map((insight) => insight.id) },
      'some verifications failed; their insights are marked error',
    );
  return { runId, areaId, status: area?.status ?? 'failed', insightIds: area?.insight_ids ?? [], verificationFailures: unverified.length };
}

export const analyzeAreaJob: JobHandler<AnalyzeAreaPayload, AnalyzeAreaResult> = async (context) => {
  const { deps, job, payload, signal, queues } = context;
  if (payload.stage === 'analyze') {
    const outcome = await analyzeArea(deps, payload.runId, payload.areaId, signal);
    // a verify job that failed on an earlier delivery is not re-added (it would never settle); gather marks its insight
    for (const insightId of outcome.insight_ids) await addChild(queues, verifyQueue, { runId: payload.runId, insightId }, job);
    await job.updateData({ ...payload, stage: 'gather' });
    if (await job.moveToWaitingChildren(context.token)) throw new WaitingChildrenError();
  }
  return gather(context);
};
