/**
 * Live schema discovery: list the warehouse's tables, then describe them (columns, row count,
 * samples) a few at a time. One slow or broken table is skipped and reported, not fatal; the
 * reference described tables one by one and stopped at nothing.
 */
import { CancelledError, WarehouseError, describeError } from '../errors/index.js';
import { mapWithConcurrency } from '../embed/map-with-concurrency.js';
import type { TableRef, TableSchema, Warehouse } from '../warehouse/port.js';
import { DISCOVERY_CONCURRENCY, DISCOVERY_TABLE_TIMEOUT_MS } from './constants.js';
import type { SchemaProgressListener } from './progress.js';

export interface DiscoverSchemaOptions {
  signal?: AbortSignal;
  onProgress?: SchemaProgressListener;
  /** Called for each table that could not be described; the table is left out. */
  onTableError?: (table: TableRef, error: Error) => void;
  /** @defaultValue 4 (DISCOVERY_CONCURRENCY) */
  concurrency?: number;
  /** @defaultValue 120000 (DISCOVERY_TABLE_TIMEOUT_MS) */
  tableTimeoutMs?: number;
}

function qualifiedOf(table: TableRef): string {
  return `${table.schema}.${table.name}`;
}

/** Resolves with the description, or rejects when it takes longer than `timeoutMs`. */
async function describeWithTimeout(warehouse: Warehouse, table: TableRef, timeoutMs: number): Promise<TableSchema> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new WarehouseError(
            `describing ${qualifiedOf(table)} took longer than ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}; skipped`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([warehouse.describeTable(table), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tables sorted by qualified name. Fails only when listing fails, when cancelled, or when every table failed. */
export async function discoverSchema(warehouse: Warehouse, options: DiscoverSchemaOptions = {}): Promise<TableSchema[]> {
  const { signal, onProgress } = options;
  const throwIfCancelled = (): void => {
    if (signal?.aborted) throw new CancelledError('schema discovery cancelled', { cause: signal.reason });
  };
  throwIfCancelled();
  onProgress?.({ phase: 'listing_tables', done: 0, total: 0 });
  const refs = [...(await warehouse.listTables())].sort((left, right) => (qualifiedOf(left) < qualifiedOf(right) ? -1 : 1));
  onProgress?.({ phase: 'listing_tables', done: refs.length, total: refs.length });
  throwIfCancelled();

  let done = 0;
  const failures: Array<{ table: TableRef; error: Error }> = [];
  onProgress?.({ phase: 'schema_discovery', done, total: refs.length });
  const described = await mapWithConcurrency(
    refs,
    options.concurrency ?? DISCOVERY_CONCURRENCY,
    async (ref) => {
      let result: TableSchema | null = null;
      try {
        result = await describeWithTimeout(warehouse, ref, options.tableTimeoutMs ?? DISCOVERY_TABLE_TIMEOUT_MS);
      } catch (error) {
        throwIfCancelled();
        const failure = error instanceof Error ? error : new WarehouseError(describeError(error));
        failures.push({ table: ref, error: failure });
        options.onTableError?.(ref, failure);
      }
      done += 1;
      onProgress?.({ phase: 'schema_discovery', done, total: refs.length });
      return result;
    },
    signal,
  );
  throwIfCancelled();

  const tables = described.filter((table): table is TableSchema => table !== null);
  if (refs.length > 0 && tables.length === 0) {
    const first = failures[0];
    throw new WarehouseError(
      `could not describe any of the ${refs.length} tables${first ? `; first error (${qualifiedOf(first.table)}): ${first.error.message}` : ''}`,
      {
        cause: first?.error,
      },
    );
  }
  return tables;
}
