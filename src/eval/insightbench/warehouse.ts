/**
 * A flag's CSVs as a new DuckDB warehouse file: one table per CSV, columns and types as DuckDB's
 * `read_csv_auto` infers them, and each column's top values (what the template baseline states). The
 * file is built once; discovery then opens it read-only like any user warehouse.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { dirname } from 'node:path';
import { WarehouseError } from '../../errors/index.js';
import { numericCell, queryRows, withNewDuckDbFile } from '../../demo/duckdb-file.js';
import { quoteIdentifier } from '../../warehouse/tenant-filter.js';
import type { FlagTable } from './flag.js';
import { type ColumnTopValues, TEMPLATE_TOP_VALUES } from './template-baseline.js';

export interface LoadedTable extends FlagTable {
  rows: number;
  columns: number;
  /** Every column's most frequent values, in column order (a column whose every value is unique has none). */
  top_values: ColumnTopValues[];
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Each column's TEMPLATE_TOP_VALUES most frequent non-null values held by more than one row (ties by value). */
async function columnTopValues(connection: DuckDBConnection, table: string): Promise<ColumnTopValues[]> {
  const columns = await queryRows(
    connection,
    `SELECT column_name FROM duckdb_columns() WHERE table_name = ${sqlString(table)} ORDER BY column_index`,
    `listing the columns of ${table}`,
  );
  const profiles: ColumnTopValues[] = [];
  for (const { column_name: column } of columns) {
    const quoted = quoteIdentifier(String(column));
    const rows = await queryRows(
      connection,
      `SELECT CAST(${quoted} AS VARCHAR) AS value, count(*) AS row_count FROM ${quoteIdentifier(table)} WHERE ${quoted} IS NOT NULL GROUP BY 1 HAVING count(*) > 1 ORDER BY row_count DESC, value LIMIT ${TEMPLATE_TOP_VALUES}`,
      `reading the top values of ${table}.${String(column)}`,
    );
    profiles.push({
      table,
      column: String(column),
      values: rows.map((row) => ({ value: String(row.value), rows: numericCell(row.row_count) ?? 0 })),
    });
  }
  return profiles;
}

/** Writes `tables` into a new DuckDB file at `path` (an existing file there is replaced). */
export async function buildFlagWarehouse(path: string, tables: readonly FlagTable[]): Promise<LoadedTable[]> {
  mkdirSync(dirname(path), { recursive: true });
  for (const stale of [path, `${path}.wal`]) if (existsSync(stale)) rmSync(stale);
  return withNewDuckDbFile(path, async (connection) => {
    const loaded: LoadedTable[] = [];
    for (const { table, file } of tables) {
      const name = quoteIdentifier(table);
      try {
        await connection.run(`CREATE TABLE ${name} AS SELECT * FROM read_csv_auto(${sqlString(file)})`);
      } catch (error) {
        throw new WarehouseError(`loading ${file} into table ${table} failed: ${(error as Error).message}`, { cause: error });
      }
      const [shape] = await queryRows(
        connection,
        `SELECT (SELECT count(*) FROM ${name}) AS row_count, (SELECT count(*) FROM duckdb_columns() WHERE table_name = ${sqlString(table)}) AS column_count`,
        `counting the rows of ${table}`,
      );
      loaded.push({
        table,
        file,
        rows: numericCell(shape?.row_count) ?? 0,
        columns: numericCell(shape?.column_count) ?? 0,
        top_values: await columnTopValues(connection, table),
      });
    }
    await connection.run('CHECKPOINT');
    return loaded;
  });
}
