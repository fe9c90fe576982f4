/**
 * Queue `analyze-area`: one job per analysis area of a run, a child of the coordinator. It analyses
 * the area, then becomes the parent of one `verify` job per insight and completes once they settle,
 * returning their verdicts and failures to the coordinator (it writes none of them itself).
 */
import { z } from 'zod';
import { LLM_WORKER_DEFAULTS, jobOptions, keySchema, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../../../discovery/pipeline/error-policy.js';
import { insightVerdictSchema } from './verify.js';

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
    /** The verdicts of the area's verify jobs, stored by the coordinator with the stage's transition. */
    verdicts: z.array(insightVerdictSchema).default([]),
    /** Insights whose verify job failed after its retries, with the reason (they get an `error` validation). */
    verificationFailures: z.record(z.string(), z.string()).default({}),
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
