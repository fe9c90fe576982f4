/**
 * Queue `verify`: grounded verification of one insight, a child of its area's job. The job stores
 * nothing: it returns its verdict, its area's job passes the area's verdicts up, and the coordinator
 * stores the whole stage's in one update of the run (parallel verifications never race on the run).
 */
import { z } from 'zod';
import { insightSchema, insightValidationSchema } from '../../../domain/index.js';
import type { InsightVerdict } from '../../../discovery/pipeline/index.js';
import { LLM_WORKER_DEFAULTS, jobOptions, keySchema, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../../../discovery/pipeline/error-policy.js';

export const VERIFY_QUEUE = 'verify';
export const VERIFY_JOB = 'insight';

export const verifyPayloadSchema = z.object({ runId: runIdSchema, insightId: keySchema });
export type VerifyPayload = z.infer<typeof verifyPayloadSchema>;

/** `InsightVerdict` of the pipeline, as it travels in a job's return value. */
export const insightVerdictSchema = z.object({
  insightId: keySchema,
  validation: insightValidationSchema,
  rewrite: insightSchema
    .pick({ claim: true, supporting_claims: true, name: true, description: true, text_source: true, affected_count: true })
    .optional(),
  durationsMs: z.record(z.string(), z.number()),
}) satisfies z.ZodType<InsightVerdict>;

export const verifyResultSchema = resultOrCancelled(
  z.object({ runId: runIdSchema, insightId: keySchema, status: z.string(), verdict: insightVerdictSchema }),
);
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
