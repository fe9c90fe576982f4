/**
 * The in-process RunLauncher (`assay api --runner local`): each launched run executes
 * `runDiscoveryLocally` in the background of this process, at most `maxConcurrentRuns` at once,
 * with one AbortController per run for cancellation.
 *
 * Ownership and restarts. A process that dies takes its in-flight runs with it, but must not
 * make every live run look dead (the reference API failed every pending/running run at boot,
 * including runs other processes were executing). So ownership is recorded, not guessed: for
 * every run it launches, this launcher keeps a lease file `<leaseDir>/<runId>.json`
 * (instance id, pid, host, heartbeat refreshed every `heartbeatMs`), removed when the run settles.
 * At start and then every `sweepIntervalMs`, it looks only at lease files:
 * - a run without a lease is never touched (it belongs to the BullMQ fleet or an `assay run` process);
 * - a lease is orphaned when its heartbeat is older than `staleAfterMs`, or when its holder was on
 *   this host and that pid is gone (or is this very pid under another instance id: a container restart);
 * - an orphaned lease is claimed with an atomic rename (two live launchers cannot both take it); if
 *   its run is still pending or running it is taken up again under the one recovery policy
 *   (`recoveryOf` / `countRecovery`, counted in `run.recoveries` as the fleet's reconciler counts a
 *   re-enqueued coordinator): resumed — every phase is idempotent per step, area and insight, so
 *   finished work is kept — until the cap, then finalized as failed with the policy's reason, which
 *   names the process that held it; a settled run's lease is simply removed.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isTerminal } from '../../domain/index.js';
import { type ProjectClients, ProjectClientsUnavailableError } from '../../project-clients.js';
import type { DiscoveryDeps } from '../../discovery/context.js';
import { finalizeRun } from '../../discovery/phases/finalize.js';
import { STAGE_RETRY, classifyStageError, MAX_RUN_RECOVERIES, countRecovery, recoveryOf } from '../../discovery/pipeline/index.js';
import { setTimeout as delay } from 'node:timers/promises';
import { ConflictError, NotFoundError, describeError } from '../../errors/index.js';
import { readJsonFile } from '../../common/atomic-file.js';
import { finalizeInterruptedRun } from './interrupted-run.js';
import { createLimiter } from '../../concurrency/index.js';
import {
  LEASE_HEARTBEAT_MS,
  LEASE_STALE_AFTER_MS,
  currentHolder,
  holderKindOf,
  isLeaseOrphaned,
  isPidAlive,
  leaseDirOf,
  leasePath as leaseFile,
  listLeaseFiles,
  runLeaseSchema,
  writeRunLease,
} from './run-lease.js';
import type { RunLauncher } from '../port.js';
import { runDiscoveryLocally } from './runner.js';

/** How often leases of other (possibly dead) processes are checked after the start-up sweep. */
export const LEASE_SWEEP_INTERVAL_MS = 60_000;

export { LEASE_HEARTBEAT_MS, LEASE_STALE_AFTER_MS, isLeaseOrphaned, isPidAlive, type LeaseHolder, type RunLease } from './run-lease.js';

export type RecoveryAction = 'resumed' | 'failed' | 'released';

export interface RecoveredRun {
  runId: string;
  action: RecoveryAction;
  /** Why, in words, for the log. */
  reason: string;
}

export interface LocalRunLauncherOptions {
  runtime: DiscoveryDeps;
  /** Per-project ports: each run executes on its project's warehouse and models. Without it every run uses `runtime`. */
  clients?: Pick<ProjectClients, 'withRun'>;
  /** Runs executing at once; further launched runs wait, pending. @defaultValue 2 */
  maxConcurrentRuns?: number;
  /** Areas and verifications in flight within one run. @defaultValue runtime.config.run.concurrency */
  concurrency?: number;
  /** @defaultValue `<dataDir>/local-runs` */
  leaseDir?: string;
  /** @defaultValue LEASE_HEARTBEAT_MS */
  heartbeatMs?: number;
  /** @defaultValue LEASE_STALE_AFTER_MS */
  staleAfterMs?: number;
  /** 0 turns the periodic sweep off (the start-up sweep always runs). @defaultValue LEASE_SWEEP_INTERVAL_MS */
  sweepIntervalMs?: number;
  /** Called once a run's background work has settled in this process. */
  onRunSettled?: (runId: string) => void;
  /** @defaultValue a random id per launcher */
  instanceId?: string;
  /** @defaultValue isPidAlive */
  isPidAlive?: (pid: number) => boolean;
}

export interface LocalRunLauncher extends RunLauncher {
  /** Resolves once the run's background work in this process has settled (immediately when there is none). */
  settled(runId: string): Promise<void>;
  /** Run ids executing or waiting in this process. */
  inFlight(): string[];
  /** One sweep over the lease files (see the module comment). Runs at start and periodically. */
  recoverOrphans(): Promise<RecoveredRun[]>;
  /**
   * Stops the timers and leaves in-flight runs and their leases as they are, for a process that is
   * about to exit: the next start resumes them. `close()` instead cancels them and waits.
   */
  detach(): void;
}

interface InFlightRun {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * A run's connections, opened as the fleet opens them for a job: an error the one classifier calls final
 * (a missing secret, a refused login) is thrown at once and ends the run; any other (an unreachable
 * warehouse) is tried again within the `coordinate` retry budget the fleet's jobs also have.
 */
async function withProjectClients<T>(
  clients: Pick<ProjectClients, 'withRun'>,
  runId: string,
  work: (deps: DiscoveryDeps) => Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  const { attempts, backoffDelayMs } = STAGE_RETRY.coordinate;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await clients.withRun(runId, work);
    } catch (error) {
      const retryable = error instanceof ProjectClientsUnavailableError && classifyStageError(error).kind !== 'final';
      if (!retryable || attempt >= attempts || signal.aborted) throw error;
      await delay(backoffDelayMs * 2 ** (attempt - 1), undefined, { signal }).catch(() => undefined);
    }
  }
}

export async function startLocalRunLauncher(options: LocalRunLauncherOptions): Promise<LocalRunLauncher> {
  const { runtime } = options;
  const logger = runtime.logger.child({ component: 'local-launcher' });
  const leaseDir = options.leaseDir ?? leaseDirOf(runtime.config.dataDir);
  const heartbeatMs = options.heartbeatMs ?? LEASE_HEARTBEAT_MS;
  const staleAfterMs = options.staleAfterMs ?? LEASE_STALE_AFTER_MS;
  const sweepIntervalMs = options.sweepIntervalMs ?? LEASE_SWEEP_INTERVAL_MS;
  const concurrency = options.concurrency ?? runtime.config.run.concurrency;
  const probePid = options.isPidAlive ?? isPidAlive;
  const self = currentHolder(options.instanceId);
  const limit = createLimiter(options.maxConcurrentRuns ?? 2);
  const runs = new Map<string, InFlightRun>();
  let stopped = false;

  await mkdir(leaseDir, { recursive: true });
  const leasePath = (runId: string): string => leaseFile(leaseDir, runId);
  const writeLease = (runId: string): Promise<void> => writeRunLease(leaseDir, runId, self, { kind: 'api' });

  async function execute(runId: string, controller: AbortController): Promise<void> {
    try {
      // a run cancelled while it waited still goes through the runner, which finalizes it as cancelled
      const run = (deps: DiscoveryDeps) => runDiscoveryLocally(deps, runId, { concurrency, signal: controller.signal });
      const { clients } = options;
      await limit(() => (clients ? withProjectClients(clients, runId, run, controller.signal) : run(runtime)));
    } catch (error) {
      if (error instanceof ProjectClientsUnavailableError) {
        await finalizeRun(runtime, runId, { fatalError: error.message }).catch((finalizeError: unknown) =>
          logger.error({ runId, err: finalizeError }, 'could not record the failed run'),
        );
        return;
      }
      // the runner finalizes every failure it can attribute; what reaches here is the store itself failing
      logger.error({ runId, err: error }, 'local run stopped with an error');
    }
  }

  function start(runId: string): InFlightRun {
    const controller = new AbortController();
    const entry: InFlightRun = { controller, done: Promise.resolve() };
    entry.done = execute(runId, controller).finally(async () => {
      runs.delete(runId);
      if (!stopped || controller.signal.aborted) await rm(leasePath(runId), { force: true });
      options.onRunSettled?.(runId);
    });
    runs.set(runId, entry);
    return entry;
  }

  async function claimOrphan(fileName: string): Promise<RecoveredRun | null> {
    const path = join(leaseDir, fileName);
    const parsed = runLeaseSchema.safeParse(await readJsonFile(path).catch(() => null));
    if (!parsed.success) return null;
    const lease = parsed.data;
    if (runs.has(lease.run_id) || !isLeaseOrphaned(lease, self, Date.now(), staleAfterMs, probePid)) return null;
    const claimPath = `${path}.claim-${self.instanceId}`;
    try {
      await rename(path, claimPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // another launcher claimed it first
      throw error;
    }
    try {
      const runId = lease.run_id;
      const run = await runtime.store.getRun(runId);
      if (!run || isTerminal(run.status))
        return { runId, action: 'released', reason: run ? `already ${run.status}` : 'run no longer exists' };
      const owner = `process ${lease.pid} on ${lease.host}`;
      if (holderKindOf(lease) === 'cli') {
        // an `assay run` that died is marked, not taken over: its user resumes it (`assay runs resume`) or starts anew
        const fatalError = await finalizeInterruptedRun(runtime, runId, lease);
        return { runId, action: 'failed', reason: fatalError };
      }
      const lost = `its runner (${owner}) stopped while the run was in flight`;
      const verdict = recoveryOf(run, lost);
      if (verdict.action === 'fail') {
        await finalizeRun(runtime, runId, { fatalError: verdict.reason });
        return { runId, action: 'failed', reason: verdict.reason };
      }
      // counted before it runs again, as the fleet's reconciler counts before it re-enqueues: a process
      // that dies again at once still moves the run towards the cap
      const recovered = await runtime.store.updateRun(runId, countRecovery);
      await writeLease(runId);
      start(runId);
      return {
        runId,
        action: 'resumed',
        reason: `${lost}; finished steps and areas are kept (recovery ${recovered.recoveries} of ${MAX_RUN_RECOVERIES})`,
      };
    } finally {
      await rm(claimPath, { force: true });
    }
  }

  async function recoverOrphans(): Promise<RecoveredRun[]> {
    const names = await listLeaseFiles(leaseDir);
    const recovered: RecoveredRun[] = [];
    for (const name of names) {
      if (stopped) break;
      try {
        const outcome = await claimOrphan(name);
        if (outcome) {
          recovered.push(outcome);
          logger.warn({ runId: outcome.runId, action: outcome.action, reason: outcome.reason }, 'recovered an orphaned local run');
        }
      } catch (error) {
        logger.error({ lease: name, err: error }, 'could not recover an orphaned local run');
      }
    }
    return recovered;
  }

  const heartbeat = setInterval(() => {
    for (const runId of runs.keys())
      void writeLease(runId).catch((error: unknown) => logger.warn({ runId, err: error }, 'could not refresh a run lease'));
  }, heartbeatMs);
  heartbeat.unref();
  const sweep = sweepIntervalMs > 0 ? setInterval(() => void recoverOrphans(), sweepIntervalMs) : undefined;
  sweep?.unref();

  function stopTimers(): void {
    stopped = true;
    clearInterval(heartbeat);
    if (sweep) clearInterval(sweep);
  }

  await recoverOrphans();

  return {
    async launch(runId) {
      if (stopped) throw new ConflictError('the local runner is shutting down; start the run again after the restart', { runId });
      if (runs.has(runId)) return;
      const run = await runtime.store.getRun(runId);
      if (!run) throw new NotFoundError(`run ${runId} does not exist`, { runId });
      if (isTerminal(run.status)) return;
      await writeLease(runId);
      start(runId);
    },

    async cancel(runId) {
      const run = await runtime.store.getRun(runId);
      if (!run) throw new NotFoundError(`run ${runId} does not exist`, { runId });
      if (isTerminal(run.status))
        throw new ConflictError(`run ${runId} is already ${run.status}; only pending or running runs can be cancelled`, {
          runId,
          status: run.status,
        });
      await runtime.store.updateRun(runId, (current) =>
        isTerminal(current.status) ? current : { ...current, status: 'cancelled', error: current.error ?? 'cancelled by request' },
      );
      runs.get(runId)?.controller.abort(new Error('cancelled by request'));
    },

    settled(runId) {
      return runs.get(runId)?.done ?? Promise.resolve();
    },

    inFlight() {
      return [...runs.keys()];
    },

    recoverOrphans,

    detach() {
      stopTimers();
    },

    async close() {
      stopTimers();
      const pending = [...runs.entries()];
      await Promise.all(
        pending.map(async ([runId, entry]) => {
          try {
            await runtime.store.updateRun(runId, (current) =>
              isTerminal(current.status)
                ? current
                : {
                    ...current,
                    status: 'cancelled',
                    error: current.error ?? 'the API shut down while this run was in flight; start it again',
                  },
            );
          } catch (error) {
            logger.warn({ runId, err: describeError(error) }, 'could not mark an interrupted run cancelled');
          }
          entry.controller.abort(new Error('runner closed'));
          await entry.done;
        }),
      );
    },
  };
}
