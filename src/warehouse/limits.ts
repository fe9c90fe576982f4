/** Resource limits of the agent's SQL path (layer 3 of "read-only by construction"). */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { WarehouseLimits } from './port.js';

/** Rows fetched per statement; the statement's rows beyond it are never read. Matches the config default. */
export const DEFAULT_MAX_ROWS = 10_000;

/** Wall-clock budget of one statement; a runaway join must not hold a worker. Matches the config default. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Bytes of result rows stored per exploration step, so one wide result cannot bloat a run document. */
export const DEFAULT_MAX_STORED_BYTES = 256 * 1024;

/** Rows shown per table in `describeTable` (the lookup contract shows 3; a few spare for blurbs). */
export const SAMPLE_ROW_COUNT = 3;

/** Longest SQL text the guard will parse; agent queries are short, a megabyte of SQL is an attack. */
export const MAX_SQL_LENGTH = 100_000;

/** Fills unset limits with the defaults above. */
export function resolveWarehouseLimits(partial: {
  maxRows?: number | undefined;
  timeoutMs?: number | undefined;
  maxStoredBytes?: number | undefined;
}): WarehouseLimits {
  return {
    maxRows: partial.maxRows ?? DEFAULT_MAX_ROWS,
    timeoutMs: partial.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxStoredBytes: partial.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES,
  };
}

/**
 * What one query may take from the machine it runs on (layer 3): DuckDB's `memory_limit`, `threads`
 * and `temp_directory` for the whole instance, ClickHouse's `max_memory_usage` and `max_threads` per
 * query. `warehouseResourcesFrom` fills what the config leaves unset with defaults for a worker
 * (see DEFAULT_MEMORY_SHARE), so no engine runs with "all of the machine".
 */
export interface WarehouseResources {
  /** Bytes of memory, e.g. 1 GiB = 1073741824. */
  memoryLimitBytes?: number | undefined;
  threads?: number | undefined;
  /** Where DuckDB spills what does not fit in memory; unset: a private directory under the OS temp directory. */
  tempDirectory?: string | undefined;
}

/** The default memory limit is this share of the memory the process may use (the container's limit, else the machine's). */
export const DEFAULT_MEMORY_SHARE = 0.25;
/** …and at most this many MiB: a worker's queries are bounded by approximate aggregates and spill past it (docs/warehouses.md). */
export const DEFAULT_MEMORY_CAP_MB = 1_024;
/** Never below this many MiB (the config's own minimum). */
const MIN_MEMORY_MB = 64;

/** The cgroup v2 memory limit in bytes, when the process runs in a container that sets one. */
function containerMemoryBytes(readText: (path: string) => string | undefined): number | undefined {
  const text = readText('/sys/fs/cgroup/memory.max')?.trim();
  if (text === undefined || text === '' || text === 'max') return undefined;
  const bytes = Number(text);
  return Number.isFinite(bytes) && bytes > 0 ? bytes : undefined;
}

/** The cgroup v2 CPU quota in whole cores (`cpu.max` "quota period"), when one is set. */
function containerCores(readText: (path: string) => string | undefined): number | undefined {
  const [quota, period] = (readText('/sys/fs/cgroup/cpu.max')?.trim() ?? '').split(/\s+/);
  if (quota === undefined || quota === '' || quota === 'max') return undefined;
  const cores = Number(quota) / Number(period ?? 100_000);
  return Number.isFinite(cores) && cores > 0 ? Math.max(1, Math.floor(cores)) : undefined;
}

function readOptionalText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** What the host offers: memory in bytes and usable cores (a container's limits where it sets them). */
export interface HostCapacity {
  memoryBytes: number;
  cores: number;
}

export function hostCapacity(readText: (path: string) => string | undefined = readOptionalText): HostCapacity {
  const physical = os.totalmem();
  const container = containerMemoryBytes(readText);
  const parallelism = os.availableParallelism();
  const quota = containerCores(readText);
  return {
    memoryBytes: container === undefined ? physical : Math.min(container, physical),
    cores: quota === undefined ? parallelism : Math.min(quota, parallelism),
  };
}

/** Default memory limit in MiB: DEFAULT_MEMORY_SHARE of the host's memory, at most DEFAULT_MEMORY_CAP_MB. */
export function defaultMemoryLimitMb(host: HostCapacity): number {
  const share = Math.floor((host.memoryBytes * DEFAULT_MEMORY_SHARE) / 1_048_576);
  return Math.max(MIN_MEMORY_MB, Math.min(DEFAULT_MEMORY_CAP_MB, share));
}

/** The resource limits of the `sql` config section, in the adapters' terms; unset keys get the worker defaults. */
export function warehouseResourcesFrom(
  sql: { memoryLimitMb?: number | undefined; threads?: number | undefined; tempDirectory?: string | undefined },
  host: HostCapacity = hostCapacity(),
): WarehouseResources {
  const memoryLimitMb = sql.memoryLimitMb ?? defaultMemoryLimitMb(host);
  return {
    memoryLimitBytes: memoryLimitMb * 1_048_576,
    threads: sql.threads ?? host.cores,
    ...(sql.tempDirectory === undefined ? {} : { tempDirectory: sql.tempDirectory }),
  };
}
