/**
 * The coordinator: the BullMQ driver of the run pipeline (`src/discovery/pipeline`), one job per run.
 * It asks the pure state machine what comes next, applies the transition's update to the run, and
 * runs the command: `prepare` inline (a few store reads and the schema), every other stage as children
 * with deterministic ids (`ignoreDependencyOnFailure`), recording the stage in flight in the job's data
 * and parking the job in `waiting-children`; BullMQ re-enters it when the children settle, and their
 * outcomes (values, or failures after their last attempt) become the stage's result. The in-process
 * runner drives the same machine, so both end a run the same way.
 *
 *   schema (fleet only: the index job) → prepare → explore 1 … n → mine → analyze → recommend → finalize
 */
import { WaitingChildrenError } from 'bullmq';
import {
  analyzeAreaQueue,
  analyzeAreaResultSchema,
  exploreQueue,
  exploreResultSchema,
  indexQueue,
  isCancelledResult,
  mineQueue,
  recommendQueue,
  type CoordinatorPayload,
  type CoordinatorResult,
} from '../queues/index.js';
import { requireRun } from '../../../discovery/context.js';
import { isFinalStep } from '../../../discovery/phases/explore-step.js';
import { finalizeRun } from '../../../discovery/phases/finalize.js';
import {
  STAGES_WITH_WORK,
  classifyStageError,
  nextStage,
  type InsightVerdict,
  type StageResult,
  type Transition,
} from '../../../discovery/pipeline/index.js';
import { prepareRun } from '../../../discovery/phases/prepare.js';
import { runStatusFor } from '../../../discovery/outcome-rules.js';
import type { Run } from '../../../domain/index.js';
import { CancelledError } from '../../../errors/index.js';
import { addChild, readChildOutcomes } from '../children.js';
import type { JobContext, JobHandler } from './handler.js';

type Context = JobContext<CoordinatorPayload>;

async function finish(context: Context, fatalError?: string): Promise<CoordinatorResult> {
  const { runId } = context.payload;
  const result = await finalizeRun(context.deps, runId, fatalError === undefined ? {} : { fatalError });
  context.logger.info({ runType: result.run_type, insights: result.insights.length }, 'run finalized');
  return { runId, runType: result.run_type, status: runStatusFor(result.run_type) };
}

/** Parks the job in `waiting-children` if any child is still pending; returns when none is. */
async function parkIfChildrenPending(context: Context): Promise<void> {
  if (await context.job.moveToWaitingChildren(context.token)) throw new WaitingChildrenError();
}

/** Records the stage in flight, then parks the job until its children settle. Returns when nothing is pending. */
async function parkUntilSettled(context: Context, inFlight: CoordinatorPayload): Promise<void> {
  await context.job.updateData(inFlight);
  await parkIfChildrenPending(context);
}

/** Stages whose children were added before the job parked: every stage with work (for `prepare`, the index job the fleet adds). */
const STAGES_WITH_CHILDREN: ReadonlySet<CoordinatorPayload['stage']> = new Set(STAGES_WITH_WORK);

/** `prepare` runs inline: a final failure ends the run; anything retryable fails this attempt of the job. */
async function runPrepare(context: Context): Promise<StageResult> {
  const { runId } = context.payload;
  const schemaFailure = (await readChildOutcomes(context.job)).failureOf(indexQueue.name, indexQueue.jobId({ runId }));
  if (schemaFailure !== undefined) return { stage: 'prepare', failure: `the schema index job failed: ${schemaFailure}` };
  try {
    await prepareRun(context.deps, runId, context.signal);
    return { stage: 'prepare' };
  } catch (error) {
    const classified = classifyStageError(error);
    if (classified.kind !== 'final') throw error;
    context.logger.error({ err: error }, 'prepare failed');
    return { stage: 'prepare', failure: classified.reason };
  }
}

/** The result of the stage whose children just settled. */
async function settledResult(context: Context, inFlight: CoordinatorPayload, run: Run): Promise<StageResult> {
  const { runId } = inFlight;
  const outcomes = await readChildOutcomes(context.job);
  switch (inFlight.stage) {
    case 'explore': {
      const jobId = exploreQueue.jobId({ runId, step: inFlight.step });
      const value = outcomes.valueOf(exploreQueue.name, jobId);
      const outcome = value === undefined ? undefined : exploreResultSchema.parse(value);
      // a step cancelled while its run is still live (the run is checked before every stage) ends exploration like a failed one
      const failure = outcomes.failureOf(exploreQueue.name, jobId) ?? (outcome && isCancelledResult(outcome) ? outcome.reason : undefined);
      if (failure !== undefined) return { stage: 'explore', step: inFlight.step, finished: true, failure };
      if (outcome !== undefined && !isCancelledResult(outcome))
        return { stage: 'explore', step: inFlight.step, finished: outcome.finished };
      // a recovered coordinator finds the step's job done before it (not attached to this parent): the store says how it ended
      const stored = (await context.deps.store.listSteps(runId)).find((step) => step.step === inFlight.step);
      if (!stored)
        return { stage: 'explore', step: inFlight.step, finished: true, failure: `step ${inFlight.step} settled without a stored result` };
      return { stage: 'explore', step: inFlight.step, finished: isFinalStep(stored, run) };
    }
    case 'mine':
      return { stage: 'mine', failure: outcomes.failureOf(mineQueue.name, mineQueue.jobId({ runId })) };
    case 'analyze': {
      const failures = new Map<string, string>();
      const verdicts: InsightVerdict[] = [];
      const verificationFailures = new Map<string, string>();
      for (const area of run.areas) {
        const jobId = analyzeAreaQueue.jobId({ runId, areaId: area.area_id, stage: 'analyze' });
        const failure = outcomes.failureOf(analyzeAreaQueue.name, jobId);
        if (failure !== undefined) {
          failures.set(area.area_id, failure);
          continue;
        }
        // a recovered coordinator finds an area's job done before it (not attached to this parent): its return value is on the job
        const value =
          outcomes.valueOf(analyzeAreaQueue.name, jobId) ?? (await context.queues.queue(analyzeAreaQueue.name).getJob(jobId))?.returnvalue;
        const parsed = value === undefined ? undefined : analyzeAreaResultSchema.safeParse(value);
        if (!parsed?.success || isCancelledResult(parsed.data)) continue;
        verdicts.push(...parsed.data.verdicts);
        for (const [insightId, reason] of Object.entries(parsed.data.verificationFailures)) verificationFailures.set(insightId, reason);
      }
      return {
        stage: 'analyze',
        failures,
        verifications: { verdicts, failures: verificationFailures, settledAt: context.deps.now().toISOString() },
      };
    }
    case 'recommend':
      return { stage: 'recommend', failure: outcomes.failureOf(recommendQueue.name, recommendQueue.jobId({ runId })) };
    default:
      throw new TypeError(`the coordinator has no children to settle in stage ${inFlight.stage}`);
  }
}

export const coordinate: JobHandler<CoordinatorPayload, CoordinatorResult> = async (context) => {
  const { deps, job, queues } = context;
  const { runId } = context.payload;
  let inFlight = context.payload;
  try {
    for (;;) {
      const run = await requireRun(deps, runId);
      if (run.status === 'cancelled') return await finish(context);
      context.logger.debug({ stage: inFlight.stage, step: inFlight.step }, 'coordinator stage');
      // BullMQ re-enters the coordinator when its children settle, and also when the stalled check hands
      // back one that died between adding a child and parking: that child may still be running, so the
      // first pass of a delivery parks again while any is pending. Later passes parked themselves.
      if (inFlight === context.payload && STAGES_WITH_CHILDREN.has(inFlight.stage)) await parkIfChildrenPending(context);

      let transition: Transition;
      if (inFlight.stage === 'schema') {
        await addChild(queues, indexQueue, { runId }, job);
        inFlight = { runId, stage: 'prepare', step: 0 };
        await parkUntilSettled(context, inFlight);
        continue;
      } else if (inFlight.stage === 'prepare') {
        transition = nextStage(await runPrepare(context), run.settings.max_steps);
      } else if (inFlight.stage === 'finalize') {
        return await finish(context);
      } else {
        transition = nextStage(await settledResult(context, inFlight, run), run.settings.max_steps);
      }

      // apply and run commands until one has children to wait for
      for (;;) {
        if (transition.update) await deps.store.updateRun(runId, transition.update);
        const { command } = transition;
        if (command.do === 'finalize') return await finish(context, command.fatalError);
        if (command.do === 'explore') {
          if ((await addChild(queues, exploreQueue, { runId, step: command.step }, job)) === 'failed_before') {
            transition = nextStage(
              { stage: 'explore', step: command.step, finished: true, failure: 'failed on an earlier delivery' },
              run.settings.max_steps,
            );
            continue;
          }
          inFlight = { runId, stage: 'explore', step: command.step };
        } else if (command.do === 'mine') {
          await addChild(queues, mineQueue, { runId }, job);
          inFlight = { runId, stage: 'mine', step: 0 };
        } else if (command.do === 'analyze') {
          const current = await requireRun(deps, runId);
          // every area, settled or not: a repeated add re-attaches a job still running, and is a no-op otherwise
          for (const area of current.areas)
            await addChild(queues, analyzeAreaQueue, { runId, areaId: area.area_id, stage: 'analyze' }, job);
          inFlight = { runId, stage: 'analyze', step: 0 };
        } else if (command.do === 'recommend') {
          await addChild(queues, recommendQueue, { runId }, job);
          inFlight = { runId, stage: 'recommend', step: 0 };
        } else {
          throw new TypeError(`the pipeline never starts over: unexpected command ${command.do}`);
        }
        await parkUntilSettled(context, inFlight);
        break;
      }
    }
  } catch (error) {
    // the run was cancelled under a stage: finalize it here. A cancelled run never aborts the
    // coordinator's own signal, so an aborted signal means shutdown: the job is handed back instead.
    if (error instanceof CancelledError && !context.signal.aborted) return finish(context);
    throw error;
  }
};
