/**
 * A fleet heals itself after Redis loses its data, on a real redis-server: FLUSHALL, and a restart
 * without persistence, in the middle of an exploration step whose model call never returns. The job
 * whose lock vanished is aborted and abandoned by its worker, the maintenance schedules are re-created
 * (on the next periodic check after a flush, on the reconnection after a restart), and the stuck-run
 * reconciler they run brings the run to completion with every step once.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { maintenanceQueue } from '../../../src/fleet/bullmq/queues/index.js';
import { CancelledError } from '../../../src/errors/index.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import {
  keepMaintenanceScheduled,
  scheduleMaintenance,
  type ScheduleKeeper,
} from '../../../src/fleet/bullmq/workers/maintenance-schedules.js';
import { waitFor } from '../../support/wait-for.js';
import { QUERY_DEVICE, QUERY_REVENUE, nextStep, phaseOf, scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet, type Fleet } from './fleet-harness.js';
import { redisServerMissing, startRedisServer, type RedisServer } from './redis-server.js';

const LOOKUP = JSON.stringify({ thinking: 'need columns', lookup_schema: ['main.sessions', 'main.orders'] });
const SCRIPT = { 1: LOOKUP, 2: QUERY_DEVICE, 3: QUERY_REVENUE };
/** Short locks: the lost lock is noticed within half a second (BullMQ renews every quarter of the lock). */
const FAST_STALL = { lockDurationMs: 1_000, stalledIntervalMs: 500 };

interface LogEntry {
  msg: string;
  [key: string]: unknown;
}

/** A logger that keeps every entry, so a test can wait on what the process said. */
function recordingLogger() {
  const entries: LogEntry[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => entries.push(JSON.parse(line) as LogEntry) });
  return { logger, entries };
}

/** The first exploration call for step 2 hangs until its signal aborts (and says why); every other call answers. */
function hangOnStep2() {
  const scripted = scriptedBrain({ exploration: SCRIPT });
  let hung = false;
  let entered: () => void = () => undefined;
  let abortedWith: (reason: string) => void = () => undefined;
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const aborted = new Promise<string>((resolve) => (abortedWith = resolve));
  const brain = async (request: LlmRequest): Promise<string> => {
    if (hung || phaseOf(request) !== 'exploration' || nextStep(request) !== 2) return scripted.brain(request);
    hung = true;
    entered();
    return new Promise<string>((_resolve, reject) => {
      request.signal?.addEventListener(
        'abort',
        () => {
          abortedWith(String(request.signal?.reason));
          reject(new CancelledError('model call aborted'));
        },
        { once: true },
      );
    });
  };
  return { brain, reached, aborted };
}

const LOSSES = [
  {
    loss: 'Redis is flushed (FLUSHALL)',
    // only the periodic check can notice a flush: the connection never dropped
    checkIntervalMs: 100,
    trigger: 'interval',
    async lose(server: RedisServer): Promise<RedisServer> {
      const client = new Redis(server.url);
      await client.flushall();
      await client.quit();
      return server;
    },
  },
  {
    loss: 'Redis restarts without persistence',
    // an hour: only the reconnection can trigger the check within the test
    checkIntervalMs: 3_600_000,
    trigger: 'reconnected',
    async lose(server: RedisServer): Promise<RedisServer> {
      await server.stop();
      return startRedisServer({ port: Number(new URL(server.url).port) });
    },
  },
];

describe.skipIf(redisServerMissing)('when Redis loses its data in the middle of a run', () => {
  let server: RedisServer;
  let fleet: Fleet | undefined;
  let keeper: ScheduleKeeper | undefined;

  beforeEach(async () => {
    server = await startRedisServer();
  });

  afterEach(async () => {
    keeper?.stop();
    await fleet?.close();
    await server.stop();
    fleet = undefined;
    keeper = undefined;
  });

  it.each(LOSSES)(
    'when $loss: the lost job is abandoned, the schedules come back and the run completes with every step once',
    async ({ lose, checkIntervalMs, trigger }) => {
      const { brain, reached, aborted } = hangOnStep2();
      fleet = await createFleet(server.url, brain);
      const config = {
        ...fleet.harness.deps.config,
        // a grace longer than the lock, as the defaults have it (60 s against 15 s): the job abandoned
        // at its next lock renewal has stopped before its run is re-enqueued
        fleet: { ...fleet.harness.deps.config.fleet, reconcileIntervalMs: 1_000, stuckRunGraceMs: 1_500 },
      };
      fleet.harness.deps.config = config;
      const { logger, entries } = recordingLogger();
      await fleet.startWorkers({ workerOverrides: FAST_STALL });
      const run = await fleet.harness.newRun({ maxSteps: 6, areas: ['conversion'] });
      await fleet.launcher.launch(run.id);
      await reached;
      // scheduled once the run's coordinator exists, as in a fleet whose schedules were there before the loss
      await scheduleMaintenance(fleet.producer, config);
      keeper = keepMaintenanceScheduled({ producer: fleet.producer, connection: fleet.connection, config, logger, checkIntervalMs });

      server = await lose(server);
      // the worker holding step 2 finds its lock gone and stops the model call
      expect(await aborted).toMatch(/lock could not be renewed/);
      const restored = await waitFor('the maintenance schedules to be re-created', () =>
        entries.find((entry) => Array.isArray(entry.restored)),
      );
      expect(restored).toMatchObject({ restored: ['reconcile-runs', 'sweep-collections'], trigger });
      const maintenance = fleet.producer.queue(maintenanceQueue.name);
      expect((await maintenance.getJobScheduler('reconcile-runs'))?.every).toBe(1_000);

      const finished = await fleet.waitForRunEnd(run.id);
      expect(finished.status).toBe('completed');
      expect(finished.run_type).toBe('full');
      expect(finished.recoveries).toBe(1);
      expect((await fleet.harness.deps.store.listSteps(run.id)).map((step) => [step.step, step.action])).toEqual([
        [1, 'lookup_schema'],
        [2, 'query'],
        [3, 'query'],
        [4, 'done'],
      ]);
    },
  );

  it('leaves schedules that are there alone', async () => {
    fleet = await createFleet(server.url, scriptedBrain({ exploration: SCRIPT }).brain);
    const config = fleet.harness.deps.config;
    await scheduleMaintenance(fleet.producer, config);
    const maintenance = fleet.producer.queue(maintenanceQueue.name);
    const before = await maintenance.getJobScheduler('reconcile-runs');
    const { logger, entries } = recordingLogger();
    keeper = keepMaintenanceScheduled({
      producer: fleet.producer,
      connection: fleet.connection,
      config,
      logger,
      checkIntervalMs: 3_600_000,
    });
    expect(await keeper.check()).toEqual([]);
    expect(await maintenance.getJobScheduler('reconcile-runs')).toEqual(before);
    expect(entries.filter((entry) => entry.restored !== undefined)).toEqual([]);
  });
});
