/**
 * Queue `mine`: one job per run, a child of the coordinator between exploration and analysis. The
 * engine mines the warehouse with its own SQL (docs/mining.md) and stores the ranked findings on the
 * run; a redelivered job finds them stored and does nothing.
 */
import { z } from 'zod';
import { LLM_WORKER_DEFAULTS, jobOptions, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';
import { STAGE_RETRY } from '../../../discovery/pipeline/error-policy.js';

export const MINE_QUEUE = 'mine';
export const MINE_JOB = 'mine';

export const minePayloadSchema = z.object({ runId: runIdSchema });
export type MinePayload = z.infer<typeof minePayloadSchema>;

export const mineResultSchema = resultOrCancelled(
  z.object({ runId: runIdSchema, status: z.string(), findings: z.number().int(), queries: z.number().int() }),
);
export type MineResult = z.infer<typeof mineResultSchema>;

export const mineQueue: QueueContract<typeof MINE_QUEUE, MinePayload, MineResult> = {
  name: MINE_QUEUE,
  jobName: MINE_JOB,
  payload: minePayloadSchema,
  result: mineResultSchema,
  jobId: (payload) => `${payload.runId}-mine`,
  defaultJobOptions: jobOptions(STAGE_RETRY.mine),
  // warehouse statements and embeddings, no model: no LLM rate limiter on this queue
  worker: { ...LLM_WORKER_DEFAULTS, concurrency: 2, callsLlm: false },
};
