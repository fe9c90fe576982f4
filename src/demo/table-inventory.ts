/** The tables of a generated demo warehouse: names, exact row counts, and content checksums. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { numericCell, queryRows } from './duckdb-file.js';

export interface DemoTableCount {
  /** Qualified `schema.table`. */
  name: string;
  rows: number;
}

/** Row counts are read in batches so a 1,500-table warehouse needs a handful of queries, not 1,500. */
const COUNT_QUERY_BATCH = 250;

export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

function qualifiedSql(name: string): string {
  const dot = name.indexOf('.');
  return `${quoteIdentifier(name.slice(0, dot))}.${quoteIdentifier(name.slice(dot + 1))}`;
}

/** Every persistent table of the open database, as `schema.table`, sorted. */
export async function listQualifiedTables(connection: DuckDBConnection): Promise<string[]> {
  const rows = await queryRows(
    connection,
    `SELECT schema_name || '.' || table_name AS name FROM duckdb_tables()
     WHERE database_name = current_database() AND NOT temporary ORDER BY schema_name, table_name`,
    'listing tables',
  );
  return rows.map((row) => String(row.name));
}

function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

async function perTable(
  connection: DuckDBConnection,
  tables: readonly string[],
  expression: string,
  doing: string,
): Promise<Map<string, unknown>> {
  const results = new Map<string, unknown>();
  for (const batch of inBatches(tables, COUNT_QUERY_BATCH)) {
    const sql = batch
      .map((name) => `SELECT '${name.replaceAll("'", "''")}' AS name, (${expression.replaceAll('{table}', qualifiedSql(name))}) AS result`)
      .join('\nUNION ALL\n');
    for (const row of await queryRows(connection, sql, doing)) results.set(String(row.name), row.result);
  }
  return results;
}

export async function countTableRows(connection: DuckDBConnection): Promise<DemoTableCount[]> {
  const tables = await listQualifiedTables(connection);
  const counts = await perTable(connection, tables, 'SELECT count(*) FROM {table}', 'counting rows');
  return tables.map((name) => ({ name, rows: numericCell(counts.get(name)) ?? 0 }));
}

/**
 * A digest of each table's contents that is independent of row order: the row count with the XOR
 * and the exact (HUGEINT) sum of the per-row hashes. The sum keeps it sensitive to duplicated rows,
 * which cancel out of an XOR. Two generations agree on it when they hold the same rows.
 */
export async function checksumTables(connection: DuckDBConnection): Promise<Record<string, string>> {
  const tables = await listQualifiedTables(connection);
  const digests = await perTable(
    connection,
    tables,
    `SELECT count(*)::VARCHAR || ':' || coalesce(bit_xor(row_hash), 0)::VARCHAR || ':' || coalesce(sum(row_hash), 0)::VARCHAR FROM (SELECT hash(t) AS row_hash FROM {table} t)`,
    'checksumming tables',
  );
  return Object.fromEntries(tables.map((name) => [name, String(digests.get(name))]));
}
