/** Phase 3 of the fleet bench: how long a job held by a SIGKILLed worker takes to run again elsewhere. */
import { Job } from 'bullmq';
import type { QueueName } from '../../../src/fleet/bullmq/queues/index.js';
import { isTerminal } from '../../../src/domain/index.js';
import { ProcessGroup, type WorkerHandle } from '../../support/fleet-processes.js';
import { round } from '../bench.js';
import {
  CONTROL_QUEUES,
  KILLABLE_QUEUES,
  KILL_GAP_MS,
  PHASE_OF_QUEUE,
  POOLS,
  type PoolName,
  RECOVERY_GIVE_UP_MS,
  RECOVERY_KILLS,
  RECOVERY_RUNS,
  RECOVERY_STAGGER_MS,
  RECOVERY_WINDOW_MS,
} from './settings.js';
import { type Bed, analysisSettled, createProjects, discover, queueOf, readRuns, startWorkerIn, waitForCompletion } from './bed.js';
import { sleep } from './measures.js';

export interface HeldJob {
  queue: QueueName;
  id: string;
  run_id: string;
  processed_on: number;
  attempts_started: number;
  stalled_counter: number;
}

export interface Kill {
  pool: PoolName;
  victim: string;
  killed_at: number;
  /** Seconds since the recovery batch started. */
  at_s: number;
  held: HeldJob[];
}

export interface RecoverySample {
  /** Index of the kill in `recovery.kills`. */
  kill: number;
  victim: string;
  queue: QueueName;
  phase: string;
  job_id: string;
  outcome: 'recovered' | 'failed' | 'not_recovered' | 'vanished' | 'finished_before_kill' | 'not_held';
  recovery_s: number | null;
  /** The worker now processing it. */
  taken_by: string | null;
  /** The job had been re-entered again before it was seen (an analyze-area gather): the time is an upper bound. */
  upper_bound: boolean;
}

export async function activeJobs(bed: Bed): Promise<Array<HeldJob & { processed_by: string | undefined }>> {
  const active = [];
  for (const name of KILLABLE_QUEUES) {
    for (const job of await queueOf(bed, name).getJobs(['active'], 0, -1)) {
      if (job.id === undefined || job.processedOn === undefined) continue;
      active.push({
        queue: name,
        id: job.id,
        run_id: (job.data as { runId?: string }).runId ?? '',
        processed_on: job.processedOn,
        attempts_started: job.attemptsStarted,
        stalled_counter: job.stalledCounter,
        processed_by: job.processedBy,
      });
    }
  }
  return active;
}

/**
 * Follows every job a killed worker held, from the moment of the kill (every 100 ms), until it is
 * processing again elsewhere (or settles otherwise): read later, a job recovered and then caught by
 * another kill, or an area job re-entered for its gather, would show a later `processedOn`.
 */
export interface RecoveryTracker {
  add(kill: Kill, number: number): void;
  /** Resolves once every job added has settled one way or another. */
  finish(): Promise<RecoverySample[]>;
  /** Stops following (on an error of the bench). */
  stop(): void;
}

export function trackRecoveries(bed: Bed, isolated: boolean): RecoveryTracker {
  const pending: Array<{ kill: Kill; number: number; held: HeldJob }> = [];
  const samples: RecoverySample[] = [];
  let closing = false;
  const classify = async ({ kill, number, held }: (typeof pending)[number]): Promise<RecoverySample | undefined> => {
    const job = await Job.fromId(queueOf(bed, held.queue), held.id);
    const base = {
      kill: number,
      victim: kill.victim,
      queue: held.queue,
      phase: PHASE_OF_QUEUE[held.queue] ?? held.queue,
      job_id: held.id,
    };
    let sample: RecoverySample | undefined;
    const startedAgain =
      job?.processedOn !== undefined &&
      job.processedOn > kill.killed_at &&
      (isolated ? job.processedBy !== kill.victim : job.stalledCounter > held.stalled_counter);
    if (!job) sample = { ...base, outcome: 'vanished', recovery_s: null, taken_by: null, upper_bound: false };
    else if (startedAgain)
      sample = {
        ...base,
        outcome: 'recovered',
        recovery_s: round(((job.processedOn as number) - kill.killed_at) / 1_000, 2),
        taken_by: job.processedBy ?? null,
        upper_bound: job.attemptsStarted > held.attempts_started + 1,
      };
    else if (job.finishedOn !== undefined && job.finishedOn <= kill.killed_at)
      sample = { ...base, outcome: 'finished_before_kill', recovery_s: null, taken_by: null, upper_bound: false };
    else if (job.finishedOn !== undefined && job.failedReason)
      sample = { ...base, outcome: 'failed', recovery_s: null, taken_by: job.processedBy ?? null, upper_bound: false };
    else if (job.finishedOn !== undefined)
      // without host names of their own, a job finished without a stall was held by a survivor
      sample = { ...base, outcome: 'not_held', recovery_s: null, taken_by: job.processedBy ?? null, upper_bound: false };
    else if (Date.now() - kill.killed_at > RECOVERY_GIVE_UP_MS)
      sample = { ...base, outcome: 'not_recovered', recovery_s: null, taken_by: null, upper_bound: false };
    return sample;
  };
  const loop = (async () => {
    while (!closing || pending.length > 0) {
      for (const entry of [...pending]) {
        const sample = await classify(entry);
        if (sample) {
          samples.push(sample);
          pending.splice(pending.indexOf(entry), 1);
        }
      }
      await sleep(100);
    }
  })();
  let failure: unknown;
  loop.catch((error: unknown) => (failure = error));
  return {
    add(kill, number) {
      if (failure) throw failure;
      pending.push(...kill.held.map((held) => ({ kill, number, held })));
    },
    async finish() {
      closing = true;
      await loop;
      return samples.sort((left, right) => left.kill - right.kill);
    },
    stop() {
      closing = true;
      pending.splice(0);
    },
  };
}

export async function measureRecovery(
  bed: Bed,
  random: () => number,
): Promise<{ runs: number; isolated: boolean; kills: Kill[]; samples: RecoverySample[] }> {
  const group = new ProcessGroup();
  const env = bed.env(bed.slowSimulator);
  const pools: Record<PoolName, WorkerHandle[]> = { explore: [], analyze: [] };
  const addMember = async (pool: PoolName) => {
    const handle = await startWorkerIn(bed, group, pool, POOLS[pool], env);
    pools[pool].push(handle);
    return handle;
  };
  let tracker: RecoveryTracker | undefined;
  try {
    const [control] = await Promise.all([
      startWorkerIn(bed, group, 'control', CONTROL_QUEUES, env),
      addMember('explore'),
      addMember('explore'),
      addMember('analyze'),
      addMember('analyze'),
    ]);
    const isolated = control.isolated;
    const projects = await createProjects(bed, 'recovery', RECOVERY_RUNS);
    const runIds: string[] = [];
    const batchStarted = Date.now();
    const starting = (async () => {
      for (const project of projects) {
        runIds.push(await discover(bed, project));
        await sleep(RECOVERY_STAGGER_MS);
      }
    })();
    let startFailure: unknown;
    starting.catch((error: unknown) => (startFailure = error));
    const kills: Kill[] = [];
    tracker = trackRecoveries(bed, isolated);
    const replacements: Promise<unknown>[] = [];
    while (kills.length < RECOVERY_KILLS && Date.now() - batchStarted < RECOVERY_WINDOW_MS) {
      if (startFailure) throw startFailure;
      await sleep(KILL_GAP_MS.min + random() * (KILL_GAP_MS.max - KILL_GAP_MS.min));
      const active = await activeJobs(bed);
      const holding = (pool: PoolName) =>
        pools[pool]
          .filter((member) => member.process.isRunning())
          .map((member) => ({
            member,
            held: active.filter((job) => POOLS[pool].includes(job.queue) && (!isolated || job.processed_by === member.hostname)),
          }))
          .filter((candidate) => candidate.held.length > 0);
      // alternate between the pools, so exploration and analysis/verification are both hit
      const preferred: PoolName = kills.length % 2 === 0 ? 'explore' : 'analyze';
      const order: PoolName[] = [preferred, preferred === 'explore' ? 'analyze' : 'explore'];
      const pool = order.find((name) => holding(name).length > 0);
      if (!pool) {
        const runs = runIds.length === projects.length ? await readRuns(bed, runIds) : [];
        if (runs.length > 0 && runs.every((run) => analysisSettled(run) || isTerminal(run.status))) break;
        continue;
      }
      const candidates = holding(pool);
      const victim = candidates[Math.floor(random() * candidates.length)] as (typeof candidates)[number];
      const killedAt = Date.now();
      await victim.member.process.kill('SIGKILL');
      pools[pool] = pools[pool].filter((member) => member !== victim.member);
      kills.push({
        pool,
        victim: victim.member.hostname,
        killed_at: killedAt,
        at_s: round((killedAt - batchStarted) / 1_000, 1),
        held: victim.held.map(({ processed_by: _by, ...held }) => held),
      });
      tracker.add(kills.at(-1) as Kill, kills.length - 1);
      replacements.push(addMember(pool));
    }
    await starting;
    await Promise.all(replacements);
    const samples = await tracker.finish();
    await waitForCompletion(bed, runIds);
    return { runs: runIds.length, isolated, kills, samples };
  } finally {
    tracker?.stop();
    await group.stopAll();
  }
}
