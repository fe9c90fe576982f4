/**
 * Queue `analyze-area`: one job per analysis area of a run, a child of the coordinator. It analyses
 * the area, then becomes the parent of one `verify` job per insight and completes once they settle.
 */
import { z } from 'zod';
import { LLM_WORKER_DEFAULTS, jobOptions, keySchema, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../src/discovery/pipeline/error-policy.js';

export const ANALYZE_AREA_QUEUE = 'analyze-area';
export const ANALYZE_AREA_JOB = 'area';

/** `analyze` runs the model; `gather` is the re-entry after the area's verifications settled. */
export const AREA_STAGES = ['analyze', 'gather'] as const;

export const analyzeAreaPayloadSchema = z.object({ runId: runIdSchema, areaId: keySchema, stage: z.enum(AREA_STAGES).default('analyze') });
export type AnalyzeAreaPayload = z.infer<typeof analyzeAreaPayloadSchema>;

export const analyzeAreaResultSchema = resultOrCancelled(
  z.object({
    runId: runIdSchema,
    areaId: keySchema,
    status: z.string(),
    insightIds: z.array(z.string()),
    /** Verify jobs that failed after their retries (their insights carry an `error` validation). */
    verificationFailures: z.number().int(),
  }),
);
export type AnalyzeAreaResult = z.infer<typeof analyzeAreaResultSchema>;

export const analyzeAreaQueue: QueueContract<typeof ANALYZE_AREA_QUEUE, AnalyzeAreaPayload, AnalyzeAreaResult> = {
  name: ANALYZE_AREA_QUEUE,
  jobName: ANALYZE_AREA_JOB,
  payload: analyzeAreaPayloadSchema,
  result: analyzeAreaResultSchema,
  jobId: (payload) => `${payload.runId}-area-${payload.areaId}`,
  defaultJobOptions: jobOptions(STAGE_RETRY.analyze),
  worker: { ...LLM_WORKER_DEFAULTS, concurrency: 4 },
};
