/**
 * `npm run bench -- fleet`: the BullMQ fleet as separate OS processes — redis-server, a throwaway
 * PostgreSQL cluster as the shared run store, `assay llm-simulator` (OpenAI wire format, the offline
 * analyst behind it), `assay api --runner bullmq` and `assay worker` processes — driven through the
 * HTTP API and measured from outside, on an ecommerce demo warehouse. Writes `bench-results/fleet.json`.
 *
 * 1. speedup_4_workers — simulator latency 300 ms, one worker process on every other queue. A batch of
 *    runs is held at the analysis barrier (queue `analyze-area` paused until every run of the batch has
 *    explored and its area jobs wait), then released; the stage lasts from the release until the last
 *    run document shows every area settled and every insight validated (that document's `updated_at`).
 *    The same batch with 1 and with 4 processes consuming `analyze-area,verify` (fresh processes, warmed
 *    up by a small batch first; 3 interleaved repetitions each): the ratio of the medians. CPU use per
 *    process role (and by processes outside the fleet) and store lock waits are recorded per stage.
 * 2. overhead_ms_per_job — simulator latency 0, production grouping (control, explore, 2 × analyze).
 *    For every job that ran exactly once from its enqueue to its end (queues index, explore, verify,
 *    recommend: no retry, no stall, no parking in waiting-children): BullMQ's
 *    `finishedOn - timestamp` minus the handler's own time (`durationMs` of the worker's
 *    "job completed" log line, measured around the handler). Queue-to-start (`processedOn - timestamp`)
 *    is reported next to it.
 * 3. recovery_s — simulator latency 300 ms, control + 2 explore + 2 analyze workers, the product's
 *    lock and stalled settings. At random moments a worker process holding jobs of explore,
 *    analyze-area or verify is SIGKILLed (and a replacement started, as an orchestrator would); per job
 *    it held: seconds from the kill until the same job id is processing again on another worker
 *    (`processedOn` after the kill, `processedBy` another process — each worker runs with a host name
 *    of its own where the machine allows it).
 * 4. runs, lost_updates, duplicated_steps — every run of the bench, from the run documents, results
 *    and steps in PostgreSQL once all have completed.
 *
 * `FLEET_BENCH_SEED` fixes the kill moments; `FLEET_BENCH_KEEP=1` keeps the work dir (process logs).
 * Diagnostics: `FLEET_BENCH_STAGES=1,4` measures only those analysis stages and prints them (no JSON written);
 * `FLEET_BENCH_WORKER_NODE_ARGS` are node flags for every worker (`--cpu-prof --cpu-prof-dir=DIR`).
 *
 * This file runs the phases in order and writes the result; `fleet/` holds the parts: settings.ts (sizes,
 * latencies, targets), bed.ts (the processes, store and queues, and how phases drive them), measures.ts
 * (CPU, lock and store sampling, percentiles), one file per phase (speedup, overhead, recovery) and
 * report.ts (the headline and the printed tables).
 */
import { cpus } from 'node:os';
import { LLM_WORKER_DEFAULTS, QUEUE_NAMES, queueContract } from '../../src/fleet/bullmq/queues/index.js';
import { canIsolateHostname, onTerminationSignal } from '../support/fleet-processes.js';
import { type Bench, round, writeBenchResult } from './bench.js';
import {
  ANALYZE_QUEUES,
  CONTROL_QUEUES,
  DEMO_SCALE,
  EXPLORE_QUEUES,
  MAX_STEPS,
  MODEL,
  OTHER_QUEUES,
  OVERHEAD_RUNS,
  OVERHEAD_SEQUENTIAL_RUNS,
  PACK,
  REALISTIC_LATENCY_MS,
  RECOVERY_KILLS,
  RECOVERY_RUNS,
  REALISTIC_SCHEDULE,
  SPEEDUP_SCHEDULE,
  SIMULATOR_LATENCY_MS,
  SPEEDUP_RUNS,
  TARGETS,
} from './fleet/settings.js';
import { percentile, roundOrNull, seededRandom } from './fleet/measures.js';
import { Unavailable, checkIntegrity, ensureFreshBuild, runCleanups, setUp } from './fleet/bed.js';
import { type StageMeasurement, measureStage } from './fleet/speedup.js';
import { measureOverhead, summariseOverhead } from './fleet/overhead.js';
import { measureRecovery } from './fleet/recovery.js';
import { printTables } from './fleet/report.js';

export const fleetBench: Bench = {
  name: 'fleet',
  description:
    'the BullMQ fleet as OS processes (redis, PostgreSQL, LLM simulator, API, workers): analysis speedup 1→4 workers, per-job overhead, SIGKILL recovery, lost updates',
  async run() {
    const benchStarted = Date.now();
    const seed = Number(process.env.FLEET_BENCH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const cleanups: Array<() => Promise<void>> = [];
    // one cleanup, whoever starts it: an interrupted phase fails against what the signal handler stops,
    // and its `finally` must wait for the same cleanup instead of ending the process half-way through it
    let cleaning: Promise<void> | undefined;
    const cleanUp = () => (cleaning ??= runCleanups(cleanups));
    const removeSignalHandlers = onTerminationSignal(cleanUp);
    const progress = (message: string) => process.stdout.write(`[${round((Date.now() - benchStarted) / 1_000, 0)} s] ${message}\n`);
    try {
      const workersFrom = ensureFreshBuild(progress);
      progress(
        `setting up (workers run the ${workersFrom === 'build' ? 'build in dist/' : 'sources through tsx'}; hostname isolation: ${canIsolateHostname() ? 'yes' : 'no'})`,
      );
      const bed = await setUp(cleanups, workersFrom === 'build');
      progress(
        `api at ${bed.api.url}, simulators at ${bed.slowSimulator.url} (${SIMULATOR_LATENCY_MS} ms), ${bed.realisticSimulator.url} (${REALISTIC_LATENCY_MS} ms) and ${bed.zeroSimulator.url} (0 ms)`,
      );

      const stages: StageMeasurement[] = [];
      // diagnostics: FLEET_BENCH_STAGES=1 (or 4, or 1,4) measures only those analysis stages, writes nothing
      const onlyStages = process.env.FLEET_BENCH_STAGES?.split(',').map(Number);
      const schedule = onlyStages
        ? onlyStages.map((workers) => [workers, bed.slowSimulator] as const)
        : [
            ...SPEEDUP_SCHEDULE.map((workers) => [workers, bed.slowSimulator] as const),
            ...REALISTIC_SCHEDULE.map((workers) => [workers, bed.realisticSimulator] as const),
          ];
      for (const [workers, simulator] of schedule) {
        progress(
          `speedup: ${SPEEDUP_RUNS} runs, ${workers} analyze-area,verify worker process(es), model latency ${simulator.latencyMs} ms`,
        );
        const stage = await measureStage(bed, workers, simulator);
        stages.push(stage);
        progress(`  analysis + verification stage: ${stage.stage_wall_ms} ms`);
      }
      if (onlyStages) {
        process.stdout.write(`${JSON.stringify(stages, null, 2)}\n`);
        return;
      }
      progress(`overhead: ${OVERHEAD_RUNS} runs at once, then ${OVERHEAD_SEQUENTIAL_RUNS} one at a time, at 0 ms simulator latency`);
      const [concurrent, sequential] = (await measureOverhead(bed)).map(summariseOverhead) as [
        ReturnType<typeof summariseOverhead>,
        ReturnType<typeof summariseOverhead>,
      ];
      progress(`recovery: ${RECOVERY_RUNS} runs, up to ${RECOVERY_KILLS} SIGKILLs (seed ${seed})`);
      const recovery = await measureRecovery(bed, seededRandom(seed));
      progress('integrity of every stored run');
      const integrity = await checkIntegrity(bed, bed.runIds);

      const stageMedian = (workers: number, latencyMs = SIMULATOR_LATENCY_MS) =>
        percentile(
          stages
            .filter((stage) => stage.analyze_workers === workers && stage.simulator_latency_ms === latencyMs)
            .map((stage) => stage.stage_wall_ms),
          0.5,
        ) as number;
      // if the fleet's CPU work of a one-worker stage were spread over every core with no waiting at all
      const ceilings = stages
        .filter((stage) => stage.analyze_workers === 1 && stage.simulator_latency_ms === SIMULATOR_LATENCY_MS && stage.cpu)
        .map((stage) => {
          const fleetCpuS = Object.values(stage.cpu?.seconds_by_role ?? {}).reduce((sum, seconds) => sum + seconds, 0);
          return stage.stage_wall_ms / 1_000 / (fleetCpuS / cpus().length);
        });
      const recovered = recovery.samples.filter((sample) => sample.outcome === 'recovered').map((sample) => sample.recovery_s as number);
      const result = {
        speedup_4_workers: round(stageMedian(1) / stageMedian(4), 2),
        speedup_4_workers_cpu_ceiling: roundOrNull(percentile(ceilings, 0.5), 2),
        speedup_4_workers_at_3s: round(stageMedian(1, REALISTIC_LATENCY_MS) / stageMedian(4, REALISTIC_LATENCY_MS), 2),
        overhead_ms_per_job_p50: sequential.overhead_ms_p50,
        overhead_ms_per_job_p95: sequential.overhead_ms_p95,
        overhead_ms_per_job_saturated_p50: concurrent.overhead_ms_p50,
        overhead_ms_per_job_saturated_p95: concurrent.overhead_ms_p95,
        recovery_s_p50: roundOrNull(percentile(recovered, 0.5), 2),
        recovery_s_p95: roundOrNull(percentile(recovered, 0.95), 2),
        runs: integrity.length,
        lost_updates: integrity.reduce((sum, run) => sum + run.missing_areas.length + run.missing_insights.length, 0),
        duplicated_steps: integrity.reduce((sum, run) => sum + run.duplicated_step_numbers + run.step_gaps, 0),
        targets: TARGETS,
        definitions: {
          speedup_4_workers:
            'median stage_wall_ms with 1 process consuming analyze-area,verify / median with 4 processes (same batch size, interleaved 1,4,1,4,1,4; everything else on one other process; simulator latency 300 ms; each set of processes first runs a warm-up batch to completion). stage_wall_ms: queue analyze-area is paused while the batch explores; from its resume (every run in phase analysis, all its area jobs waiting) to the largest updated_at among the first run documents (polled every 100 ms) that show every area settled and every insight validated.',
          speedup_4_workers_cpu_ceiling:
            'median over the one-worker stages at 300 ms of stage_wall / (CPU seconds of every fleet process, PostgreSQL and Redis over the stage / cores): the speedup no number of workers can beat on this machine if the fleet keeps doing that much CPU work; four workers do more of it, not less.',
          speedup_4_workers_at_3s:
            'as speedup_4_workers, one pair (1 then 4 processes) with the simulator at 3,000 ms, a latency closer to real analysis calls.',
          overhead_ms_per_job:
            'zero simulator latency, control + explore + 2 analyze processes, one run at a time, so a job never waits for a free slot; jobs of index, explore, verify and recommend that ran exactly once (attemptsStarted 1, no stall, no retry, no waiting-children): BullMQ finishedOn - timestamp (enqueue to end) minus the handler time the worker logged for the job ("job completed" durationMs, measured around the handler). It is queue_to_start (processedOn - timestamp: dispatch) plus completion (finishedOn - processedOn - handler).',
          overhead_ms_per_job_saturated:
            'the same with a batch of runs started at once: the 2 cores are saturated, so queue_to_start is mostly waiting for a free slot (capacity, not per-job cost); reported as overhead.concurrent.',
          recovery_s:
            'a worker process holding jobs of explore, analyze-area or verify is SIGKILLed at a random moment (seeded), a replacement started; per job it held: seconds from the kill until the same job id is processed again by another worker process (BullMQ processedOn after the kill, processedBy another worker: each worker runs with a host name of its own). Product defaults: lock 15 s, stalled check 10 s.',
          lost_updates:
            'over every run of the bench: pack areas missing from the run document or from its stored result, plus insight ids an area lists that are missing from the area or from the stored result.',
          duplicated_steps:
            'over every run of the bench: exploration steps stored twice under one number, plus gaps in 1..highest step, plus any difference between steps_completed and the distinct steps stored.',
        },
        settings: {
          machine: { cpus: cpus().length, node: process.version },
          workers_from: workersFrom,
          pack: PACK,
          demo_scale: DEMO_SCALE,
          max_steps: MAX_STEPS,
          model: MODEL,
          simulator_latency_ms: SIMULATOR_LATENCY_MS,
          lock_duration_ms: LLM_WORKER_DEFAULTS.lockDurationMs,
          stalled_interval_ms: LLM_WORKER_DEFAULTS.stalledIntervalMs,
          max_stalled_count: LLM_WORKER_DEFAULTS.maxStalledCount,
          worker_concurrency: Object.fromEntries(QUEUE_NAMES.map((name) => [name, queueContract(name).worker.concurrency])),
          topology: {
            speedup: { other: OTHER_QUEUES, analyze: ANALYZE_QUEUES },
            overhead: { control: CONTROL_QUEUES, explore: EXPLORE_QUEUES, 'analyze ×2': ANALYZE_QUEUES },
            recovery: { control: CONTROL_QUEUES, 'explore ×2': EXPLORE_QUEUES, 'analyze ×2': ANALYZE_QUEUES },
          },
          vector_index: 'embedded, in the data dir every process shares (no Qdrant here); index jobs on one process',
          seed,
          hostname_isolation: recovery.isolated,
        },
        speedup: {
          runs_per_batch: SPEEDUP_RUNS,
          stage_wall_ms_median: { '1': stageMedian(1), '4': stageMedian(4) },
          stages,
        },
        overhead: { concurrent, sequential },
        recovery: {
          runs: recovery.runs,
          kills: recovery.kills.map((kill) => ({
            pool: kill.pool,
            victim: kill.victim,
            at_s: kill.at_s,
            held: kill.held.map((held) => `${held.queue}/${held.id}`),
          })),
          samples: recovery.samples,
          recovered: recovered.length,
          max_s: recovered.length > 0 ? Math.max(...recovered) : null,
        },
        integrity: {
          not_completed: integrity.filter((run) => run.status !== 'completed').map((run) => `${run.run_id} ${run.status}`),
          unvalidated_insights: integrity.reduce((sum, run) => sum + run.unvalidated_insights, 0),
          repeated_exploration_calls: integrity.reduce((sum, run) => sum + run.repeated_exploration_calls, 0),
          run_types: Object.fromEntries(
            [...new Set(integrity.map((run) => run.run_type ?? 'none'))].map((type) => [
              type,
              integrity.filter((run) => (run.run_type ?? 'none') === type).length,
            ]),
          ),
          problems: integrity.filter(
            (run) => run.missing_areas.length + run.missing_insights.length + run.duplicated_step_numbers + run.step_gaps > 0,
          ),
        },
        bench_wall_s: 0,
      };
      result.bench_wall_s = round((Date.now() - benchStarted) / 1_000, 1);
      printTables(result, stages, concurrent, sequential, recovery);
      process.stdout.write(`wrote ${writeBenchResult('fleet', result)} (bench wall ${result.bench_wall_s} s)\n`);
    } catch (error) {
      if (!(error instanceof Unavailable)) throw error;
      process.stdout.write(`${error.message}\n`);
    } finally {
      await cleanUp();
      removeSignalHandlers();
    }
  },
};
