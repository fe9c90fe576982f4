/**
 * Sample rows on demand. Schema discovery reads the catalog only; a table's sample rows are read
 * the first time something needs them (a `lookup_schema` reply, pack generation) and then kept:
 * in memory for this process, and in the schema cache (the run store's TTL cache) for every other
 * process and pod of the fleet, under the generation of the schema they belong to, so a rebuilt
 * schema never serves samples of the one before it.
 *
 * `readSamples` is the warehouse side: tables of the same shape in batches of `sampleBatch`, a few
 * batches at a time; a batch that fails or runs out of time is retried table by table, so one slow
 * or broken table costs only its own samples.
 */
import { mapWithConcurrency } from '../concurrency/index.js';
import { CancelledError, WarehouseError, describeError } from '../errors/index.js';
import { RecentMap } from '../common/recent-map.js';
import type { Row, TableDescription, TableRef, TableSchema, Warehouse } from '../warehouse/port.js';
import type { SchemaCache } from './cache.js';
import {
  DISCOVERY_CONCURRENCY,
  DISCOVERY_SAMPLE_BATCH,
  DISCOVERY_TABLE_TIMEOUT_MS,
  SAMPLE_CELL_MAX_CHARS,
  SAMPLED_TABLES_IN_MEMORY,
} from './constants.js';

export interface ReadSamplesOptions {
  signal?: AbortSignal | undefined;
  /** Called for each table whose samples could not be read; it is left out of the result. */
  onTableError?: ((table: TableRef, error: Error) => void) | undefined;
  /** Sample batches in flight at once. @defaultValue 4 (DISCOVERY_CONCURRENCY) */
  concurrency?: number | undefined;
  /** @defaultValue 120000 (DISCOVERY_TABLE_TIMEOUT_MS) */
  tableTimeoutMs?: number | undefined;
  /** Tables per `sampleTables` call. @defaultValue 100 (DISCOVERY_SAMPLE_BATCH) */
  sampleBatch?: number | undefined;
}

function formatTimeout(timeoutMs: number): string {
  return timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
}

/** Resolves with `work`, or rejects with `message` when it takes longer than `timeoutMs`. */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, message: () => string): Promise<T> {
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

/** A table's column types in order: tables of one shape can be sampled by one statement. */
function shapeOf(table: TableDescription): string {
  return table.columns.map((column) => column.type).join('\u0000');
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new WarehouseError(describeError(error));
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('reading sample rows cancelled', { cause: signal.reason });
}

/**
 * Sample rows of `tables` from the warehouse, by qualified name. Uses `sampleTables` (few statements)
 * when the adapter has it, else `describeTable` per table. Tables that fail are reported and left out.
 */
export async function readSamples(
  warehouse: Warehouse,
  tables: readonly TableDescription[],
  options: ReadSamplesOptions = {},
): Promise<Map<string, Row[]>> {
  const { signal } = options;
  const timeoutMs = options.tableTimeoutMs ?? DISCOVERY_TABLE_TIMEOUT_MS;
  const result = new Map<string, Row[]>();
  if (tables.length === 0) return result;
  const fail = (table: TableRef, error: unknown): void => {
    throwIfCancelled(signal);
    options.onTableError?.(table, asError(error));
  };
  const sampleTables = warehouse.sampleTables?.bind(warehouse);
  const readOne = async (table: TableDescription): Promise<Row[]> => {
    const message = () => `reading sample rows of ${table.qualified} took longer than ${formatTimeout(timeoutMs)}; skipped`;
    if (sampleTables === undefined) return (await withTimeout(warehouse.describeTable(table), timeoutMs, message)).samples ?? [];
    return (await withTimeout(sampleTables([table], { timeoutMs, signal }), timeoutMs, message))[0] ?? [];
  };

  const shapes = new Map(tables.map((table) => [table, shapeOf(table)]));
  const byShape = [...tables].sort((left, right) => {
    const leftShape = shapes.get(left) ?? '';
    const rightShape = shapes.get(right) ?? '';
    return leftShape < rightShape ? -1 : leftShape > rightShape ? 1 : left.qualified < right.qualified ? -1 : 1;
  });
  const batchSize = sampleTables === undefined ? 1 : Math.max(1, options.sampleBatch ?? DISCOVERY_SAMPLE_BATCH);
  const batches: TableDescription[][] = [];
  for (let start = 0; start < byShape.length; start += batchSize) batches.push(byShape.slice(start, start + batchSize));

  await mapWithConcurrency(
    batches,
    options.concurrency ?? DISCOVERY_CONCURRENCY,
    async (batch) => {
      let rows: Row[][] | null = null;
      if (batch.length > 1 && sampleTables !== undefined) {
        try {
          rows = await withTimeout(
            sampleTables(batch, { timeoutMs, signal }),
            timeoutMs,
            () => `reading sample rows of ${batch.length} tables took longer than ${formatTimeout(timeoutMs)}`,
          );
        } catch {
          throwIfCancelled(signal);
        }
      }
      for (const [position, table] of batch.entries()) {
        let samples = rows?.[position];
        if (samples === undefined) {
          try {
            samples = await readOne(table);
          } catch (error) {
            fail(table, error);
            continue;
          }
        }
        result.set(table.qualified, samples);
      }
    },
    signal,
  );
  return result;
}

/** A sample row as it is kept: strings cut at SAMPLE_CELL_MAX_CHARS, so one JSON blob cannot bloat the cache. */
export function boundSampleRow(row: Row): Row {
  const bounded: Row = {};
  for (const [key, value] of Object.entries(row))
    bounded[key] = typeof value === 'string' && value.length > SAMPLE_CELL_MAX_CHARS ? value.slice(0, SAMPLE_CELL_MAX_CHARS) : value;
  return bounded;
}

export interface TableSampler {
  /**
   * Sample rows of each table, by qualified name: the table's own when it carries them, else this
   * process's memory, else the shared cache, else the warehouse (then kept in both). A table whose
   * samples cannot be read maps to no rows and is tried again next time.
   */
  samplesOf(tables: readonly TableSchema[], options?: { signal?: AbortSignal | undefined }): Promise<Map<string, Row[]>>;
}

export interface TableSamplerOptions extends Omit<ReadSamplesOptions, 'signal'> {
  warehouse: Warehouse;
  /** Where samples are shared with other processes; without it they are kept in this process only. */
  cache?:
    | {
        cache: Pick<SchemaCache, 'getSamples' | 'putSamples'>;
        projectId: string;
        warehouseHash: string;
        /** The `builtAt` of the schema entry the tables come from: samples belong to that generation. */
        builtAt: string;
      }
    | undefined;
  /** Tables whose samples are kept in memory. @defaultValue 2000 (SAMPLED_TABLES_IN_MEMORY) */
  memoryEntries?: number | undefined;
  /** Told when samples had to be read from the warehouse, with the tables read. */
  onWarehouseRead?: ((tables: readonly string[]) => void) | undefined;
}

export function createTableSampler(options: TableSamplerOptions): TableSampler {
  const memory = new RecentMap<Row[]>(options.memoryEntries ?? SAMPLED_TABLES_IN_MEMORY);
  // one read per table at a time: two lookups of the same table in one process share it
  const inFlight = new Map<string, Promise<Row[] | undefined>>();
  const shared = options.cache;

  async function fetchMissing(tables: readonly TableSchema[], signal: AbortSignal | undefined): Promise<Map<string, Row[]>> {
    const found = shared
      ? await shared.cache.getSamples(
          shared.projectId,
          shared.warehouseHash,
          shared.builtAt,
          tables.map((table) => table.qualified),
        )
      : new Map<string, Row[]>();
    const toRead = tables.filter((table) => !found.has(table.qualified));
    if (toRead.length === 0) return found;
    options.onWarehouseRead?.(toRead.map((table) => table.qualified));
    const read = await readSamples(options.warehouse, toRead, { ...options, signal });
    const kept = new Map([...read].map(([qualified, rows]) => [qualified, rows.map(boundSampleRow)]));
    if (shared && kept.size > 0) await shared.cache.putSamples(shared.projectId, shared.warehouseHash, shared.builtAt, kept);
    for (const [qualified, rows] of kept) found.set(qualified, rows);
    return found;
  }

  return {
    async samplesOf(tables, callOptions = {}) {
      const result = new Map<string, Row[]>();
      const waiting: Array<Promise<void>> = [];
      const missing: TableSchema[] = [];
      for (const table of tables) {
        const own = table.samples ?? memory.get(table.qualified);
        if (own !== undefined) {
          result.set(table.qualified, own);
          continue;
        }
        const pending = inFlight.get(table.qualified);
        if (pending) waiting.push(pending.then((rows) => void result.set(table.qualified, rows ?? [])));
        else if (!missing.some((entry) => entry.qualified === table.qualified)) missing.push(table);
      }
      if (missing.length > 0) {
        const fetched = fetchMissing(missing, callOptions.signal);
        for (const table of missing) {
          const one = fetched.then((rows) => rows.get(table.qualified));
          // a failed fetch fails this call; later calls try again
          inFlight.set(
            table.qualified,
            one.catch(() => undefined),
          );
          waiting.push(
            one
              .then((rows) => {
                if (rows !== undefined) memory.set(table.qualified, rows);
                result.set(table.qualified, rows ?? []);
              })
              .finally(() => inFlight.delete(table.qualified)),
          );
        }
      }
      await Promise.all(waiting);
      return result;
    },
  };
}

/** `tables` with the samples of `which` filled in (the rest unchanged). */
export async function withSamples(
  tables: readonly TableSchema[],
  which: readonly TableSchema[],
  sampler: TableSampler,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<TableSchema[]> {
  const samples = await sampler.samplesOf(which, options);
  return tables.map((table) => {
    const rows = samples.get(table.qualified);
    return rows === undefined ? table : { ...table, samples: rows };
  });
}
