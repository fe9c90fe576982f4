/** Opening a DuckDB file for the demo generator and its checks, with DuckDB failures as WarehouseError. */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { WarehouseError } from '../errors/index.js';

export type DuckDbRow = Record<string, unknown>;

/** Opens `path`, runs `work`, and always closes the connection and the instance. */
export async function withDuckDbFile<T>(
  path: string,
  access: 'read_write' | 'read_only',
  work: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, access === 'read_only' ? { access_mode: 'READ_ONLY' } : {});
  } catch (error) {
    throw new WarehouseError(`cannot open DuckDB file ${path}: ${messageOf(error)}`, { cause: error });
  }
  try {
    const connection = await instance.connect();
    try {
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/**
 * DuckDB's default 256 KiB block gives every small table a block of its own; a warehouse of 1,500
 * mostly tiny tables then takes ~300 MB on disk. 16 KiB (the smallest DuckDB allows) makes it ~80 MB.
 */
const NEW_FILE_BLOCK_SIZE = 16_384;
/** The alias the new file is attached under while it is being built. */
const NEW_FILE_ALIAS = 'demo_build';

/** Creates a new DuckDB file at `path` with small blocks, makes it the default database, and runs `work`. */
export async function withNewDuckDbFile<T>(path: string, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  return withDuckDbFile(':memory:', 'read_write', async (connection) => {
    await runSql(
      connection,
      `ATTACH '${path.replaceAll("'", "''")}' AS ${NEW_FILE_ALIAS} (BLOCK_SIZE ${NEW_FILE_BLOCK_SIZE}); USE ${NEW_FILE_ALIAS};`,
      `creating ${path}`,
    );
    return work(connection);
  });
}

/** Runs SQL (possibly several statements) and wraps a DuckDB failure with what was being done. */
export async function runSql(connection: DuckDBConnection, sql: string, doing: string): Promise<void> {
  try {
    await connection.run(sql);
  } catch (error) {
    throw new WarehouseError(`${doing} failed: ${messageOf(error)}`, { cause: error });
  }
}

/** Runs one SELECT and returns its rows as plain JS objects. */
export async function queryRows(connection: DuckDBConnection, sql: string, doing: string): Promise<DuckDbRow[]> {
  try {
    const reader = await connection.runAndReadAll(sql);
    return reader.getRowObjectsJS();
  } catch (error) {
    throw new WarehouseError(`${doing} failed: ${messageOf(error)}`, { cause: error });
  }
}

/** A numeric cell (DOUBLE, BIGINT, DECIMAL, HUGEINT) as a JS number; undefined when not numeric. */
export function numericCell(cell: unknown): number | undefined {
  if (typeof cell === 'number') return cell;
  if (typeof cell === 'bigint') return Number(cell);
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
