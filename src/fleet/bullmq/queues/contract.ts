/**
 * The shape every queue module fills in: one queue, one job name, a zod payload and result, a
 * deterministic job id, default job options and the worker settings its kind of work needs.
 */
import type { DefaultJobOptions } from 'bullmq';
import { z } from 'zod';

/** How a worker holds and recovers jobs of one queue. */
export interface WorkerDefaults {
  /** Jobs in flight per process. */
  concurrency: number;
  /**
   * How long a job's lock lives without renewal. The lock is renewed at half this interval while
   * the event loop is free, so it bounds how fast a crashed worker's job is recovered, not how long
   * a job may run.
   */
  lockDurationMs: number;
  /** How often this worker looks for jobs whose lock expired. */
  stalledIntervalMs: number;
  /** Stalls tolerated before the job fails ("job stalled more than allowable limit"). */
  maxStalledCount: number;
  /** The job calls an LLM: a provider rate limit pauses the whole queue. */
  callsLlm: boolean;
}

export interface QueueContract<Name extends string = string, Payload = unknown, Result = unknown> {
  name: Name;
  jobName: string;
  payload: z.ZodType<Payload>;
  result: z.ZodType<Result>;
  /** Deterministic and `:`-free, so a redelivered or repeated add is a no-op. */
  jobId(payload: Payload): string;
  defaultJobOptions: DefaultJobOptions;
  worker: WorkerDefaults;
}

/** Run ids are `[A-Za-z0-9_-]` (see runSchema), which keeps every job id below `:`-free. */
export const runIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'a run id: letters, digits, _ and - only');
/** Area and insight ids come from packs and `{area}-{n}`: the same alphabet. */
export const keySchema = z.string().regex(/^[A-Za-z0-9_-]{1,120}$/, 'letters, digits, _ and - only');

/** What a job returns when its run was cancelled: it completes, it is not retried. */
export const cancelledResultSchema = z.object({ runId: runIdSchema, cancelled: z.literal(true), reason: z.string() });
export type CancelledResult = z.infer<typeof cancelledResultSchema>;

/** A queue's own result, or the cancelled marker any job may return instead. */
export function resultOrCancelled<Schema extends z.ZodType>(schema: Schema) {
  return z.union([schema, cancelledResultSchema]);
}

export function isCancelledResult(value: unknown): value is CancelledResult {
  return cancelledResultSchema.safeParse(value).success;
}

const HOUR_SECONDS = 3_600;
const DAY_SECONDS = 24 * HOUR_SECONDS;

/**
 * Retries with exponential backoff and jitter (so a fleet retrying after a shared outage does not
 * stampede), completed jobs kept a day for inspection, failed ones a week for diagnosis.
 */
export function jobOptions(options: { attempts: number; backoffDelayMs: number }): DefaultJobOptions {
  return {
    attempts: options.attempts,
    backoff: { type: 'exponential', delay: options.backoffDelayMs, jitter: 0.5 },
    removeOnComplete: { age: DAY_SECONDS, count: 5_000 },
    removeOnFail: { age: 7 * DAY_SECONDS, count: 20_000 },
  };
}

/**
 * Worker settings for jobs that wait on an LLM: a two-minute lock tolerates a busy event loop (large
 * result digests) without false stalls, and two stalls are allowed because a pod scaled in under
 * a job is routine, not a poison message.
 */
export const LLM_WORKER_DEFAULTS: Omit<WorkerDefaults, 'concurrency'> = {
  // a killed pod's job is running again within lock expiry + one stalled check: ≤ 25 s. The lock is
  // renewed every 7.5 s while the job runs; digests yield the event loop long before that.
  lockDurationMs: 15_000,
  stalledIntervalMs: 10_000,
  maxStalledCount: 2,
  callsLlm: true,
};
