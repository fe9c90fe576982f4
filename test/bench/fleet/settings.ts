/** The fleet bench's fixed settings: sizes, latencies, schedules, queue groups and targets. */
import type { QueueName } from '../../../src/fleet/bullmq/queues/index.js';

export const PACK = 'ecommerce';
export const DEMO_SCALE = 0.2;
export const MAX_STEPS = 8;
/** A model the catalog knows, served by the simulator through the OpenAI adapter. */
export const MODEL = 'openai:gpt-5.4-mini';
export const MODEL_CONTEXT_WINDOW = 400_000;
export const SIMULATOR_LATENCY_MS = 300;
/**
 * The speedup again with a model as slow as real ones are for analysis (a call with a 10k–20k-token
 * prompt and a few thousand output tokens takes 10–60 s on current providers; 3 s is still fast): at
 * 300 ms the stage is bound by the CPU of a small machine, not by the model.
 */
export const REALISTIC_LATENCY_MS = 3_000;
export const REALISTIC_SCHEDULE = [1, 4] as const;

export const SPEEDUP_RUNS = 16;
/** Interleaved, so a drift of the machine affects both sides alike. */
export const SPEEDUP_SCHEDULE = [1, 4, 1, 4, 1, 4] as const;
/**
 * Runs through a fresh set of workers before its measured batch: workers in production are long-lived,
 * a fresh process JIT-compiles its hot paths on its first jobs (cold, the same jobs cost 4 processes ~40 % more CPU).
 */
export const SPEEDUP_WARMUP_RUNS = 4;
export const OVERHEAD_RUNS = 6;
/** Diagnostic: runs one after another, so jobs of different runs do not compete for the CPU. */
export const OVERHEAD_SEQUENTIAL_RUNS = 3;
export const RECOVERY_RUNS = 12;
export const RECOVERY_STAGGER_MS = 2_500;
export const RECOVERY_KILLS = 10;
export const KILL_GAP_MS = { min: 2_000, max: 5_000 };
/** No kill starts after this long into the recovery batch. */
export const RECOVERY_WINDOW_MS = 100_000;
/** A held job not processing again this long after the kill counts as not recovered. */
export const RECOVERY_GIVE_UP_MS = 120_000;
export const RUN_TIMEOUT_MS = 300_000;

export const ANALYZE_QUEUES: readonly QueueName[] = ['mine', 'analyze-area', 'verify'];
/** Phase 1: everything but analysis on one process. */
export const OTHER_QUEUES: readonly QueueName[] = ['coordinator', 'explore', 'index', 'recommend', 'maintenance'];
/**
 * Phases 2 and 3: `index` stays with the control process. Without Qdrant here the vector index is the
 * embedded one in the shared data dir, made for one writer: schema index builds (the one collection
 * every project's pointer shares) must all come from one process; run collections have one writer each.
 */
export const CONTROL_QUEUES: readonly QueueName[] = ['coordinator', 'index', 'recommend', 'maintenance'];
export const EXPLORE_QUEUES: readonly QueueName[] = ['explore'];
/** Jobs that start once and end without parking in waiting-children: their BullMQ times mean one attempt. */
export const SINGLE_ENTRY_QUEUES: readonly QueueName[] = ['index', 'explore', 'mine', 'verify', 'recommend'];
export const KILLABLE_QUEUES: readonly QueueName[] = ['explore', 'mine', 'analyze-area', 'verify'];
export const POOLS = { explore: EXPLORE_QUEUES, analyze: ANALYZE_QUEUES } as const;
export type PoolName = keyof typeof POOLS;
export const PHASE_OF_QUEUE: Partial<Record<QueueName, string>> = {
  explore: 'exploration',
  mine: 'mining',
  'analyze-area': 'analysis',
  verify: 'verification',
};

export const TARGETS = {
  speedup_4_workers: '>= 3.0',
  overhead_ms_per_job_p50: '<= 10',
  recovery_s_p95: '<= 30',
  lost_updates: '0',
  duplicated_steps: '0',
};
