/**
 * Whole-catalog reads for schema discovery (issue #13): every relation with its columns, primary
 * key and row count from three catalog queries (run side by side), and the sample rows of many
 * tables per statement.
 * Describing table by table ran a filtered `duckdb_columns()` per table, and each such call scans
 * the whole catalog, so a 1,500-table warehouse paid for 1,500 full scans.
 *
 * Samples: every statement, however small, costs a round trip and a plan, so many tables share one
 * UNION ALL. Tables of the same shape (the same column types in the same order) need no cast: the
 * rows come back as the engine's own values and are read by position. A table of a shape of its
 * own whose column types all survive a VARIANT unchanged is cast row-wise to VARIANT (one type for
 * every branch) and unpacked here. Every other table (JSON, nested, user-defined types … of a
 * shape of its own) gets its own plain statement. Each way gives exactly the cells a plain
 * `SELECT * … LIMIT n` gives. A table whose estimated size is 0 holds no rows and is not read.
 *
 * A UNION ALL is sorted by (table, row ordinal) under a limit no smaller than its rows (the
 * engine's top-n). Without it each branch hands the result collector its own chunk of ≤ n rows,
 * and that per-chunk work (collector, transfer, one vector per column) cost more than the reads
 * themselves: 2.5× the time on the 1,500-table ERP demo. The top-n gathers the rows into a few
 * full chunks. The ordinal keeps each table's rows in the order the plain statement gives them: a
 * base table's `rowid` (its scan order), else the rows' number as they leave the `LIMIT`
 * (`row_number() OVER ()`, a streaming window that keeps arrival order).
 *
 * Internal statements are the adapter's own SQL built from quoted catalog names (never agent
 * text), so they skip the SQL guard; they run on connections of the same read-only, locked
 * instance, and a tenant-filtered relation is read only through its filter, as in agent SQL.
 */
import {
  DuckDBListValue,
  DuckDBStructValue,
  DuckDBVariantValue,
  type DuckDBConnection,
  type DuckDBInstance,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { Row } from '../../domain/index.js';
import { CancelledError, WarehouseError, describeError } from '../../errors/index.js';
import { deduplicateColumnNames } from '../cells.js';
import { catalogComment } from '../comments.js';
import { inferColumnCategory } from '../column-category.js';
import { SAMPLE_ROW_COUNT } from '../limits.js';
import type { SampleOptions, TableDescription } from '../port.js';
import { filteredRelationSql, quoteIdentifier, relationKey, type FilteredRelations, type TenantFilter } from '../tenant-filter.js';
import { duckdbCell } from './duckdb-cells.js';

/** Connections the internal reader opens at most: catalog queries, or samples of two chunks, run side by side (the machines have 2+ cores). */
const INTERNAL_CONNECTIONS = 2;
/** Tables per UNION ALL of samples or counts: a bounded statement, still one plan for many tables. */
const UNION_BRANCHES = 100;
/**
 * `data_type` of the columns whose values a VARIANT carries unchanged (checked against the plain
 * path, type by type, in test/integration/warehouse/describe-catalog.test.ts). JSON is not here:
 * a VARIANT parses it, and the plain path keeps its text as written.
 */
const VARIANT_SAFE_TYPE =
  /^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|VARCHAR|DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS|INTERVAL|UUID|BLOB)$/;

export interface InternalResult {
  names: string[];
  rows: DuckDBValue[][];
}

export interface InternalRunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * Runs adapter-owned statements on a few extra connections of the warehouse's instance, each with
 * a time limit (the connection is interrupted when it runs out) and an optional signal.
 */
export class DuckdbInternalReader {
  private readonly idle: DuckDBConnection[] = [];
  private readonly busy = new Set<DuckDBConnection>();
  private readonly waiting: Array<{ resolve: (connection: DuckDBConnection) => void; reject: (error: Error) => void }> = [];
  private opened = 0;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly instance: DuckDBInstance) {}

  async run(sql: string, options: InternalRunOptions): Promise<InternalResult> {
    if (options.signal?.aborted) throw new CancelledError('cancelled before the statement started', { cause: options.signal.reason });
    const task = this.withConnection((connection) => this.runOn(connection, sql, options));
    this.inFlight.add(task);
    try {
      return await task;
    } finally {
      this.inFlight.delete(task);
    }
  }

  private async runOn(connection: DuckDBConnection, sql: string, options: InternalRunOptions): Promise<InternalResult> {
    let stoppedBy: 'timeout' | 'signal' | undefined;
    const interrupt = (reason: 'timeout' | 'signal') => {
      stoppedBy ??= reason;
      connection.interrupt();
    };
    const timer = setTimeout(() => interrupt('timeout'), Math.max(1, options.timeoutMs));
    const onAbort = () => interrupt('signal');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // materialised, then read chunk by chunk without a round trip each (runAndReadAll awaits every chunk)
      const result = await connection.run(sql);
      const rows: DuckDBValue[][] = [];
      for (let index = 0; index < result.chunkCount; index += 1) {
        for (const values of result.getChunk(index).getRows()) rows.push(values);
      }
      return { names: result.columnNames(), rows };
    } catch (error) {
      if (stoppedBy === 'timeout') throw new WarehouseError(`statement timed out after ${options.timeoutMs} ms`, { cause: error });
      if (stoppedBy === 'signal') throw new CancelledError('cancelled', { cause: error });
      throw new WarehouseError(`DuckDB: ${describeError(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      return await work(connection);
    } finally {
      this.busy.delete(connection);
      const next = this.waiting.shift();
      if (next !== undefined && !this.closed) {
        this.busy.add(connection);
        next.resolve(connection);
      } else {
        this.idle.push(connection);
      }
    }
  }

  private async acquire(): Promise<DuckDBConnection> {
    if (this.closed) throw new WarehouseError('the warehouse is closed');
    const ready = this.idle.pop();
    if (ready !== undefined) {
      this.busy.add(ready);
      return ready;
    }
    if (this.opened < INTERNAL_CONNECTIONS) {
      this.opened += 1;
      const connection = await this.instance.connect();
      this.busy.add(connection);
      return connection;
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Interrupts running statements, waits for them, closes the connections. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new WarehouseError('the warehouse is closed'));
    for (const connection of this.busy) connection.interrupt();
    await Promise.allSettled([...this.inFlight]);
    for (const connection of [...this.idle, ...this.busy]) connection.closeSync();
    this.idle.length = 0;
    this.busy.clear();
  }
}

export interface DuckdbCatalogContext {
  reader: DuckdbInternalReader;
  systemSchemas: readonly string[];
  internalPrefix: string;
  filtered: FilteredRelations;
  tenantFilter: TenantFilter | undefined;
  /** Time limit of one catalog or count statement (samples: of the whole call, unless it sets its own). */
  timeoutMs: number;
  /** Base tables (`relationKey`) as the last `readDuckdbCatalog` found them: their samples are ordered by rowid. */
  baseTables: ReadonlySet<string>;
}

export interface DuckdbCatalog {
  tables: TableDescription[];
  /** `relationKey` of every base table among them (not views). */
  baseTables: Set<string>;
}

function keyOf(schema: string, name: string): string {
  return `${schema}\u0000${name}`;
}

function sqlList(values: readonly string[]): string {
  return values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ');
}

function isFiltered(table: { schema: string; name: string }, context: Pick<DuckdbCatalogContext, 'filtered' | 'tenantFilter'>): boolean {
  return context.tenantFilter !== undefined && context.filtered.has(relationKey(table.schema, table.name));
}

function qualifiedSql(table: { schema: string; name: string }): string {
  return `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
}

/** What a relation is read through: itself, or the tenant filter's derived table. */
function sourceSql(table: { schema: string; name: string }, context: Pick<DuckdbCatalogContext, 'filtered' | 'tenantFilter'>): string {
  if (context.tenantFilter !== undefined && isFiltered(table, context)) {
    return `${filteredRelationSql(table.schema, table.name, context.tenantFilter)} AS ${quoteIdentifier(table.name)}`;
  }
  return qualifiedSql(table);
}

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * Every relation `listTables` returns, with columns and row counts, from three catalog queries run
 * side by side on the internal connections (plus batched counts for filtered relations).
 */
export async function readDuckdbCatalog(context: DuckdbCatalogContext): Promise<DuckdbCatalog> {
  const read = async (sql: string) => (await context.reader.run(sql, { timeoutMs: context.timeoutMs })).rows;
  // Columns and keys name their relation by oid: two strings fewer per column to decode (11,312 columns: half the time).
  const [relations, columnRows, keyRows] = await Promise.all([
    read(
      `SELECT oid, schema_name, table_name, estimated_size, base_table, comment FROM (
         SELECT table_oid AS oid, schema_name, table_name, estimated_size, true AS base_table, comment FROM duckdb_tables() WHERE NOT internal
         UNION ALL SELECT view_oid, schema_name, view_name, NULL, false, comment FROM duckdb_views() WHERE NOT internal
       ) WHERE schema_name NOT IN (${sqlList(context.systemSchemas)})
         AND NOT starts_with(lower(table_name), '${context.internalPrefix}')`,
    ),
    read(
      'SELECT table_oid, column_name, data_type, is_nullable, comment FROM duckdb_columns() WHERE NOT internal ORDER BY table_oid, column_index',
    ),
    read(`SELECT table_oid, constraint_column_names FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'`),
  ]);

  // A name listed more than once (a table and a view of one name) is one relation, as `listTables` lists it.
  interface Relation {
    schema: string;
    name: string;
    estimate: number | null;
    baseTable: boolean;
    comment: string | undefined;
    columns: TableDescription['columns'];
    primaryKey: Set<string>;
  }
  const byName = new Map<string, Relation>();
  const byOid = new Map<string, Relation>();
  for (const [oid, schemaValue, nameValue, estimate, baseTable, comment] of relations) {
    const schema = String(schemaValue);
    const name = String(nameValue);
    const key = keyOf(schema, name);
    let relation = byName.get(key);
    if (relation === undefined) {
      relation = { schema, name, estimate: null, baseTable: true, comment: undefined, columns: [], primaryKey: new Set() };
      byName.set(key, relation);
    }
    relation.comment ??= catalogComment(comment);
    if (estimate !== null && estimate !== undefined) relation.estimate = Math.max(relation.estimate ?? 0, Number(estimate));
    relation.baseTable &&= baseTable === true;
    byOid.set(String(oid), relation);
  }
  for (const [oid, columns] of keyRows) {
    const relation = byOid.get(String(oid));
    if (relation !== undefined && columns instanceof DuckDBListValue)
      for (const column of columns.items) relation.primaryKey.add(String(column));
  }
  for (const [oid, column, type, nullable, comment] of columnRows) {
    const relation = byOid.get(String(oid));
    if (relation === undefined) continue;
    const name = String(column);
    const typeName = String(type);
    const columnComment = catalogComment(comment);
    relation.columns.push({
      name,
      type: typeName,
      nullable: nullable === true,
      category: inferColumnCategory(name, typeName, { primaryKey: relation.primaryKey.has(name) }),
      ...(columnComment === undefined ? {} : { comment: columnComment }),
    });
  }

  const tables: TableDescription[] = [];
  const baseTables = new Set<string>();
  for (const { schema, name, estimate, baseTable, comment, columns } of byName.values()) {
    if (columns.length === 0) continue;
    if (baseTable) baseTables.add(relationKey(schema, name));
    tables.push({
      schema,
      name,
      qualified: `${schema}.${name}`,
      columns,
      rowCount: estimate === null ? -1 : estimate,
      ...(comment === undefined ? {} : { comment }),
    });
  }
  await countFilteredRelations(tables, context);
  tables.sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
  return { tables, baseTables };
}

/** A tenant-filtered relation's row count is the tenant's own (an estimate would leak other tenants' volume): counted, many per statement. */
async function countFilteredRelations(tables: TableDescription[], context: DuckdbCatalogContext): Promise<void> {
  if (context.tenantFilter === undefined) return;
  const filtered = tables.filter((table) => context.filtered.has(relationKey(table.schema, table.name)));
  for (const chunk of chunksOf(filtered, UNION_BRANCHES)) {
    const sql = chunk.map((table, index) => `SELECT ${index} AS k, count(*) AS n FROM ${sourceSql(table, context)}`).join('\nUNION ALL ');
    const result = await context.reader.run(sql, { timeoutMs: context.timeoutMs });
    for (const table of chunk) table.rowCount = -1;
    for (const [index, count] of result.rows) {
      const table = chunk[Number(index)];
      if (table !== undefined) table.rowCount = Number(count);
    }
  }
}

/** An alias for the sampled row that no column of the table shadows. */
function rowAlias(table: TableDescription): string {
  const taken = new Set(table.columns.map((column) => column.name.toLowerCase()));
  let alias = '_assay_row';
  for (let suffix = 2; taken.has(alias); suffix += 1) alias = `_assay_row_${suffix}`;
  return alias;
}

function variantSafe(table: TableDescription): boolean {
  return table.columns.every((column) => VARIANT_SAFE_TYPE.test(column.type));
}

/** A VARIANT-cast row back into the cells the plain path returns, keyed and ordered by the table's columns. */
function rowFromVariant(value: DuckDBValue, table: TableDescription): Row {
  const inner = value instanceof DuckDBVariantValue ? value.value : value;
  if (!(inner instanceof DuckDBStructValue)) throw new WarehouseError(`sample of ${table.qualified}: unexpected row shape`);
  const row: Row = {};
  for (const column of table.columns) {
    if (!Object.hasOwn(inner.entries, column.name)) throw new WarehouseError(`sample of ${table.qualified}: column ${column.name} missing`);
    row[column.name] = duckdbCell(inner.entries[column.name] ?? null);
  }
  return row;
}

/** Rows of a plain `SELECT *`, keyed as the agent path keys them. */
function plainRows(result: InternalResult): Row[] {
  const names = deduplicateColumnNames(result.names);
  return result.rows.map((values) => {
    const row: Row = {};
    values.forEach((value, position) => {
      row[names[position] ?? `column_${position + 1}`] = duckdbCell(value);
    });
    return row;
  });
}

/** The column types of a table, in order: tables with the same shape can share one UNION ALL with no cast. */
function tableShape(table: Pick<TableDescription, 'columns'>): string {
  return table.columns.map((column) => column.type).join('\u0000');
}

type SampleContext = Pick<DuckdbCatalogContext, 'reader' | 'filtered' | 'tenantFilter' | 'timeoutMs' | 'baseTables'>;

/** A base table read directly (no tenant filter) whose `rowid` no column shadows: its scan order is its rowid order. */
function orderedByRowid(table: TableDescription, context: SampleContext): boolean {
  return (
    context.baseTables.has(relationKey(table.schema, table.name)) &&
    !isFiltered(table, context) &&
    !table.columns.some((column) => column.name.toLowerCase() === 'rowid')
  );
}

/**
 * One UNION ALL branch: the table's first rows as the plain `SELECT * … LIMIT n` reads them, after
 * the table's position (k) and the rows' ordinal (r); `payload` is `*` or the row cast to VARIANT.
 */
function sampleBranch(index: number, table: TableDescription, context: SampleContext, payload: 'columns' | 'variant'): string {
  const alias = quoteIdentifier(rowAlias(table));
  const selected = payload === 'variant' ? `${alias}::VARIANT AS v` : '*';
  if (orderedByRowid(table, context)) {
    return `(SELECT ${index} AS k, rowid AS r, ${selected} FROM ${qualifiedSql(table)} AS ${alias} LIMIT ${SAMPLE_ROW_COUNT})`;
  }
  return `(SELECT ${index} AS k, row_number() OVER () AS r, ${selected} FROM (SELECT * FROM ${sourceSql(table, context)} LIMIT ${SAMPLE_ROW_COUNT}) AS ${alias})`;
}

/**
 * Branches in one statement, sorted by (k, r): the result comes back in a few full chunks, each
 * table's rows in their order. The limit is every row the branches can return (so none is lost);
 * with it the engine plans a top-n, which costs less per branch than a full sort.
 */
function sortedUnion(branches: readonly string[]): string {
  return `SELECT * FROM (${branches.join('\nUNION ALL ')}) ORDER BY 1, 2 LIMIT ${branches.length * SAMPLE_ROW_COUNT}`;
}

/** Sample rows of each table, in input order (see the module comment for how they are read). */
export async function sampleDuckdbTables(
  tables: readonly TableDescription[],
  context: SampleContext,
  options: SampleOptions = {},
): Promise<Row[][]> {
  const deadline = performance.now() + (options.timeoutMs ?? context.timeoutMs);
  const run = (sql: string) =>
    context.reader.run(sql, { timeoutMs: Math.max(1, Math.round(deadline - performance.now())), signal: options.signal });
  const samples: Row[][] = tables.map(() => []);
  /** Rows of a sorted union: [k, r, …payload], each handed to `add` with its table. */
  const readSorted = async (
    sql: string,
    width: (table: TableDescription) => number,
    add: (table: TableDescription, values: DuckDBValue[], index: number) => void,
  ) => {
    const result = await run(sql);
    for (const values of result.rows) {
      const index = Number(values[0]);
      const table = tables[index];
      if (table === undefined || values.length !== width(table)) throw new WarehouseError('sample rows out of place');
      add(table, values, index);
    }
  };

  const shapes = new Map<string, number[]>();
  tables.forEach((table, index) => {
    if (table.rowCount === 0) return;
    const shape = tableShape(table);
    shapes.set(shape, [...(shapes.get(shape) ?? []), index]);
  });
  const variant: number[] = [];
  const single: number[] = [];
  for (const members of shapes.values()) {
    if (members.length > 1) {
      // same column types: one UNION ALL, each row as the engine's own values (read by position)
      for (const chunk of chunksOf(members, UNION_BRANCHES)) {
        const sql = sortedUnion(chunk.map((index) => sampleBranch(index, tables[index] as TableDescription, context, 'columns')));
        await readSorted(
          sql,
          (table) => table.columns.length + 2,
          (table, values, index) => {
            const row: Row = {};
            table.columns.forEach((column, position) => {
              row[column.name] = duckdbCell(values[position + 2] ?? null);
            });
            (samples[index] as Row[]).push(row);
          },
        );
      }
    } else {
      const index = members[0] as number;
      (tables.length > 1 && variantSafe(tables[index] as TableDescription) ? variant : single).push(index);
    }
  }

  // tables of a shape of their own: rows cast to VARIANT so they can share a UNION ALL
  for (const chunk of chunksOf(variant, UNION_BRANCHES)) {
    const sql = sortedUnion(chunk.map((index) => sampleBranch(index, tables[index] as TableDescription, context, 'variant')));
    await readSorted(
      sql,
      () => 3,
      (table, values, index) => {
        (samples[index] as Row[]).push(rowFromVariant(values[2] ?? null, table));
      },
    );
  }

  for (const index of single) {
    samples[index] = plainRows(
      await run(`SELECT * FROM ${sourceSql(tables[index] as TableDescription, context)} LIMIT ${SAMPLE_ROW_COUNT}`),
    );
  }
  return samples;
}
