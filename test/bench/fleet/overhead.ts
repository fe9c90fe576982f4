/** Phase 2 of the fleet bench: the fleet's own time per job, beyond the handler's. */
import { readFileSync } from 'node:fs';
import type { QueueName } from '../../../src/fleet/bullmq/queues/index.js';
import { ProcessGroup } from '../../support/fleet-processes.js';
import { round } from '../bench.js';
import {
  ANALYZE_QUEUES,
  CONTROL_QUEUES,
  EXPLORE_QUEUES,
  OVERHEAD_RUNS,
  OVERHEAD_SEQUENTIAL_RUNS,
  SINGLE_ENTRY_QUEUES,
} from './settings.js';
import { type CpuUse, cpuBetween, percentile, roundOrNull, sampleCpu } from './measures.js';
import { type Bed, createProjects, discover, jobsOfRuns, startWorkerIn, waitForCompletion } from './bed.js';

export interface JobTiming {
  queue: QueueName;
  /** `processedOn - timestamp`: enqueue to the worker taking it. */
  queue_to_start_ms: number;
  /** `finishedOn - processedOn - handler`: taking it to the handler, and the handler's end to BullMQ's finish. */
  completion_ms: number | null;
  /** `finishedOn - timestamp - handler`; null when the worker's log had no duration for the job. */
  overhead_ms: number | null;
}

/** `durationMs` of every "job completed" line of the workers' logs, keyed `queue/jobId`. */
export function handlerDurations(logs: readonly string[]): Map<string, number> {
  const durations = new Map<string, number>();
  for (const log of logs) {
    for (const line of log.split('\n')) {
      if (!line.includes('"job completed"')) continue;
      try {
        const entry = JSON.parse(line) as { queue?: string; jobId?: string; durationMs?: number };
        if (entry.queue && entry.jobId && typeof entry.durationMs === 'number')
          durations.set(`${entry.queue}/${entry.jobId}`, entry.durationMs);
      } catch {
        // a line cut by a kill
      }
    }
  }
  return durations;
}

export interface OverheadBatch {
  mode: 'concurrent' | 'sequential';
  runs: number;
  batch_wall_s: number;
  jobs: JobTiming[];
  jobs_without_logged_handler_time: number;
  cpu: CpuUse | null;
}

export async function jobTimings(
  bed: Bed,
  runIds: readonly string[],
  durations: ReadonlyMap<string, number>,
): Promise<[JobTiming[], number]> {
  const jobs: JobTiming[] = [];
  let withoutHandlerTime = 0;
  for (const name of SINGLE_ENTRY_QUEUES) {
    for (const job of await jobsOfRuns(bed, name, runIds)) {
      if (job.failedReason || job.attemptsStarted !== 1 || job.stalledCounter !== 0) continue;
      if (job.processedOn === undefined || job.finishedOn === undefined || job.id === undefined) continue;
      const handler = durations.get(`${name}/${job.id}`);
      if (handler === undefined) withoutHandlerTime += 1;
      jobs.push({
        queue: name,
        queue_to_start_ms: job.processedOn - job.timestamp,
        completion_ms: handler === undefined ? null : job.finishedOn - job.processedOn - handler,
        overhead_ms: handler === undefined ? null : job.finishedOn - job.timestamp - handler,
      });
    }
  }
  return [jobs, withoutHandlerTime];
}

/** The concurrent batch (the measure), then runs one at a time on the same workers (the diagnostic). */
export async function measureOverhead(bed: Bed): Promise<OverheadBatch[]> {
  const group = new ProcessGroup();
  try {
    const env = bed.env(bed.zeroSimulator);
    const workers = await Promise.all([
      startWorkerIn(bed, group, 'control', CONTROL_QUEUES, env),
      startWorkerIn(bed, group, 'explore', EXPLORE_QUEUES, env),
      startWorkerIn(bed, group, 'analyze', ANALYZE_QUEUES, env),
      startWorkerIn(bed, group, 'analyze', ANALYZE_QUEUES, env),
    ]);
    const batches: Array<Omit<OverheadBatch, 'jobs' | 'jobs_without_logged_handler_time'> & { runIds: string[] }> = [];
    for (const mode of ['concurrent', 'sequential'] as const) {
      const projects = await createProjects(bed, `overhead-${mode}`, mode === 'concurrent' ? OVERHEAD_RUNS : OVERHEAD_SEQUENTIAL_RUNS);
      const cpuBefore = sampleCpu(bed.roles);
      const started = Date.now();
      const runIds: string[] = [];
      if (mode === 'concurrent') {
        runIds.push(...(await Promise.all(projects.map((project) => discover(bed, project)))));
        await waitForCompletion(bed, runIds);
      } else {
        for (const project of projects) {
          const runId = await discover(bed, project);
          runIds.push(runId);
          await waitForCompletion(bed, [runId]);
        }
      }
      batches.push({
        mode,
        runs: runIds.length,
        batch_wall_s: round((Date.now() - started) / 1_000, 1),
        cpu: cpuBetween(cpuBefore, sampleCpu(bed.roles)),
        runIds,
      });
    }
    const durations = handlerDurations(workers.map((worker) => readFileSync(worker.process.logPath, 'utf8')));
    const measured: OverheadBatch[] = [];
    for (const { runIds, ...batch } of batches) {
      const [jobs, without] = await jobTimings(bed, runIds, durations);
      measured.push({ ...batch, jobs, jobs_without_logged_handler_time: without });
    }
    return measured;
  } finally {
    await group.stopAll();
  }
}

/** Percentiles of an overhead batch, overall and per queue. */
export function summariseOverhead(batch: OverheadBatch) {
  const stats = (jobs: readonly JobTiming[]) => {
    const own = jobs.flatMap((job) => (job.overhead_ms === null ? [] : [job.overhead_ms]));
    const toStart = jobs.map((job) => job.queue_to_start_ms);
    const completion = jobs.flatMap((job) => (job.completion_ms === null ? [] : [job.completion_ms]));
    return {
      jobs: jobs.length,
      overhead_ms_p50: roundOrNull(percentile(own, 0.5), 1),
      overhead_ms_p95: roundOrNull(percentile(own, 0.95), 1),
      queue_to_start_ms_p50: roundOrNull(percentile(toStart, 0.5), 1),
      queue_to_start_ms_p95: roundOrNull(percentile(toStart, 0.95), 1),
      completion_ms_p50: roundOrNull(percentile(completion, 0.5), 1),
      completion_ms_p95: roundOrNull(percentile(completion, 0.95), 1),
    };
  };
  return {
    mode: batch.mode,
    runs: batch.runs,
    batch_wall_s: batch.batch_wall_s,
    jobs_without_logged_handler_time: batch.jobs_without_logged_handler_time,
    cpu: batch.cpu,
    ...stats(batch.jobs),
    by_queue: SINGLE_ENTRY_QUEUES.map((queue) => ({ queue, ...stats(batch.jobs.filter((job) => job.queue === queue)) })),
  };
}
