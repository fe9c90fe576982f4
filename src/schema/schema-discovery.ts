/**
 * Live schema discovery. A warehouse that can describe its whole catalog at once (`describeCatalog`)
 * is read that way and nothing more: names, types, keys, row counts and comments of every table from
 * a few catalog queries. Sample rows are not read here: a table's samples are fetched the first time
 * it is looked up (`table-samples.ts`), because reading them for every table was most of discovery's
 * time and memory. A warehouse without `describeCatalog` is described table by table (with samples,
 * which `describeTable` reads anyway); one slow or broken table is skipped and reported, not fatal.
 * The reference described tables one by one and stopped at nothing.
 */
import { CancelledError, WarehouseError, describeError } from '../errors/index.js';
import { mapWithConcurrency } from '../concurrency/index.js';
import type { TableRef, TableSchema, Warehouse } from '../warehouse/port.js';
import { DISCOVERY_CONCURRENCY, DISCOVERY_TABLE_TIMEOUT_MS } from './constants.js';
import type { SchemaProgressListener } from './progress.js';
import { withTimeout } from './table-samples.js';

export interface DiscoverSchemaOptions {
  signal?: AbortSignal;
  onProgress?: SchemaProgressListener;
  /** Called for each table that could not be described; the table is left out. */
  onTableError?: (table: TableRef, error: Error) => void;
  /** Describe calls in flight at once (warehouses without `describeCatalog`). @defaultValue 4 (DISCOVERY_CONCURRENCY) */
  concurrency?: number;
  /** @defaultValue 120000 (DISCOVERY_TABLE_TIMEOUT_MS) */
  tableTimeoutMs?: number;
}

function qualifiedOf(table: TableRef): string {
  return `${table.schema}.${table.name}`;
}

function byQualifiedName(left: TableRef, right: TableRef): number {
  const leftName = qualifiedOf(left);
  const rightName = qualifiedOf(right);
  return leftName < rightName ? -1 : leftName > rightName ? 1 : 0;
}

function formatTimeout(timeoutMs: number): string {
  return timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new WarehouseError(describeError(error));
}

/** Tables sorted by qualified name. Fails only when listing fails, when cancelled, or when every table failed. */
export async function discoverSchema(warehouse: Warehouse, options: DiscoverSchemaOptions = {}): Promise<TableSchema[]> {
  const { signal, onProgress } = options;
  const throwIfCancelled = (): void => {
    if (signal?.aborted) throw new CancelledError('schema discovery cancelled', { cause: signal.reason });
  };
  throwIfCancelled();
  const failures: Array<{ table: TableRef; error: Error }> = [];
  const fail = (table: TableRef, error: unknown): void => {
    throwIfCancelled();
    const failure = asError(error);
    failures.push({ table, error: failure });
    options.onTableError?.(table, failure);
  };
  const run: DiscoveryRun = {
    warehouse,
    options,
    concurrency: options.concurrency ?? DISCOVERY_CONCURRENCY,
    timeoutMs: options.tableTimeoutMs ?? DISCOVERY_TABLE_TIMEOUT_MS,
    throwIfCancelled,
    fail,
  };

  onProgress?.({ phase: 'listing_tables', done: 0, total: 0 });
  const wholeCatalog = typeof warehouse.describeCatalog === 'function';
  const { total, described } = wholeCatalog ? await fromCatalog(run) : await tableByTable(run);
  throwIfCancelled();

  const tables = described.filter((table): table is TableSchema => table !== null);
  if (total > 0 && tables.length === 0) {
    const first = failures[0];
    throw new WarehouseError(
      `could not describe any of the ${total} tables${first ? `; first error (${qualifiedOf(first.table)}): ${first.error.message}` : ''}`,
      { cause: first?.error },
    );
  }
  return tables;
}

interface DiscoveryRun {
  warehouse: Warehouse;
  options: DiscoverSchemaOptions;
  concurrency: number;
  timeoutMs: number;
  throwIfCancelled: () => void;
  fail: (table: TableRef, error: unknown) => void;
}

interface Described {
  total: number;
  described: Array<TableSchema | null>;
}

/** The whole catalog from the warehouse's few catalog queries; no table is read. */
async function fromCatalog(run: DiscoveryRun): Promise<Described> {
  const { warehouse, options } = run;
  const describeCatalog = warehouse.describeCatalog?.bind(warehouse);
  if (describeCatalog === undefined) throw new WarehouseError('the warehouse cannot describe its catalog');
  const catalog = [...(await describeCatalog())].sort(byQualifiedName);
  options.onProgress?.({ phase: 'listing_tables', done: catalog.length, total: catalog.length });
  options.onProgress?.({ phase: 'schema_discovery', done: catalog.length, total: catalog.length });
  return { total: catalog.length, described: catalog };
}

/** One `describeTable` per table, a few at a time (warehouses without `describeCatalog`). */
async function tableByTable(run: DiscoveryRun): Promise<Described> {
  const { warehouse, options, timeoutMs } = run;
  const { signal, onProgress } = options;
  const refs = [...(await warehouse.listTables())].sort(byQualifiedName);
  onProgress?.({ phase: 'listing_tables', done: refs.length, total: refs.length });
  run.throwIfCancelled();

  let done = 0;
  onProgress?.({ phase: 'schema_discovery', done, total: refs.length });
  const described = await mapWithConcurrency(
    refs,
    run.concurrency,
    async (ref) => {
      let result: TableSchema | null = null;
      try {
        result = await withTimeout(
          warehouse.describeTable(ref),
          timeoutMs,
          () => `describing ${qualifiedOf(ref)} took longer than ${formatTimeout(timeoutMs)}; skipped`,
        );
      } catch (error) {
        run.fail(ref, error);
      }
      done += 1;
      onProgress?.({ phase: 'schema_discovery', done, total: refs.length });
      return result;
    },
    signal,
  );
  return { total: refs.length, described };
}
