/**
 * A worker process: consumes the queues chosen by config (`ASSAY_WORKER_QUEUES`, or `--queues`),
 * all sharing one runtime (ports composed once from config), one producer connection for adding
 * children, and one subscription to fleet-wide cancellations. SIGTERM/SIGINT abort in-flight jobs
 * (they return to `wait` for another pod), close the workers within the shutdown timeout (keep it
 * below the pod's grace period), then exit.
 */
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { maintenanceQueue, parseQueueSelection } from '../queues/index.js';
import { sweepRunCollections } from '../../../discovery/phases/maintenance.js';
import { composeRuntime } from '../../../composition.js';
import type { AssayConfig } from '../../../config/index.js';
import { subscribeToCancellations } from '../cancellation.js';
import { assertRedisReachable, openProducerConnection, openSubscriberConnection, reportConnectionErrors } from '../connection.js';
import { createQueueSet } from '../queue-set.js';
import type { Logger } from '../../../logging/index.js';
import { answersWithin, startHealthServer } from './health.js';
import { keepMaintenanceScheduled, scheduleMaintenance, type ScheduleKeeper } from './maintenance-schedules.js';
import { startWorkerRegistry, type WorkerRegistry } from './registry.js';

export interface WorkerProcessOptions {
  /** Comma-separated queues; overrides `fleet.queues`. */
  queues?: string;
  concurrency?: number;
  logger: Logger;
}

export interface WorkerProcess {
  registry: WorkerRegistry;
  /** The graceful shutdown sequence; safe to call more than once. */
  stop(): Promise<void>;
}

export async function startWorkerProcess(config: AssayConfig, options: WorkerProcessOptions): Promise<WorkerProcess> {
  const { logger } = options;
  const queues = parseQueueSelection(options.queues ?? config.fleet.queues);
  const prefix = config.fleet.queuePrefix;
  await assertRedisReachable(config.redisUrl);
  const runtime = await composeRuntime(config, { logger });
  const producerConnection = openProducerConnection(config.redisUrl);
  reportConnectionErrors(producerConnection, logger, 'producer');
  const producer = createQueueSet({ connection: producerConnection, prefix });
  const concurrency = options.concurrency ?? config.fleet.concurrency;
  // the pod name, so Bull Board and job records show which pod processed a job
  const workerOverrides = {
    ...(config.fleet.lockDurationMs === undefined ? {} : { lockDurationMs: config.fleet.lockDurationMs }),
    ...(config.fleet.stalledIntervalMs === undefined ? {} : { stalledIntervalMs: config.fleet.stalledIntervalMs }),
  };
  const registry = await startWorkerRegistry({
    redisUrl: config.redisUrl,
    prefix,
    queues,
    deps: runtime,
    clients: runtime.clients,
    producer,
    logger,
    workerName: hostname(),
    workerOverrides,
    ...(concurrency ? { concurrency } : {}),
  });
  let schedules: ScheduleKeeper | undefined;
  if (queues.includes(maintenanceQueue.name)) {
    await scheduleMaintenance(producer, config);
    // Redis may lose them later (FLUSHALL, a restart without persistence): checked on reconnection and periodically
    schedules = keepMaintenanceScheduled({ producer, connection: producerConnection, config, logger });
  }
  // a run killed before finalize left its collection behind: sweep once at start, then on the schedule
  await sweepRunCollections(runtime).catch((error: unknown) => logger.warn({ err: error }, 'start-up sweep of run collections failed'));
  const subscriber = openSubscriberConnection(config.redisUrl);
  reportConnectionErrors(subscriber, logger, 'cancellations');
  await subscribeToCancellations(subscriber, prefix, (runId) => registry.abortRun(runId), logger);
  let health: Server | undefined;
  const isReady = async () =>
    registry.isReady() &&
    (await answersWithin(() => producerConnection.ping())) &&
    (await answersWithin(() => runtime.store.getProject('readiness-probe')));
  if (config.fleet.healthPort > 0) health = await startHealthServer(config.fleet.healthPort, isReady);

  let stopping: Promise<void> | undefined;
  return {
    registry,
    stop() {
      stopping ??= (async () => {
        schedules?.stop();
        await registry.shutdown(config.fleet.shutdownTimeoutMs);
        await Promise.allSettled([subscriber.quit(), producer.close().then(() => producerConnection.quit()), runtime.close()]);
        await new Promise<void>((resolve) => (health ? health.close(() => resolve()) : resolve()));
      })();
      return stopping;
    },
  };
}

/** Runs until SIGTERM or SIGINT, then shuts down gracefully and exits. */
export async function runWorkerProcess(config: AssayConfig, options: WorkerProcessOptions): Promise<void> {
  const worker = await startWorkerProcess(config, options);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      options.logger.info({ signal }, 'shutting down');
      worker.stop().then(resolve, (error: unknown) => {
        options.logger.error({ err: error }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
}
