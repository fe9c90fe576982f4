/** Queue `verify`: grounded verification of one insight, a child of its area's job. */
import { z } from 'zod';
import { LLM_WORKER_DEFAULTS, jobOptions, keySchema, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../src/discovery/pipeline/error-policy.js';

export const VERIFY_QUEUE = 'verify';
export const VERIFY_JOB = 'insight';

export const verifyPayloadSchema = z.object({ runId: runIdSchema, insightId: keySchema });
export type VerifyPayload = z.infer<typeof verifyPayloadSchema>;

export const verifyResultSchema = resultOrCancelled(z.object({ runId: runIdSchema, insightId: keySchema, status: z.string() }));
export type VerifyResult = z.infer<typeof verifyResultSchema>;

export const verifyQueue: QueueContract<typeof VERIFY_QUEUE, VerifyPayload, VerifyResult> = {
  name: VERIFY_QUEUE,
  jobName: VERIFY_JOB,
  payload: verifyPayloadSchema,
  result: verifyResultSchema,
  jobId: (payload) => `${payload.runId}-verify-${payload.insightId}`,
  defaultJobOptions: jobOptions(STAGE_RETRY.verify),
  // one short model call and one COUNT query each: the most parallel queue
  worker: { ...LLM_WORKER_DEFAULTS, concurrency: 8 },
};
