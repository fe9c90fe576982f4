/** Phase 1 of the fleet bench: the analysis stage with 1 and with 4 worker processes. */
import { isTerminal } from '../../../src/domain/index.js';
import { ProcessGroup, type SimulatorProcess } from '../../support/fleet-processes.js';
import { round } from '../bench.js';
import { ANALYZE_QUEUES, OTHER_QUEUES, RUN_TIMEOUT_MS, SPEEDUP_RUNS, SPEEDUP_WARMUP_RUNS } from './settings.js';
import {
  type CpuUse,
  type LockWaits,
  type StoreWork,
  cpuBetween,
  percentile,
  roundOrNull,
  sampleCpu,
  samplePostgresLocks,
  sampleStoreWork,
  storeWorkBetween,
} from './measures.js';
import {
  type Bed,
  analysisSettled,
  createProjects,
  discover,
  jobsOfRuns,
  queueOf,
  readRuns,
  startWorkerIn,
  until,
  waitForCompletion,
} from './bed.js';

export interface StageMeasurement {
  analyze_workers: number;
  simulator_latency_ms: number;
  runs: number;
  /** Wall time from the first run's start to the analysis barrier (everything explored). */
  exploration_wall_s: number;
  /** Barrier release → the last run document showing analysis and verification settled (its `updated_at`). */
  stage_wall_ms: number;
  /** Barrier release → the last `finishedOn` of the batch's analyze-area and verify jobs (cross-check). */
  stage_wall_ms_jobs: number;
  analyze_jobs: number;
  verify_jobs: number;
  insights: number;
  /** Σ telemetry.phase_durations_ms analysis + verification over the runs: work inside the phases, not wall time. */
  phase_work_ms: number;
  /** Model calls of analysis and verification as the workers timed them (telemetry latency_ms; the simulator waits 300 ms). */
  llm_latency_ms_p50: number | null;
  llm_latency_ms_p95: number | null;
  /** Over the stage window. */
  cpu: CpuUse | null;
  store_locks: LockWaits | null;
  /** What the store did over the stage (pg_stat_database / pg_stat_user_tables deltas). */
  store_work: StoreWork | null;
}

export async function measureStage(bed: Bed, analyzeWorkers: number, simulator: SimulatorProcess): Promise<StageMeasurement> {
  const group = new ProcessGroup();
  const analyzeQueue = queueOf(bed, 'analyze-area');
  try {
    const env = bed.env(simulator);
    await Promise.all([
      startWorkerIn(bed, group, 'other', OTHER_QUEUES, env),
      ...Array.from({ length: analyzeWorkers }, () => startWorkerIn(bed, group, 'analyze', ANALYZE_QUEUES, env)),
    ]);
    const label = `speedup-${analyzeWorkers}w-${simulator.latencyMs}ms-${bed.nextWorker}`;
    const warmUp = await createProjects(bed, `${label}-warmup`, SPEEDUP_WARMUP_RUNS);
    await waitForCompletion(bed, await Promise.all(warmUp.map((project) => discover(bed, project))));
    await analyzeQueue.pause();
    const projects = await createProjects(bed, label, SPEEDUP_RUNS);
    const startedAt = Date.now();
    const runIds = await Promise.all(projects.map((project) => discover(bed, project)));
    let state = '';
    await until(
      'every run of the batch at the analysis barrier',
      RUN_TIMEOUT_MS,
      async () => {
        const runs = await readRuns(bed, runIds);
        const ended = runs.find((run) => isTerminal(run.status));
        if (ended) throw new Error(`run ${ended.id} ended (${ended.status}) before analysis: ${ended.error ?? ended.phase_detail}`);
        const counts = await analyzeQueue.getJobCounts('wait', 'waiting', 'prioritized');
        const waiting = Object.values(counts).reduce((sum, count) => sum + count, 0);
        const areas = runs.reduce((sum, run) => sum + run.areas.length, 0);
        state = `${runs.filter((run) => run.phase === 'analysis').length}/${runs.length} runs in analysis, ${waiting}/${areas} area jobs waiting`;
        return runs.every((run) => run.phase === 'analysis') && waiting >= areas ? true : undefined;
      },
      200,
      () => state,
    );
    const locks = samplePostgresLocks(bed.storeUrl);
    const storeBefore = await sampleStoreWork(bed.storeUrl);
    const cpuBefore = sampleCpu(bed.roles);
    const releasedAt = Date.now();
    await analyzeQueue.resume();
    const settledAt = new Map<string, number>();
    await until(
      'analysis and verification of every run',
      RUN_TIMEOUT_MS,
      async () => {
        for (const run of await readRuns(
          bed,
          runIds.filter((id) => !settledAt.has(id)),
        ))
          if (analysisSettled(run) || isTerminal(run.status)) settledAt.set(run.id, Date.parse(run.updated_at));
        return settledAt.size === runIds.length ? true : undefined;
      },
      100,
    );
    const cpu = cpuBetween(cpuBefore, sampleCpu(bed.roles));
    const storeLocks = await locks.stop();
    const storeWork = storeWorkBetween(storeBefore, await sampleStoreWork(bed.storeUrl));
    const runs = await waitForCompletion(bed, runIds);
    const latencies = runs.flatMap((run) =>
      run.telemetry.llm_calls.filter((call) => call.phase === 'analysis' || call.phase === 'verification').map((call) => call.latency_ms),
    );
    const [areaJobs, verifyJobs] = await Promise.all([jobsOfRuns(bed, 'analyze-area', runIds), jobsOfRuns(bed, 'verify', runIds)]);
    const lastFinished = Math.max(...[...areaJobs, ...verifyJobs].map((job) => job.finishedOn ?? 0));
    return {
      analyze_workers: analyzeWorkers,
      simulator_latency_ms: simulator.latencyMs,
      runs: runIds.length,
      exploration_wall_s: round((releasedAt - startedAt) / 1_000, 1),
      stage_wall_ms: Math.max(...settledAt.values()) - releasedAt,
      stage_wall_ms_jobs: lastFinished - releasedAt,
      analyze_jobs: areaJobs.length,
      verify_jobs: verifyJobs.length,
      insights: runs.reduce((sum, run) => sum + run.areas.reduce((count, area) => count + area.insights.length, 0), 0),
      phase_work_ms: Math.round(
        runs.reduce(
          (sum, run) => sum + (run.telemetry.phase_durations_ms.analysis ?? 0) + (run.telemetry.phase_durations_ms.verification ?? 0),
          0,
        ),
      ),
      llm_latency_ms_p50: roundOrNull(percentile(latencies, 0.5), 0),
      llm_latency_ms_p95: roundOrNull(percentile(latencies, 0.95), 0),
      cpu,
      store_locks: storeLocks,
      store_work: storeWork,
    };
  } finally {
    await analyzeQueue.resume().catch(() => undefined);
    await group.stopAll();
  }
}
