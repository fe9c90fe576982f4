/**
 * Starts one BullMQ Worker per consumed queue and wraps every processor the same way: the payload
 * parsed by the queue's zod schema at the boundary, a pino child logger bound to
 * `{ queue, jobId, runId }`, timing, one classification of failures (retry, fail now, queue-wide
 * rate-limit pause, cancelled, hand-over on shutdown, lock lost), and `failed`/`error`/`stalled`/
 * `lockRenewalFailed` listeners.
 */
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { coordinatorQueue, queueContract, type QueueContract, type QueueName, type WorkerDefaults } from '../queues/index.js';
import { type ProjectClients, ProjectClientsUnavailableError } from '../../../project-clients.js';
import { finalizeRun } from '../../../discovery/phases/finalize.js';
import { classifyStageError, failureAfterAttempts } from '../../../discovery/pipeline/index.js';
import type { DiscoveryDeps } from '../../../discovery/context.js';
import { workerConnectionOptions } from '../connection.js';
import type { QueueSet } from '../queue-set.js';
import { childLogger, type Logger } from '../../../logging/index.js';
import { RATE_LIMIT_WAITS_KEY, classifyJobFailure, jobGoneFromRedis, rateLimitWaitsOf } from './job-errors.js';
import { handlerFor } from './handlers.js';

/**
 * BullMQ only honours a manual `worker.rateLimit()` on a queue that has a limiter; this one is far
 * above any real job rate, so it never throttles by itself and only carries provider 429 pauses.
 */
const LLM_QUEUE_LIMITER = { max: 10_000, duration: 1_000 };
/** The abort reasons shown in logs; the registry tells a shutdown or a lost lock from a cancellation by its own flags. */
const SHUTDOWN_REASON = 'worker shutting down';
const LOCK_LOST_REASON = "the job's lock could not be renewed";

export interface WorkerRegistryOptions {
  redisUrl: string;
  /** Key prefix of every queue (config `fleet.queuePrefix`). */
  prefix: string;
  queues: readonly QueueName[];
  deps: DiscoveryDeps;
  /** Per-project ports: each job runs on the warehouse and models of its run's project. Without it every job uses `deps`. */
  clients?: Pick<ProjectClients, 'withRun'>;
  /** Producers for the children jobs add. */
  producer: QueueSet;
  logger: Logger;
  /** Jobs in flight per queue, overriding each queue's default. */
  concurrency?: number;
  /** Lock and stall settings for every queue (tests shorten them to recover crashed jobs quickly). */
  workerOverrides?: Partial<Omit<WorkerDefaults, 'callsLlm'>>;
  /** Identifies this process on each job (`job.processedBy`); defaults to BullMQ's own. */
  workerName?: string;
}

export interface WorkerRegistry {
  readonly workers: ReadonlyMap<QueueName, Worker>;
  /** Aborts this process's in-flight jobs of a run; returns how many. */
  abortRun(runId: string): number;
  /** Every worker is running and not closing. */
  isReady(): boolean;
  /** Stops fetching, aborts in-flight jobs (they go back to `wait` for other workers), closes within `timeoutMs`. */
  shutdown(timeoutMs: number): Promise<{ timedOut: boolean }>;
}

interface ActiveJob {
  runId: string;
  queue: QueueName;
  /** Aborted by BullMQ's own signal (shutdown), a cancellation of the run, or the loss of the job's lock. */
  controller: AbortController;
  /** BullMQ could not renew the job's lock, or the same job id was delivered here again: the job is no longer ours. */
  lockLost: boolean;
}

export async function startWorkerRegistry(options: WorkerRegistryOptions): Promise<WorkerRegistry> {
  const workers = new Map<QueueName, Worker>();
  const active = new Map<string, ActiveJob>();
  let shuttingDown = false;

  /** The job is no longer this process's (its lock is gone): abort it; it will be neither finished nor failed from here. */
  function abandon(entry: ActiveJob): void {
    if (entry.lockLost) return;
    entry.lockLost = true;
    entry.controller.abort(LOCK_LOST_REASON);
  }

  function processorFor(contract: QueueContract, getWorker: () => Worker) {
    const handle = handlerFor(contract.name as QueueName);
    // three declared parameters: BullMQ only creates the per-job AbortSignal for processors that take one
    return async (job: Job, token: string | undefined, signal: AbortSignal | undefined): Promise<unknown> => {
      const parsed = contract.payload.safeParse(job.data);
      if (!parsed.success)
        throw new UnrecoverableError(
          `invalid ${contract.name} payload: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
        );
      if (!token || !signal || !job.id)
        throw new UnrecoverableError(`${contract.name} job started without a lock token, abort signal or id`);
      const payload = parsed.data as { runId: string };
      const logger = childLogger(options.logger, { queue: contract.name, jobId: job.id, runId: payload.runId });
      const handOver = async (durationMs: number): Promise<never> => {
        logger.info({ durationMs }, 'job handed back to the queue: this worker is shutting down');
        await job.moveToWait(token);
        throw new WaitingError();
      };
      // the job belongs to whoever holds its lock now (or, if Redis lost it, to the stuck-run reconciler):
      // finishing or failing it from here would only fail against Redis, so BullMQ is told to leave it
      const leaveLostJob = (durationMs: number): never => {
        logger.warn(
          { durationMs },
          'job abandoned: its lock could not be renewed (Redis lost it, or another worker took the job over as stalled)',
        );
        throw new WaitingError();
      };
      // a fetch already blocked in Redis when shutdown began can still deliver a job (even the one just handed back): never start it here
      if (shuttingDown) return handOver(0);
      const started = performance.now();
      const attempt = job.attemptsMade + 1;
      // Redis hands out a job id to one holder at a time: if this process still runs an earlier delivery of
      // it (Redis lost the job and it was added again), that one has lost its lock. BullMQ tracks locks by
      // job id, so it would not notice: abandon the earlier one here.
      const earlier = active.get(job.id);
      if (earlier) abandon(earlier);
      const entry: ActiveJob = {
        runId: payload.runId,
        queue: contract.name as QueueName,
        controller: new AbortController(),
        lockLost: false,
      };
      const forwardAbort = () => entry.controller.abort(signal.reason);
      if (signal.aborted) forwardAbort();
      else signal.addEventListener('abort', forwardAbort, { once: true });
      active.set(job.id, entry);
      try {
        const run = (deps: DiscoveryDeps) =>
          handle({ job, token, signal: entry.controller.signal, payload, deps: { ...deps, logger }, logger, queues: options.producer });
        const result = await (options.clients ? options.clients.withRun(payload.runId, run) : run(options.deps));
        if (entry.lockLost) return leaveLostJob(Math.round(performance.now() - started));
        logger.info({ durationMs: Math.round(performance.now() - started), attempt }, 'job completed');
        return result;
      } catch (error) {
        // through the one classifier: final (a missing secret, a refused login) ends the run now; anything
        // else (an unreachable warehouse) is retried like any job
        if (error instanceof ProjectClientsUnavailableError && classifyStageError(error).kind === 'final') {
          // every job of this run would fail the same way until an operator acts: end the run now, saying why
          logger.error({ err: error }, "the run's project connections cannot be opened: failing the run");
          await finalizeRun(options.deps, payload.runId, { fatalError: error.message });
          return { runId: payload.runId, failed: true, reason: error.message };
        }
        const rateLimitWaits = rateLimitWaitsOf(job.data);
        const failure = classifyJobFailure(error, {
          shuttingDown,
          aborted: entry.controller.signal.aborted,
          lockLost: entry.lockLost,
          rateLimitWaits,
        });
        const durationMs = Math.round(performance.now() - started);
        switch (failure.action) {
          case 'control':
            throw error;
          case 'cancelled':
            logger.info({ durationMs, reason: failure.reason }, 'job cancelled');
            return { runId: payload.runId, cancelled: true, reason: failure.reason };
          case 'hand_over':
            return handOver(durationMs);
          case 'lock_lost':
            return leaveLostJob(durationMs);
          case 'rate_limited':
            logger.warn(
              { durationMs, pauseMs: failure.pauseMs, rateLimitWaits: rateLimitWaits + 1 },
              'provider rate limit: pausing the queue',
            );
            // counted before the pause, in Redis with the job: a worker killed now leaves the count to the next one
            await job.updateData({ ...job.data, [RATE_LIMIT_WAITS_KEY]: rateLimitWaits + 1 });
            await getWorker().rateLimit(failure.pauseMs);
            throw Worker.RateLimitError();
          case 'unrecoverable':
            throw new UnrecoverableError(failure.reason);
          case 'retry':
            // the last attempt records what the in-process runner records when its attempts run out
            if (attempt >= (job.opts.attempts ?? 1)) throw new Error(failureAfterAttempts(failure.reason, attempt), { cause: error });
            throw error;
        }
      } finally {
        signal.removeEventListener('abort', forwardAbort);
        if (active.get(job.id) === entry) active.delete(job.id);
      }
    };
  }

  for (const name of options.queues) {
    const contract = queueContract(name);
    const settings = { ...contract.worker, ...options.workerOverrides };
    const logger = childLogger(options.logger, { queue: name });
    let worker: Worker | undefined;
    const getWorker = () => worker!;
    worker = new Worker(name, processorFor(contract, getWorker), {
      connection: workerConnectionOptions(options.redisUrl),
      prefix: options.prefix,
      concurrency: options.concurrency ?? settings.concurrency,
      lockDuration: settings.lockDurationMs,
      stalledInterval: settings.stalledIntervalMs,
      maxStalledCount: settings.maxStalledCount,
      ...(contract.worker.callsLlm ? { limiter: LLM_QUEUE_LIMITER } : {}),
      ...(options.workerName ? { name: options.workerName } : {}),
    });
    worker.on('failed', (job, error) => {
      const final = job === undefined || error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
      const bindings = {
        jobId: job?.id,
        runId: (job?.data as { runId?: string } | undefined)?.runId,
        attempts: job?.attemptsMade,
        err: error,
      };
      if (final) logger.error(bindings, 'job failed for good');
      else logger.warn(bindings, 'job failed; it will be retried');
    });
    worker.on('error', (error) => {
      const gone = jobGoneFromRedis(error);
      // the lock renewal's failure is handled (and logged) by `lockRenewalFailed` below
      if (gone?.operation === 'renew_lock') logger.debug(gone, 'lock renewal failed');
      else if (gone)
        logger.warn(
          gone,
          'job gone from Redis before this worker could finish it (Redis lost its data, or the job was removed): nothing left to finish here; a run it leaves stuck is re-enqueued by the stuck-run reconciler',
        );
      else logger.error({ err: error }, 'worker error');
    });
    worker.on('stalled', (jobId) => logger.warn({ jobId }, 'job stalled (its lock expired): moved back to wait for another worker'));
    // a job whose lock is gone will run again elsewhere: stop spending tokens and warehouse time on it here
    worker.on('lockRenewalFailed', (jobIds) => {
      for (const jobId of jobIds) {
        const entry = active.get(jobId);
        if (entry?.queue === name) abandon(entry);
      }
    });
    workers.set(name, worker);
  }
  await Promise.all([...workers.values()].map((worker) => worker.waitUntilReady()));
  options.logger.info({ queues: options.queues, prefix: options.prefix }, 'workers started');

  return {
    workers,
    abortRun(runId) {
      let aborted = 0;
      for (const job of active.values()) {
        // the coordinator spends no tokens: it sees the cancelled run itself and finalizes it
        if (job.runId !== runId || job.queue === coordinatorQueue.name || job.controller.signal.aborted) continue;
        job.controller.abort(`run ${runId} cancelled`);
        aborted++;
      }
      if (aborted > 0) options.logger.info({ runId, aborted }, "aborted the cancelled run's jobs");
      return aborted;
    },
    isReady() {
      return !shuttingDown && [...workers.values()].every((worker) => worker.isRunning());
    },
    async shutdown(timeoutMs) {
      shuttingDown = true;
      // stop fetching first, then abort: an aborted job is handed back before its worker closes
      const closing = Promise.allSettled([...workers.values()].map((worker) => worker.close()));
      for (const worker of workers.values()) worker.cancelAllJobs(SHUTDOWN_REASON);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        closing.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      // jobs that did not hand back in time are recovered by another worker's stalled check
      if (timedOut)
        options.logger.warn(
          { timeoutMs, stillActive: [...active.keys()] },
          'shutdown timed out; unfinished jobs will be recovered as stalled',
        );
      else options.logger.info('workers closed');
      return { timedOut };
    },
  };
}
