/**
 * The coordinator: a state machine over the run, one BullMQ job per run. Each stage enqueues its
 * work as children of this job (deterministic ids, `ignoreDependencyOnFailure`), records the next
 * stage in the job's data, and parks the job in `waiting-children` (`WaitingChildrenError`); BullMQ
 * re-enters it when every child has settled. Heavy work always happens in the children.
 *
 *   schema → prepare → explore (one step at a time) → analyze (areas in parallel, each the parent
 *   of its verifications) → recommend → finalize
 *
 * A cancelled run is finalized as cancelled on the next entry; a failed child is reconciled into the
 * run document, so the run ends `partial` or `failed` instead of waiting forever.
 */
import { WaitingChildrenError } from 'bullmq';
import {
  analyzeAreaQueue,
  exploreQueue,
  exploreResultSchema,
  indexQueue,
  isCancelledResult,
  recommendQueue,
  type CoordinatorPayload,
  type CoordinatorResult,
} from '../queues/index.js';
import { requireRun } from '../src/discovery/context.js';
import { finalizeRun } from '../src/discovery/finalize.js';
import { prepareRun } from '../src/discovery/prepare.js';
import { runStatusFor } from '../src/discovery/rules.js';
import { CancelledError, describeError } from '../src/errors/index.js';
import { addChild, readChildOutcomes } from '../src/fleet/bullmq/children.js';
import { failRecommendations, failUnsettledAreas, stopExplorationAt } from '../src/fleet/bullmq/reconcile.js';
import type { JobContext, JobHandler } from './handler.js';

/** Progress shown once analysis starts (exploration reports up to 60). */
const ANALYSIS_PROGRESS = 62;

type Context = JobContext<CoordinatorPayload>;

async function finish(context: Context, fatalError?: string): Promise<CoordinatorResult> {
  const { runId } = context.payload;
  const result = await finalizeRun(context.deps, runId, fatalError === undefined ? {} : { fatalError });
  context.logger.info({ runType: result.run_type, insights: result.insights.length }, 'run finalized');
  return { runId, runType: result.run_type, status: runStatusFor(result.run_type) };
}

/** Records the next stage, then parks the job until its children settle. False: nothing pending, go on now. */
async function advanceAndWait(context: Context, next: CoordinatorPayload): Promise<CoordinatorPayload> {
  await context.job.updateData(next);
  if (await context.job.moveToWaitingChildren(context.token)) throw new WaitingChildrenError();
  return next;
}

/** One stage; returns the state to run next, or the run's final result. */
async function runStage(context: Context, state: CoordinatorPayload): Promise<CoordinatorPayload | CoordinatorResult> {
  const { deps, job, queues } = context;
  const { runId } = state;
  switch (state.stage) {
    case 'schema': {
      await addChild(queues, indexQueue, { runId }, job);
      return advanceAndWait(context, { ...state, stage: 'prepare' });
    }
    case 'prepare': {
      const schemaFailure = (await readChildOutcomes(job)).failureOf(indexQueue.name, indexQueue.jobId({ runId }));
      if (schemaFailure !== undefined) return finish(context, `prepare failed: the schema index job failed: ${schemaFailure}`);
      try {
        await prepareRun(deps, runId, context.signal);
      } catch (error) {
        if (error instanceof CancelledError) throw error;
        context.logger.error({ err: error }, 'prepare failed');
        return finish(context, `prepare failed: ${describeError(error)}`);
      }
      return { ...state, stage: 'explore', step: 0 };
    }
    case 'explore': {
      let next = Math.max(state.step, 1);
      if (state.step > 0) {
        const outcomes = await readChildOutcomes(job);
        const jobId = exploreQueue.jobId({ runId, step: state.step });
        const value = outcomes.valueOf(exploreQueue.name, jobId);
        const outcome = value === undefined ? undefined : exploreResultSchema.parse(value);
        // a step cancelled while its run is still live (the run is checked before every stage) ends exploration like a failed one
        const failure = outcomes.failureOf(exploreQueue.name, jobId) ?? (outcome && isCancelledResult(outcome) ? outcome.reason : undefined);
        if (failure !== undefined) {
          await deps.store.updateRun(runId, (run) => stopExplorationAt(run, state.step, failure));
          return { ...state, stage: 'analyze' };
        }
        if (outcome && !isCancelledResult(outcome)) {
          if (outcome.finished) return { ...state, stage: 'analyze' };
          next = state.step + 1;
        }
      }
      const run = await requireRun(deps, runId);
      if (next > run.settings.max_steps) return { ...state, stage: 'analyze' };
      if ((await addChild(queues, exploreQueue, { runId, step: next }, job)) === 'failed_before') {
        await deps.store.updateRun(runId, (current) => stopExplorationAt(current, next, 'failed on an earlier delivery'));
        return { ...state, stage: 'analyze' };
      }
      return advanceAndWait(context, { ...state, step: next });
    }
    case 'analyze': {
      const run = await deps.store.updateRun(runId, (current) => ({ ...current, phase: 'analysis', phase_detail: 'analysing areas', progress: Math.max(current.progress, ANALYSIS_PROGRESS) }));
      // every area, settled or not: a repeated add re-attaches a job still running, and is a no-op otherwise
      for (const area of run.areas) await addChild(queues, analyzeAreaQueue, { runId, areaId: area.area_id, stage: 'analyze' }, job);
      return advanceAndWait(context, { ...state, stage: 'recommend' });
    }
    case 'recommend': {
      const outcomes = await readChildOutcomes(job);
      const run = await requireRun(deps, runId);
      const failures = new Map<string, string>();
      for (const area of run.areas) {
        const failure = outcomes.failureOf(analyzeAreaQueue.name, analyzeAreaQueue.jobId({ runId, areaId: area.area_id, stage: 'analyze' }));
        if (failure !== undefined) failures.set(area.area_id, failure);
      }
      await deps.store.updateRun(runId, (current) => failUnsettledAreas(current, failures));
      await addChild(queues, recommendQueue, { runId }, job);
      return advanceAndWait(context, { ...state, stage: 'finalize' });
    }
    case 'finalize': {
      const failure = (await readChildOutcomes(job)).failureOf(recommendQueue.name, recommendQueue.jobId({ runId }));
      if (failure !== undefined) await deps.store.updateRun(runId, (run) => failRecommendations(run, failure));
      return finish(context);
    }
  }
}

function isFinalResult(value: CoordinatorPayload | CoordinatorResult): value is CoordinatorResult {
  return !('stage' in value);
}

export const coordinate: JobHandler<CoordinatorPayload, CoordinatorResult> = async (context) => {
  let state = context.payload;
  try {
    for (;;) {
      const run = await requireRun(context.deps, state.runId);
      if (run.status === 'cancelled') return await finish(context);
      context.logger.debug({ stage: state.stage, step: state.step }, 'coordinator stage');
      const outcome = await runStage(context, state);
      if (isFinalResult(outcome)) return outcome;
      state = outcome;
    }
  } catch (error) {
    // the run was cancelled under a stage: finalize it here. A cancelled run never aborts the
    // coordinator's own signal, so an aborted signal means shutdown: the job is handed back instead.
    if (error instanceof CancelledError && !context.signal.aborted) return finish(context);
    throw error;
  }
};
