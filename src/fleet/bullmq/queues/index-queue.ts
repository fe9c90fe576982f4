/**
 * Queue `index`: `schema` jobs make the project's schema cache and index usable for a run (describe
 * the warehouse, blurb and embed every table) before the coordinator prepares it, so that heavy
 * work runs on the explore/index pods rather than on the coordinator. Exploration steps are
 * embedded inside their explore job, before the next step is enqueued.
 */
import { z } from 'zod';
import { LLM_WORKER_DEFAULTS, jobOptions, resultOrCancelled, runIdSchema, type QueueContract } from './contract.js';

export const INDEX_QUEUE = 'index';
export const INDEX_SCHEMA_JOB = 'schema';

export const indexPayloadSchema = z.object({ runId: runIdSchema });
export type IndexPayload = z.infer<typeof indexPayloadSchema>;

export const indexResultSchema = resultOrCancelled(z.object({ runId: runIdSchema, tables: z.number().int(), collection: z.string() }));
export type IndexResult = z.infer<typeof indexResultSchema>;

export const indexQueue: QueueContract<typeof INDEX_QUEUE, IndexPayload, IndexResult> = {
  name: INDEX_QUEUE,
  jobName: INDEX_SCHEMA_JOB,
  payload: indexPayloadSchema,
  result: indexResultSchema,
  jobId: (payload) => `${payload.runId}-schema`,
  defaultJobOptions: jobOptions({ attempts: 3, backoffDelayMs: 5_000 }),
  // embedding a large warehouse takes a while and is I/O bound: few at once, a long lock
  worker: { ...LLM_WORKER_DEFAULTS, concurrency: 2, callsLlm: false },
};
