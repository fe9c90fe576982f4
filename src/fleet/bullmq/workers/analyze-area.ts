/**
 * Handler of `analyze-area`: analyse one area, then fan out one `verify` child per insight and park
 * until they settle; on re-entry (`gather`), collect the children's verdicts and the failures of those
 * that failed after their retries, and report them with the area to the coordinator, which stores the
 * whole stage's verdicts in one update (`settleVerifications` in the pipeline's transition).
 */
import { WaitingChildrenError } from 'bullmq';
import { isCancelledResult, verifyQueue, verifyResultSchema, type AnalyzeAreaPayload, type AnalyzeAreaResult } from '../queues/index.js';
import { analyzeArea } from '../../../discovery/phases/analyze-area.js';
import { requireRun } from '../../../discovery/context.js';
import type { InsightVerdict } from '../../../discovery/pipeline/index.js';
import { addChild, readChildOutcomes } from '../children.js';
import type { JobContext, JobHandler } from './handler.js';

async function gather(context: JobContext<AnalyzeAreaPayload>): Promise<AnalyzeAreaResult> {
  const { deps, job, payload } = context;
  const { runId, areaId } = payload;
  const outcomes = await readChildOutcomes(job);
  const run = await requireRun(deps, runId);
  const area = run.areas.find((candidate) => candidate.area_id === areaId);
  const verdicts: InsightVerdict[] = [];
  const verificationFailures: Record<string, string> = {};
  for (const insight of area?.insights ?? []) {
    const jobId = verifyQueue.jobId({ runId, insightId: insight.id });
    const failure = outcomes.failureOf(verifyQueue.name, jobId);
    if (failure !== undefined) {
      verificationFailures[insight.id] = failure;
      continue;
    }
    const value = outcomes.valueOf(verifyQueue.name, jobId);
    const parsed = value === undefined ? undefined : verifyResultSchema.safeParse(value);
    if (parsed?.success && !isCancelledResult(parsed.data)) verdicts.push(parsed.data.verdict);
  }
  const failed = Object.keys(verificationFailures);
  if (failed.length > 0) context.logger.warn({ failed }, 'some verifications failed; their insights will be marked error');
  return { runId, areaId, status: area?.status ?? 'failed', insightIds: area?.insight_ids ?? [], verdicts, verificationFailures };
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
