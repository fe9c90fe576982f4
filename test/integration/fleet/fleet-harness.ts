/**
 * The fleet under test: real BullMQ queues on a real redis-server (fresh random key prefix per
 * fleet, obliterated after), the real worker registry and launcher, and real discovery ports from
 * the engine harness around a scripted model.
 */
import { randomBytes } from 'node:crypto';
import { type DefaultJobOptions, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAMES, type QueueName, type WorkerDefaults } from '../../../src/fleet/bullmq/queues/index.js';
import type { Run } from '../../../src/domain/index.js';
import { subscribeToCancellations } from '../../../src/fleet/bullmq/cancellation.js';
import { openProducerConnection, openSubscriberConnection } from '../../../src/fleet/bullmq/connection.js';
import { createBullmqLauncher } from '../../../src/fleet/bullmq/launcher.js';
import { createQueueSet, type QueueSet } from '../../../src/fleet/bullmq/queue-set.js';
import type { OfflineBrain } from '../../../src/llm/providers/offline.js';
import type { ProjectClients } from '../../../src/project-clients.js';
import { createLogger, silentLogger } from '../../../src/logging/index.js';
import { startWorkerRegistry, type WorkerRegistry } from '../../../src/fleet/bullmq/workers/registry.js';
import { createHarness, type Harness, type HarnessOptions } from '../../support/engine-harness.js';

/** Retries a test can wait for: three attempts 50 ms apart instead of seconds of exponential backoff. */
const FAST_RETRIES = { attempts: 3, backoff: { type: 'fixed', delay: 50 } } as const;

export interface FleetWorkersOptions {
  queues?: readonly QueueName[];
  workerOverrides?: Partial<Omit<WorkerDefaults, 'callsLlm'>>;
  workerName?: string;
  /** Per-project connection sets, as `assay worker` opens them; without it every job runs on the harness's ports. */
  clients?: ProjectClients;
}

export interface Fleet {
  harness: Harness;
  prefix: string;
  launcher: ReturnType<typeof createBullmqLauncher>;
  producer: QueueSet;
  /** The producers' connection (as `assay worker` has one): fails fast while Redis is away, reconnects after. */
  connection: Redis;
  startWorkers(options?: FleetWorkersOptions): Promise<WorkerRegistry>;
  waitForRunEnd(runId: string, timeoutMs?: number): Promise<Run>;
  /**
   * Resolves once the job has left `active` (completed or failed), on BullMQ's own events: a run's
   * document is written before its job returns, so the run's end does not mean the job's.
   */
  waitForJobEnd(queue: QueueName, jobId: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function createFleet(
  redisUrl: string,
  brain: OfflineBrain,
  options: {
    wrapStore?: (harness: Harness) => void;
    harness?: HarnessOptions;
    /** Merged over every queue's job options instead of FAST_RETRIES (e.g. the contract's attempts with a short backoff). */
    jobOptionOverrides?: DefaultJobOptions;
  } = {},
): Promise<Fleet> {
  const harness = await createHarness(brain, options.harness);
  options.wrapStore?.(harness);
  const prefix = `test-${randomBytes(4).toString('hex')}`;
  const connection: Redis = openProducerConnection(redisUrl);
  const producer = createQueueSet({ connection, prefix, jobOptionOverrides: options.jobOptionOverrides ?? FAST_RETRIES });
  const launcher = createBullmqLauncher({ store: harness.deps.store, prefix, connection });
  const registries: WorkerRegistry[] = [];
  const subscribers: Redis[] = [];

  return {
    harness,
    prefix,
    launcher,
    producer,
    connection,
    async startWorkers(workerOptions = {}) {
      const registry = await startWorkerRegistry({
        redisUrl,
        prefix,
        queues: workerOptions.queues ?? QUEUE_NAMES,
        deps: harness.deps,
        producer,
        logger: process.env.FLEET_DEBUG ? createLogger({ level: 'debug', format: 'json' }) : silentLogger,
        ...(workerOptions.workerOverrides ? { workerOverrides: workerOptions.workerOverrides } : {}),
        ...(workerOptions.workerName ? { workerName: workerOptions.workerName } : {}),
        ...(workerOptions.clients ? { clients: workerOptions.clients } : {}),
      });
      const subscriber = openSubscriberConnection(redisUrl);
      await subscribeToCancellations(subscriber, prefix, (runId) => registry.abortRun(runId), silentLogger);
      registries.push(registry);
      subscribers.push(subscriber);
      return registry;
    },
    async waitForRunEnd(runId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await harness.deps.store.getRun(runId);
        if (run?.phase === 'complete') return run;
        if (Date.now() > deadline)
          throw new Error(
            `run ${runId} did not finish within ${timeoutMs} ms (status ${run?.status}, phase ${run?.phase}, ${run?.phase_detail})`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async waitForJobEnd(queue, jobId, timeoutMs = 10_000) {
      const job = await producer.queue(queue).getJob(jobId);
      if (!job) throw new Error(`no ${queue} job ${jobId}`);
      const subscriber = openSubscriberConnection(redisUrl);
      const events = new QueueEvents(producer.queue(queue).name, { connection: subscriber, prefix });
      try {
        await events.waitUntilReady();
        // checks the job's state after subscribing, so a job that already finished resolves at once
        await job.waitUntilFinished(events, timeoutMs).catch((error: unknown) => {
          // a failed job also ended; only the timeout is an error here
          if (String(error).includes('timed out')) throw error;
        });
      } finally {
        await events.close();
        subscriber.disconnect();
      }
    },
    async close() {
      await Promise.all(registries.map((registry) => registry.shutdown(2_000)));
      await Promise.all(subscribers.map((subscriber) => subscriber.quit()));
      for (const name of QUEUE_NAMES) await producer.queue(name).obliterate({ force: true });
      await producer.close();
      await launcher.close();
      await connection.quit();
      await harness.close();
    },
  };
}
