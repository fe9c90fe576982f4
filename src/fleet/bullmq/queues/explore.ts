/**
 * Queue `explore`: one job per exploration step, job id `{runId}-explore-{n}`. The step is rebuilt
 * from the stored steps, so any worker can take step n and a crashed step is simply redone.
 */
import { z } from 'zod';
import { LLM_WORKER_DEFAULTS, jobOptions, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../../../discovery/pipeline/error-policy.js';

export const EXPLORE_QUEUE = 'explore';
export const EXPLORE_JOB = 'step';

export const explorePayloadSchema = z.object({ runId: runIdSchema, step: z.number().int().min(1) });
export type ExplorePayload = z.infer<typeof explorePayloadSchema>;

export const exploreResultSchema = resultOrCancelled(
  z.object({ runId: runIdSchema, step: z.number().int(), action: z.string(), finished: z.boolean() }),
);
export type ExploreResult = z.infer<typeof exploreResultSchema>;

export const exploreQueue: QueueContract<typeof EXPLORE_QUEUE, ExplorePayload, ExploreResult> = {
  name: EXPLORE_QUEUE,
  jobName: EXPLORE_JOB,
  payload: explorePayloadSchema,
  result: exploreResultSchema,
  jobId: (payload) => `${payload.runId}-explore-${payload.step}`,
  defaultJobOptions: jobOptions(STAGE_RETRY.explore),
  worker: { ...LLM_WORKER_DEFAULTS, concurrency: 4 },
};
