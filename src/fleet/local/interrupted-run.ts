/**
 * A run whose local process died (killed, out of memory, the machine went down) is finalized as
 * failed with an error that says what happened and how to go on, so it never stays `running` and
 * never blocks its project. Its stored steps, areas and validations are kept for `assay runs resume`.
 */
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonFile } from '../../common/atomic-file.js';
import type { DiscoveryDeps } from '../../discovery/context.js';
import { finalizeRun } from '../../discovery/phases/finalize.js';
import { isTerminal } from '../../domain/index.js';
import {
  LEASE_STALE_AFTER_MS,
  currentHolder,
  holderKindOf,
  isLeaseOrphaned,
  isPidAlive,
  leasePath,
  listLeaseFiles,
  runLeaseSchema,
  type RunLease,
} from './run-lease.js';

type LeaseOwner = Pick<RunLease, 'pid' | 'host' | 'holder'>;

/** The run's error when its process is gone: who held it, what is kept, what to type next. */
export function interruptedRunError(runId: string, stepsKept: number, lease: LeaseOwner | null): string {
  const owner = lease
    ? `the ${holderKindOf(lease) === 'cli' ? '`assay run`' : '`assay api`'} process that ran it (pid ${lease.pid} on ${lease.host})`
    : 'the process that ran it';
  return `interrupted: ${owner} stopped without finishing it; its ${stepsKept} exploration step(s) are kept — continue it with \`assay runs resume ${runId}\``;
}

/** Finalizes the run as failed with `interruptedRunError` (a no-op for a run that settled meanwhile); returns the error. */
export async function finalizeInterruptedRun(deps: DiscoveryDeps, runId: string, lease: LeaseOwner | null): Promise<string> {
  const run = await deps.store.getRun(runId);
  if (!run || isTerminal(run.status)) return run ? `already ${run.status}` : 'the run no longer exists';
  const fatalError = interruptedRunError(runId, run.steps_completed, lease);
  await deps.store.updateRun(runId, (current) => (isTerminal(current.status) ? current : { ...current, error: fatalError }));
  await finalizeRun(deps, runId, { fatalError });
  return fatalError;
}

export interface InterruptedRun {
  runId: string;
  error: string;
}

export interface MarkInterruptedOptions {
  leaseDir: string;
  /**
   * True when no other process can be using the store (the embedded store, whose process lock this
   * process holds): then a pending or running run without any lease is interrupted too. With a
   * shared store such a run may belong to the BullMQ fleet, whose reconciler looks after it.
   */
  storeIsExclusive: boolean;
  /** @defaultValue isPidAlive */
  isPidAlive?: (pid: number) => boolean;
  /** @defaultValue LEASE_STALE_AFTER_MS */
  staleAfterMs?: number;
}

/**
 * Finds runs of `assay run` processes that are gone and finalizes them as interrupted. Runs of
 * `assay api` keep their leases: the next API start resumes them (src/fleet/local/launcher.ts).
 */
export async function markInterruptedRuns(deps: DiscoveryDeps, options: MarkInterruptedOptions): Promise<InterruptedRun[]> {
  const self = currentHolder();
  const probe = options.isPidAlive ?? isPidAlive;
  const staleAfterMs = options.staleAfterMs ?? LEASE_STALE_AFTER_MS;
  const marked: InterruptedRun[] = [];
  const leased = new Set<string>();
  for (const name of await listLeaseFiles(options.leaseDir)) {
    const path = join(options.leaseDir, name);
    const parsed = runLeaseSchema.safeParse(await readJsonFile(path).catch(() => null));
    if (!parsed.success) continue;
    const lease = parsed.data;
    leased.add(lease.run_id);
    if (holderKindOf(lease) !== 'cli' || !isLeaseOrphaned(lease, self, Date.now(), staleAfterMs, probe)) continue;
    // claimed by renaming it away, so two processes sweeping at once finalize the run once
    const claimPath = `${path}.claim-${self.instanceId}`;
    try {
      await rename(path, claimPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    try {
      const error = await finalizeInterruptedRun(deps, lease.run_id, lease);
      marked.push({ runId: lease.run_id, error });
    } finally {
      await rm(claimPath, { force: true });
    }
  }
  if (options.storeIsExclusive) {
    for (const project of await deps.store.listProjects()) {
      for (const run of await deps.store.listRuns(project.id, { limit: 100 })) {
        if (isTerminal(run.status) || leased.has(run.id)) continue;
        // the lease may have appeared since the listing (a run this very process is starting has one before its run exists)
        if (await readJsonFile(leasePath(options.leaseDir, run.id)).catch(() => null)) continue;
        marked.push({ runId: run.id, error: await finalizeInterruptedRun(deps, run.id, null) });
      }
    }
  }
  return marked;
}
