/**
 * The maintenance job schedulers (`reconcile-runs`, `sweep-collections`), kept in Redis by every process
 * that consumes `maintenance`. Redis can lose them with the rest of its data (FLUSHALL, a restart without
 * persistence, a failover to an empty replica), and without them nothing reconciles: runs whose jobs were
 * lost stay `running` forever. So they are upserted at start, checked again on every reconnection (the
 * connection's `ready`) and every `fleet.reconcileIntervalMs`, and re-created when missing. A re-created
 * `every` scheduler runs its first job at once, so the reconciler looks at the runs right away.
 */
import type { Redis } from 'ioredis';
import { MAINTENANCE_TASKS, maintenanceQueue, type MaintenanceTask } from '../queues/index.js';
import type { AssayConfig } from '../../../config/index.js';
import { describeError } from '../../../errors/index.js';
import type { QueueSet } from '../queue-set.js';
import type { Logger } from '../../../logging/index.js';

function intervalOf(task: MaintenanceTask, config: AssayConfig): number {
  return task === 'reconcile-runs' ? config.fleet.reconcileIntervalMs : config.fleet.sweepIntervalMs;
}

async function upsertSchedule(producer: QueueSet, config: AssayConfig, task: MaintenanceTask): Promise<void> {
  await producer
    .queue(maintenanceQueue.name)
    .upsertJobScheduler(
      task,
      { every: intervalOf(task, config) },
      { name: maintenanceQueue.jobName, data: { task }, opts: maintenanceQueue.defaultJobOptions },
    );
}

/** Upserts every maintenance scheduler (an upsert of the same id keeps one schedule, with the interval given now). */
export async function scheduleMaintenance(producer: QueueSet, config: AssayConfig): Promise<void> {
  for (const task of MAINTENANCE_TASKS) await upsertSchedule(producer, config, task);
}

/** Re-creates the schedulers Redis no longer holds; returns their ids (none when all are there). */
export async function restoreMissingSchedules(producer: QueueSet, config: AssayConfig): Promise<MaintenanceTask[]> {
  const queue = producer.queue(maintenanceQueue.name);
  const restored: MaintenanceTask[] = [];
  for (const task of MAINTENANCE_TASKS) {
    if (await queue.getJobScheduler(task)) continue;
    await upsertSchedule(producer, config, task);
    restored.push(task);
  }
  return restored;
}

/** What started a check: logged with what it re-created. */
export type CheckTrigger = 'reconnected' | 'interval' | 'asked';

export interface ScheduleKeeper {
  /** Checks the schedulers now (one check at a time: a call during a check shares it); returns those re-created. */
  check(trigger?: CheckTrigger): Promise<MaintenanceTask[]>;
  /** Stops the periodic check and the reconnection listener. */
  stop(): void;
}

export interface ScheduleKeeperOptions {
  producer: QueueSet;
  /** The producer's connection: each of its `ready` events (a reconnection) triggers a check. */
  connection: Redis;
  config: AssayConfig;
  logger: Logger;
  /** @defaultValue `config.fleet.reconcileIntervalMs` */
  checkIntervalMs?: number;
}

/**
 * Keeps the schedulers present: call after `scheduleMaintenance` at start. A check that fails (Redis
 * away) is logged and tried again at the next reconnection or interval.
 */
export function keepMaintenanceScheduled(options: ScheduleKeeperOptions): ScheduleKeeper {
  const { producer, connection, config, logger } = options;
  let running: Promise<MaintenanceTask[]> | undefined;
  let stopped = false;

  const check = (trigger: CheckTrigger = 'asked'): Promise<MaintenanceTask[]> => {
    running ??= restoreMissingSchedules(producer, config)
      .then((restored) => {
        if (restored.length > 0)
          logger.warn(
            { restored, trigger },
            'the maintenance schedules were gone from Redis (FLUSHALL, a restart without persistence, or a failover to an empty replica): re-created them; the stuck-run reconciler runs now',
          );
        return restored;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const checkInBackground = (trigger: CheckTrigger) => {
    if (stopped) return;
    check(trigger).catch((error: unknown) => {
      // while Redis is away the connection's own listener has said so once; the next trigger checks again
      const level = connection.status === 'ready' ? 'warn' : 'debug';
      logger[level]({ trigger, err: describeError(error) }, 'could not check the maintenance schedules; will check again');
    });
  };

  // every `ready` after the first is a reconnection: Redis may have come back empty
  const onReady = () => checkInBackground('reconnected');
  connection.on('ready', onReady);
  const timer = setInterval(() => checkInBackground('interval'), options.checkIntervalMs ?? config.fleet.reconcileIntervalMs);
  timer.unref();

  return {
    check,
    stop() {
      stopped = true;
      clearInterval(timer);
      connection.off('ready', onReady);
    },
  };
}
