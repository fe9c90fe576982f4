/**
 * Live schema discovery. A warehouse that can describe its whole catalog at once (`describeCatalog`)
 * is read that way: columns and row counts of every table from a few catalog queries, then sample
 * rows for batches of tables, a few batches at a time. A batch that fails or runs out of time is
 * retried table by table, so one slow or broken table is skipped and reported, not fatal, and
 * never costs the others their samples. A warehouse without it is described table by table.
 * The reference described tables one by one and stopped at nothing.
 */
import { CancelledError, WarehouseError, describeError } from '../errors/index.js';
import { mapWithConcurrency } from '../concurrency/index.js';
import type { Row, TableDescription, TableRef, TableSchema, Warehouse } from '../warehouse/port.js';
import { DISCOVERY_CONCURRENCY, DISCOVERY_SAMPLE_BATCH, DISCOVERY_TABLE_TIMEOUT_MS } from './constants.js';
import type { SchemaProgressListener } from './progress.js';

export interface DiscoverSchemaOptions {
  signal?: AbortSignal;
  onProgress?: SchemaProgressListener;
  /** Called for each table that could not be described; the table is left out. */
  onTableError?: (table: TableRef, error: Error) => void;
  /** Describe calls (or sample batches) in flight at once. @defaultValue 4 (DISCOVERY_CONCURRENCY) */
  concurrency?: number;
  /** @defaultValue 120000 (DISCOVERY_TABLE_TIMEOUT_MS) */
  tableTimeoutMs?: number;
  /** Tables per sample batch of a whole-catalog warehouse. @defaultValue 100 (DISCOVERY_SAMPLE_BATCH) */
  sampleBatch?: number;
}

function qualifiedOf(table: TableRef): string {
  return `${table.schema}.${table.name}`;
}

function byQualifiedName(left: TableRef, right: TableRef): number {
  const leftName = qualifiedOf(left);
  const rightName = qualifiedOf(right);
  return leftName < rightName ? -1 : leftName > rightName ? 1 : 0;
}

/** A table's column types in order. */
function shapeOf(table: TableDescription): string {
  return table.columns.map((column) => column.type).join('\u0000');
}

function formatTimeout(timeoutMs: number): string {
  return timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
}

/** Resolves with `work`, or rejects with `message` when it takes longer than `timeoutMs`. */
async function withTimeout<T>(work: Promise<T>, timeoutMs: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WarehouseError(message())), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
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
  const wholeCatalog = typeof warehouse.describeCatalog === 'function' && typeof warehouse.sampleTables === 'function';
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

/** Whole catalog first, then samples in batches; a batch that fails is retried table by table. */
async function fromCatalog(run: DiscoveryRun): Promise<Described> {
  const { warehouse, options, timeoutMs } = run;
  const { signal, onProgress } = options;
  const describeCatalog = warehouse.describeCatalog?.bind(warehouse);
  const sampleTables = warehouse.sampleTables?.bind(warehouse);
  if (describeCatalog === undefined || sampleTables === undefined) throw new WarehouseError('the warehouse cannot describe its catalog');

  const catalog = [...(await describeCatalog())].sort(byQualifiedName);
  onProgress?.({ phase: 'listing_tables', done: catalog.length, total: catalog.length });
  run.throwIfCancelled();

  // Tables of the same shape go in the same batch: an adapter can read their samples in one statement.
  const shapes = new Map(catalog.map((table) => [table, shapeOf(table)]));
  const byShape = [...catalog].sort((left, right) => {
    const leftShape = shapes.get(left) ?? '';
    const rightShape = shapes.get(right) ?? '';
    return leftShape < rightShape ? -1 : leftShape > rightShape ? 1 : byQualifiedName(left, right);
  });
  const batchSize = Math.max(1, options.sampleBatch ?? DISCOVERY_SAMPLE_BATCH);
  const batches: TableDescription[][] = [];
  for (let start = 0; start < byShape.length; start += batchSize) batches.push(byShape.slice(start, start + batchSize));
  const sample = (tables: TableDescription[], message: () => string): Promise<Row[][]> =>
    withTimeout(sampleTables(tables, { timeoutMs, signal }), timeoutMs, message);

  let done = 0;
  onProgress?.({ phase: 'schema_discovery', done, total: catalog.length });
  const sampled = await mapWithConcurrency(
    batches,
    run.concurrency,
    async (batch) => {
      const results: Array<TableSchema | null> = [];
      let rows: Row[][] | null = null;
      if (batch.length > 1) {
        try {
          rows = await sample(batch, () => `sampling ${batch.length} tables took longer than ${formatTimeout(timeoutMs)}`);
        } catch {
          run.throwIfCancelled();
        }
      }
      for (const [position, table] of batch.entries()) {
        let samples = rows?.[position];
        if (samples === undefined) {
          try {
            samples =
              (await sample([table], () => `describing ${table.qualified} took longer than ${formatTimeout(timeoutMs)}; skipped`))[0] ?? [];
          } catch (error) {
            run.fail(table, error);
          }
        }
        results.push(samples === undefined ? null : { ...table, samples });
      }
      done += batch.length;
      onProgress?.({ phase: 'schema_discovery', done, total: catalog.length });
      return results;
    },
    signal,
  );
  const described = sampled.flat().filter((table): table is TableSchema => table !== null);
  return { total: catalog.length, described: described.sort(byQualifiedName) };
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
