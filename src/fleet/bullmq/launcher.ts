/**
 * The fleet's RunLauncher: a run starts as one coordinator job (job id = run id) and is cancelled
 * through the store, a fleet-wide abort of its in-flight jobs, and removal of its jobs still waiting.
 */
import type { Redis } from 'ioredis';
import { COORDINATOR_JOB, QUEUE_NAMES, coordinatorPayloadSchema, coordinatorQueue, type QueueName } from './queues/index.js';
import { UnavailableError, describeError } from '../../errors/index.js';
import { silentLogger, type Logger } from '../../logging/index.js';
import type { RunStore } from '../../store/port.js';
import type { RunLauncher } from '../port.js';

/** How long starting a run waits for Redis before answering that the queue is unavailable. */
export const ENQUEUE_TIMEOUT_MS = 5_000;
import { publishCancellation } from './cancellation.js';
import { openProducerConnection } from './connection.js';
import { createQueueSet, type QueueSet } from './queue-set.js';

/** Jobs of other runs scanned per queue and state when removing a cancelled run's waiting jobs. */
const CANCEL_SCAN_LIMIT = 2_000;
const PENDING_STATES = ['waiting', 'delayed', 'prioritized'] as const;

export interface BullmqLauncherOptions {
  store: RunStore;
  /** Key prefix of every queue (config `fleet.queuePrefix`). */
  prefix: string;
  /** Either a URL (the launcher opens and closes its own fail-fast connection) or a connection it borrows. */
  redisUrl?: string;
  connection?: Redis;
  logger?: Logger;
}

/** Removes the run's jobs that have not started; a removed last child releases its parent. Returns how many. */
async function removePendingJobs(queues: QueueSet, runId: string, logger: Logger): Promise<number> {
  let removed = 0;
  const names = QUEUE_NAMES.filter((name): name is Exclude<QueueName, 'coordinator'> => name !== coordinatorQueue.name);
  for (const name of names) {
    const jobs = await queues.queue(name).getJobs([...PENDING_STATES], 0, CANCEL_SCAN_LIMIT - 1);
    for (const job of jobs) {
      if ((job.data as { runId?: unknown } | undefined)?.runId !== runId || !job.id) continue;
      try {
        removed += (await queues.queue(name).remove(job.id)) === 1 ? 1 : 0;
      } catch (error) {
        // a job a worker has just taken is locked: it checks the run's status before spending tokens
        logger.debug({ runId, queue: name, jobId: job.id, err: error }, 'could not remove a pending job');
      }
    }
  }
  return removed;
}

export function createBullmqLauncher(options: BullmqLauncherOptions): RunLauncher & { readonly queues: QueueSet } {
  if (!options.connection && !options.redisUrl) throw new TypeError('createBullmqLauncher needs a redisUrl or a connection');
  const ownsConnection = !options.connection;
  const connection = options.connection ?? openProducerConnection(options.redisUrl!);
  const queues = createQueueSet({ connection, prefix: options.prefix });
  const logger = options.logger ?? silentLogger;
  if (ownsConnection) {
    // one line per outage, not one per reconnect attempt (ioredis prints unhandled errors otherwise)
    let down = false;
    connection.on('error', (error: Error) => {
      if (!down) logger.warn({ err: describeError(error) }, 'Redis is unreachable: new runs are refused until it returns');
      down = true;
    });
    connection.on('ready', () => {
      if (down) logger.info('Redis is reachable again');
      down = false;
    });
  }

  return {
    queues,
    async launch(runId) {
      const payload = coordinatorPayloadSchema.parse({ runId });
      let timer: NodeJS.Timeout | undefined;
      try {
        // BullMQ waits for a reconnecting client instead of failing: bound the wait, an API request must not hang
        const timeout = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
        });
        await Promise.race([
          queues.queue(coordinatorQueue.name).add(COORDINATOR_JOB, payload, { jobId: coordinatorQueue.jobId(payload) }),
          timeout,
        ]);
      } catch (error) {
        // the producer connection fails fast while Redis is away: say so instead of an internal error
        throw new UnavailableError(`the job queue (Redis) is unreachable, so run ${runId} was not started: try again shortly`, {
          cause: error,
        });
      } finally {
        clearTimeout(timer);
      }
      logger.info({ runId, queue: coordinatorQueue.name }, 'run launched');
    },
    async cancel(runId) {
      const run = await options.store.updateRun(runId, (current) =>
        current.status === 'pending' || current.status === 'running'
          ? { ...current, status: 'cancelled', error: current.error ?? 'cancelled' }
          : current,
      );
      if (run.status !== 'cancelled') {
        logger.info({ runId, status: run.status }, 'run already finished: nothing to cancel');
        return;
      }
      await publishCancellation(connection, options.prefix, runId);
      try {
        const removed = await removePendingJobs(queues, runId, logger);
        logger.info({ runId, removed }, 'run cancelled');
      } catch (error) {
        // removal only saves work: a job that still starts sees the cancelled run and completes at once
        logger.warn({ runId, err: describeError(error) }, 'run cancelled; its waiting jobs could not be removed');
      }
    },
    async ping() {
      await connection.ping();
    },
    async close() {
      await queues.close();
      if (ownsConnection) await connection.quit();
    },
  };
}
