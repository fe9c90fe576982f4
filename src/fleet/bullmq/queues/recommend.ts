/** Queue `recommend`: recommendations from the run's compacted insights, once every area has settled. */
import { z } from 'zod';
import { LLM_WORKER_DEFAULTS, jobOptions, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../../../discovery/pipeline/error-policy.js';

export const RECOMMEND_QUEUE = 'recommend';
export const RECOMMEND_JOB = 'recommendations';

export const recommendPayloadSchema = z.object({ runId: runIdSchema });
export type RecommendPayload = z.infer<typeof recommendPayloadSchema>;

export const recommendResultSchema = resultOrCancelled(z.object({ runId: runIdSchema, recommendations: z.number().int() }));
export type RecommendResult = z.infer<typeof recommendResultSchema>;

export const recommendQueue: QueueContract<typeof RECOMMEND_QUEUE, RecommendPayload, RecommendResult> = {
  name: RECOMMEND_QUEUE,
  jobName: RECOMMEND_JOB,
  payload: recommendPayloadSchema,
  result: recommendResultSchema,
  jobId: (payload) => `${payload.runId}-recommend`,
  defaultJobOptions: jobOptions(STAGE_RETRY.recommend),
  worker: { ...LLM_WORKER_DEFAULTS, concurrency: 4 },
};
