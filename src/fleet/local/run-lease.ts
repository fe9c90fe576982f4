/**
 * Lease files of runs executed in a local process: `<dataDir>/local-runs/<runId>.json` names the
 * process that drives the run (instance id, pid, host, a heartbeat refreshed every
 * LEASE_HEARTBEAT_MS) and what kind of process it is. `assay api` keeps one per run it launched
 * (src/fleet/local/launcher.ts) and `assay run` / `assay runs resume` one for their run
 * (src/cli/discovery-session.ts). A lease whose holder is gone is how a run whose process died is
 * told apart from a run that is still going: the store alone cannot say. A lease says who holds the
 * run and when it last showed life, nothing more: how often a run was taken up again is counted on the
 * run itself (`run.recoveries`, src/discovery/pipeline/stuck-runs.ts), as the fleet counts it.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeFileAtomic } from '../../common/atomic-file.js';

/** How often a live process refreshes the leases of its runs. */
export const LEASE_HEARTBEAT_MS = 10_000;
/** A lease not refreshed for three heartbeats belongs to a process that is gone. */
export const LEASE_STALE_AFTER_MS = 3 * LEASE_HEARTBEAT_MS;

/** `api`: a run launched by `assay api` (resumed by the next API start); `cli`: a run driven by `assay run` or `assay runs resume`. */
export const leaseHolderKindSchema = z.enum(['api', 'cli']);
export type LeaseHolderKind = z.infer<typeof leaseHolderKindSchema>;

/** Unknown keys are dropped: leases written before recoveries were counted on the run carry a `resumes` count, now ignored. */
export const runLeaseSchema = z.object({
  run_id: z.string(),
  instance_id: z.string(),
  pid: z.number().int(),
  host: z.string(),
  heartbeat_at: z.string(),
  /** Absent in leases written before CLI runs had leases: those were all the API's. */
  holder: leaseHolderKindSchema.optional(),
});
export type RunLease = z.infer<typeof runLeaseSchema>;

export interface LeaseHolder {
  instanceId: string;
  pid: number;
  host: string;
}

export function leaseDirOf(dataDir: string): string {
  return join(dataDir, 'local-runs');
}

export function leasePath(leaseDir: string, runId: string): string {
  return join(leaseDir, `${runId}.json`);
}

export function holderKindOf(lease: Pick<RunLease, 'holder'>): LeaseHolderKind {
  return lease.holder ?? 'api';
}

/** This process as a lease holder, under a fresh instance id. */
export function currentHolder(instanceId: string = randomBytes(6).toString('hex')): LeaseHolder {
  return { instanceId, pid: process.pid, host: hostname() };
}

/** Whether a lease's holder is gone. Pure: the clock and the pid probe are passed in. */
export function isLeaseOrphaned(
  lease: RunLease,
  self: LeaseHolder,
  nowMs: number,
  staleAfterMs: number,
  isPidAlive: (pid: number) => boolean,
): boolean {
  if (lease.instance_id === self.instanceId) return false;
  const heartbeat = Date.parse(lease.heartbeat_at);
  if (!Number.isFinite(heartbeat) || nowMs - heartbeat > staleAfterMs) return true;
  if (lease.host !== self.host) return false;
  return lease.pid === self.pid || !isPidAlive(lease.pid);
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function writeRunLease(leaseDir: string, runId: string, holder: LeaseHolder, options: { kind: LeaseHolderKind }): Promise<void> {
  const lease: RunLease = {
    run_id: runId,
    instance_id: holder.instanceId,
    pid: holder.pid,
    host: holder.host,
    heartbeat_at: new Date().toISOString(),
    holder: options.kind,
  };
  return writeFileAtomic(leasePath(leaseDir, runId), `${JSON.stringify(lease)}\n`);
}

/** The run's lease, or null when there is none (or it is unreadable: a half-written lease has no holder worth trusting). */
export async function readRunLease(leaseDir: string, runId: string): Promise<RunLease | null> {
  const parsed = runLeaseSchema.safeParse(await readJsonFile(leasePath(leaseDir, runId)).catch(() => null));
  return parsed.success ? parsed.data : null;
}

/** File names of every lease in the directory, sorted (none when the directory does not exist). */
export async function listLeaseFiles(leaseDir: string): Promise<string[]> {
  try {
    return (await readdir(leaseDir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export interface HeldLease {
  /** Stops the heartbeat and removes the lease: the run is settled, or handed to nobody on purpose. */
  release(): Promise<void>;
  /** Stops the heartbeat and leaves the lease: a process about to die without settling its run. */
  abandon(): void;
}

/**
 * Takes the lease of one run for this process and refreshes it until released. A heartbeat that
 * cannot be written is reported, not thrown: the run goes on, and at worst looks orphaned later.
 */
export async function holdRunLease(options: {
  leaseDir: string;
  runId: string;
  kind: LeaseHolderKind;
  heartbeatMs?: number;
  onHeartbeatError?: (error: unknown) => void;
}): Promise<HeldLease> {
  const holder = currentHolder();
  const write = () => writeRunLease(options.leaseDir, options.runId, holder, { kind: options.kind });
  await write();
  let stopped = false;
  // a heartbeat still being written when the lease is released must not bring the file back
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    inFlight = write().catch((error: unknown) => options.onHeartbeatError?.(error));
  }, options.heartbeatMs ?? LEASE_HEARTBEAT_MS);
  timer.unref();
  return {
    async release() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
      await rm(leasePath(options.leaseDir, options.runId), { force: true });
    },
    abandon() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
