/**
 * Queue `coordinator`: one job per run (job id = run id), a small state machine over the run
 * document. It never does heavy work itself; it enqueues the next stage as its children and is
 * re-entered when they settle (BullMQ `moveToWaitingChildren` + `WaitingChildrenError`).
 */
import { z } from 'zod';
import { jobOptions, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../../../discovery/pipeline/error-policy.js';
import { PIPELINE_STAGES } from '../../../discovery/pipeline/state-machine.js';

export const COORDINATOR_QUEUE = 'coordinator';
export const COORDINATOR_JOB = 'run';

/** In order: what the coordinator does on its next entry — the fleet-only `schema` (its index child), then the pipeline's stages. */
export const COORDINATOR_STAGES = ['schema', ...PIPELINE_STAGES] as const;
export type CoordinatorStage = (typeof COORDINATOR_STAGES)[number];

export const coordinatorPayloadSchema = z.object({
  // BullMQ refuses custom ids that are whole numbers: the run id is the job id
  runId: runIdSchema.refine((id) => !/^\d+$/.test(id), 'a run id must not be all digits (it is the coordinator job id)'),
  stage: z.enum(COORDINATOR_STAGES).default('schema'),
  /** The exploration step whose job is in flight (stage `explore`). */
  step: z.number().int().min(0).default(0),
});
export type CoordinatorPayload = z.infer<typeof coordinatorPayloadSchema>;

export const coordinatorResultSchema = resultOrCancelled(
  z.object({ runId: runIdSchema, runType: z.enum(['full', 'partial', 'failed', 'cancelled']), status: z.string() }),
);
export type CoordinatorResult = z.infer<typeof coordinatorResultSchema>;

export const coordinatorQueue: QueueContract<typeof COORDINATOR_QUEUE, CoordinatorPayload, CoordinatorResult> = {
  name: COORDINATOR_QUEUE,
  jobName: COORDINATOR_JOB,
  payload: coordinatorPayloadSchema,
  result: coordinatorResultSchema,
  jobId: (payload) => payload.runId,
  defaultJobOptions: {
    ...jobOptions(STAGE_RETRY.coordinate),
    // a finished run's job stays a month so a repeated launch of the same run id stays a no-op
    removeOnComplete: { age: 30 * 24 * 3_600 },
  },
  // stage transitions are a few store reads and writes: many runs per process, a short lock
  // its stages are idempotent, so stalls are survivable; past the limit the stuck-run reconciler takes over
  worker: { concurrency: 16, lockDurationMs: 15_000, stalledIntervalMs: 10_000, maxStalledCount: 5, callsLlm: false },
};
