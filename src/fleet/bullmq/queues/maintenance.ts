/**
 * Queue `maintenance`: repeatable housekeeping jobs (BullMQ job schedulers), safe on many pods because
 * each task is idempotent and writes through the store's atomic updates:
 * - `reconcile-runs`: runs in flight whose coordinator job failed or was lost are re-enqueued (their
 *   stages are idempotent) or, after MAX_RUN_RECOVERIES, finished as failed with the reason;
 * - `sweep-collections`: per-run vector collections no live run owns are dropped.
 */
import { z } from 'zod';
import { jobOptions, type QueueContract } from './contract.js';

export const MAINTENANCE_QUEUE = 'maintenance';
export const MAINTENANCE_TASKS = ['reconcile-runs', 'sweep-collections'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];

export const maintenancePayloadSchema = z.object({ task: z.enum(MAINTENANCE_TASKS) });
export type MaintenancePayload = z.infer<typeof maintenancePayloadSchema>;

export const maintenanceResultSchema = z.object({
  task: z.enum(MAINTENANCE_TASKS),
  requeued: z.number().int().default(0),
  failed: z.number().int().default(0),
  dropped: z.number().int().default(0),
});
export type MaintenanceResult = z.infer<typeof maintenanceResultSchema>;

export const maintenanceQueue: QueueContract<typeof MAINTENANCE_QUEUE, MaintenancePayload, MaintenanceResult> = {
  name: MAINTENANCE_QUEUE,
  jobName: 'maintenance',
  payload: maintenancePayloadSchema,
  result: maintenanceResultSchema,
  jobId: (payload) => payload.task,
  // a missed tick is harmless: the next one does the same work
  defaultJobOptions: { ...jobOptions({ attempts: 2, backoffDelayMs: 1_000 }), removeOnComplete: { count: 100 } },
  worker: { concurrency: 1, lockDurationMs: 30_000, stalledIntervalMs: 15_000, maxStalledCount: 1, callsLlm: false },
};
