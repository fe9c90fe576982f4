/**
 * A flag's CSVs as a new DuckDB warehouse file: one table per CSV, columns and types as DuckDB's
 * `read_csv_auto` infers them. The file is built once; discovery then opens it read-only like any
 * user warehouse.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { WarehouseError } from '../../errors/index.js';
import { numericCell, queryRows, withNewDuckDbFile } from '../../demo/duckdb-file.js';
import { quoteIdentifier } from '../../warehouse/tenant-filter.js';
import type { FlagTable } from './flag.js';

export interface LoadedTable extends FlagTable {
  rows: number;
  columns: number;
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
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
      loaded.push({ table, file, rows: numericCell(shape?.row_count) ?? 0, columns: numericCell(shape?.column_count) ?? 0 });
    }
    await connection.run('CHECKPOINT');
    return loaded;
  });
}
