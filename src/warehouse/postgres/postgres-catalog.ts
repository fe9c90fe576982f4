/**
 * Whole-catalog reads for schema discovery (issue #13): every relation the reader may select from,
 * with its columns, primary key and row count, from two `pg_catalog` queries, and the sample rows
 * of many tables per round trip. Describing table by table cost three queries per table.
 *
 * Row counts are the planner's `reltuples`, except: a tenant-filtered relation is counted through
 * its filter (an estimate would reveal other tenants' volume), and a small table or materialised
 * view that was never analysed (`reltuples` = -1) is counted exactly, as `describeTable` does;
 * those counts run many per statement. A count that fails leaves -1 (unknown) rather than losing
 * the table.
 *
 * Samples of a batch are one multi-statement query (`SELECT * … LIMIT n` per table) inside the
 * adapter's read-only transaction, so a batch costs one round trip. Internal statements are the
 * adapter's own SQL built from quoted catalog names (never agent text), so they skip the SQL
 * guard; a tenant-filtered relation is read only through its filter, as in agent SQL.
 */
import type pg from 'pg';
import type { Row } from '../../domain/index.js';
import { WarehouseError } from '../../errors/index.js';
import { deduplicateColumnNames } from '../cells.js';
import { catalogComment } from '../comments.js';
import { inferColumnCategory } from '../column-category.js';
import { SAMPLE_ROW_COUNT } from '../limits.js';
import type { ColumnInfo, SampleOptions, TableDescription } from '../port.js';
import { filteredRelationSql, quoteIdentifier, relationKey, type FilteredRelations, type TenantFilter } from '../tenant-filter.js';
import { postgresCell } from './postgres-cells.js';

/** Exact counts per UNION ALL statement. */
const COUNT_BRANCHES = 100;

export type ReadOnlyRunner = <T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  work: (client: pg.PoolClient) => Promise<T>,
) => Promise<T>;

export interface PostgresCatalogContext {
  pool: pg.Pool;
  /** The adapter's read-only transaction (statement timeout, cancellation, rollback). */
  readOnly: ReadOnlyRunner;
  /** `WHERE` conditions on `c` (pg_class) and `n` (pg_namespace) that `listTables` applies. */
  relationFilter: string;
  /** Below this many bytes a never-analysed table is counted exactly. */
  exactCountMaxBytes: number;
  tenant: { filter: TenantFilter; filtered: FilteredRelations } | undefined;
  /** Time limit of one count statement. */
  timeoutMs: number;
}

interface RelationRow {
  nspname: string;
  relname: string;
  relkind: string;
  reltuples: number;
  bytes: string | null;
  comment: string | null;
}

interface ColumnRow {
  nspname: string;
  relname: string;
  attname: string;
  type: string;
  attnotnull: boolean;
  primary_key: boolean;
  comment: string | null;
}

/** A catalog row as a column: its role inferred from name, type and key, its comment when it has one. */
export function postgresColumn(row: Pick<ColumnRow, 'attname' | 'type' | 'attnotnull' | 'primary_key' | 'comment'>): ColumnInfo {
  const comment = catalogComment(row.comment);
  return {
    name: row.attname,
    type: row.type,
    nullable: !row.attnotnull,
    category: inferColumnCategory(row.attname, row.type, { primaryKey: row.primary_key }),
    ...(comment === undefined ? {} : { comment }),
  };
}

function keyOf(schema: string, name: string): string {
  return `${schema}\u0000${name}`;
}

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

function isFiltered(table: { schema: string; name: string }, context: Pick<PostgresCatalogContext, 'tenant'>): boolean {
  return context.tenant?.filtered.has(relationKey(table.schema, table.name)) === true;
}

/** What a relation is read through: itself, or the tenant filter's derived table. */
function sourceSql(table: { schema: string; name: string }, context: Pick<PostgresCatalogContext, 'tenant'>): string {
  if (context.tenant !== undefined && isFiltered(table, context)) {
    return `${filteredRelationSql(table.schema, table.name, context.tenant.filter)} AS ${quoteIdentifier(table.name)}`;
  }
  return `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
}

/** Every relation `listTables` returns, with columns and row counts, sorted by qualified name. */
export async function readPostgresCatalog(context: PostgresCatalogContext): Promise<TableDescription[]> {
  const [relations, columns] = await Promise.all([
    context.pool.query<RelationRow>(
      `SELECT n.nspname, c.relname, c.relkind, c.reltuples,
              CASE WHEN c.reltuples < 0 THEN pg_relation_size(c.oid)::text END AS bytes,
              obj_description(c.oid, 'pg_class') AS comment
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE ${context.relationFilter}`,
    ),
    context.pool.query<ColumnRow>(
      `SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
              coalesce(a.attnum = ANY(i.indkey), false) AS primary_key, col_description(c.oid, a.attnum) AS comment
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
        WHERE ${context.relationFilter} AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attrelid, a.attnum`,
    ),
  ]);

  const columnsByTable = new Map<string, TableDescription['columns']>();
  for (const row of columns.rows) {
    const key = keyOf(row.nspname, row.relname);
    const list = columnsByTable.get(key) ?? [];
    list.push(postgresColumn(row));
    columnsByTable.set(key, list);
  }

  const tables: TableDescription[] = [];
  const toCount: TableDescription[] = [];
  for (const row of relations.rows) {
    const tableColumns = columnsByTable.get(keyOf(row.nspname, row.relname));
    if (tableColumns === undefined || tableColumns.length === 0) continue;
    const comment = catalogComment(row.comment);
    const table: TableDescription = {
      schema: row.nspname,
      name: row.relname,
      qualified: `${row.nspname}.${row.relname}`,
      columns: tableColumns,
      rowCount: row.reltuples >= 0 ? Math.round(row.reltuples) : -1,
      ...(comment === undefined ? {} : { comment }),
    };
    const neverAnalysedAndSmall =
      row.reltuples < 0 &&
      (row.relkind === 'r' || row.relkind === 'm') &&
      Number(row.bytes ?? Number.POSITIVE_INFINITY) <= context.exactCountMaxBytes;
    if (isFiltered(table, context) || neverAnalysedAndSmall) toCount.push(table);
    tables.push(table);
  }
  await countExactly(toCount, context);
  return tables.sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
}

/** Exact counts, many per statement; a statement that fails is retried table by table, and a table that still fails keeps -1. */
async function countExactly(tables: readonly TableDescription[], context: PostgresCatalogContext): Promise<void> {
  const count = async (chunk: readonly TableDescription[]): Promise<void> => {
    const sql = chunk.map((table, index) => `SELECT ${index} AS k, count(*) AS n FROM ${sourceSql(table, context)}`).join('\nUNION ALL ');
    const result = await context.readOnly(context.timeoutMs, undefined, (client) => client.query<{ k: number; n: string }>(sql));
    for (const row of result.rows) {
      const table = chunk[Number(row.k)];
      if (table !== undefined) table.rowCount = Number(row.n);
    }
  };
  for (const chunk of chunksOf(tables, COUNT_BRANCHES)) {
    for (const table of chunk) table.rowCount = -1;
    try {
      await count(chunk);
    } catch {
      if (chunk.length === 1) continue;
      for (const table of chunk) await count([table]).catch(() => undefined);
    }
  }
}

/** Sample rows of each table, in input order: one multi-statement query per call, in one read-only transaction. */
export async function samplePostgresTables(
  tables: readonly TableDescription[],
  context: Pick<PostgresCatalogContext, 'readOnly' | 'tenant' | 'timeoutMs'>,
  options: SampleOptions = {},
): Promise<Row[][]> {
  if (tables.length === 0) return [];
  const sql = tables.map((table) => `SELECT * FROM ${sourceSql(table, context)} LIMIT ${SAMPLE_ROW_COUNT}`).join(';\n');
  const results = await context.readOnly(options.timeoutMs ?? context.timeoutMs, options.signal, async (client) => {
    const answer = (await client.query({ text: sql, rowMode: 'array' })) as unknown as
      | pg.QueryResult<unknown[]>
      | Array<pg.QueryResult<unknown[]>>;
    return Array.isArray(answer) ? answer : [answer];
  });
  if (results.length !== tables.length) throw new WarehouseError(`expected ${tables.length} sample results, got ${results.length}`);
  return results.map((result) => {
    const names = deduplicateColumnNames(result.fields.map((field) => field.name));
    return result.rows.map((values) => {
      const row: Row = {};
      result.fields.forEach((field, index) => {
        row[names[index] ?? field.name] = postgresCell(values[index], field.dataTypeID);
      });
      return row;
    });
  });
}
