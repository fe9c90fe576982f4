/** Resource limits of the agent's SQL path (layer 3 of "read-only by construction"). */
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
 * What one query may take from the machine it runs on (layer 3): DuckDB's `memory_limit` and
 * `threads` for the whole instance, ClickHouse's `max_memory_usage` and `max_threads` per query.
 * Unset: the engine's own default (DuckDB: 80 % of RAM and every core).
 */
export interface WarehouseResources {
  /** Bytes of memory, e.g. 1 GiB = 1073741824. */
  memoryLimitBytes?: number | undefined;
  threads?: number | undefined;
}

/** The resource limits of the `sql` config section, in the adapters' terms. */
export function warehouseResourcesFrom(sql: { memoryLimitMb?: number | undefined; threads?: number | undefined }): WarehouseResources {
  return {
    memoryLimitBytes: sql.memoryLimitMb === undefined ? undefined : sql.memoryLimitMb * 1_048_576,
    threads: sql.threads,
  };
}
