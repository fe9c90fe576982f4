/**
 * `assay demo-data --into URL`: copies a generated demo warehouse (a DuckDB file) into MySQL/MariaDB
 * or ClickHouse, table by table, with the column types mapped to the engine's own, so the same data
 * can be discovered there. The URL's login must be allowed to create tables in its database (the
 * reader Assay explores with should not be: see docs/warehouses.md).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConfigError, WarehouseError, describeError } from '../errors/index.js';
import { parseWarehouseUrl, type WarehouseTarget } from '../warehouse/warehouse-url.js';
import { withDuckDbFile } from './duckdb-file.js';

export interface LoadedTable {
  name: string;
  rows: number;
}

interface SourceColumn {
  name: string;
  type: string;
  nullable: boolean;
}

interface SourceTable {
  /** The DuckDB schema and table it is read from. */
  schema: string;
  table: string;
  /** Its name in the target database: `table`, or `schema_table` outside DuckDB's `main` (one database holds them all). */
  name: string;
  columns: SourceColumn[];
  /** The columns of its primary key, in key order (none when DuckDB declares none). */
  primaryKey: string[];
}

/** `id`, `order_id`, `customerId`: the columns a demo joins on. */
const KEY_COLUMN = /(^id$|_id$|[a-z]Id$)/;
/** Rows per INSERT. */
const INSERT_BATCH = 2_000;

/** DuckDB type → MySQL/MariaDB type; keys and text use VARCHAR so they can be indexed. */
export function mysqlColumnType(duckdbType: string): string {
  const type = duckdbType.toUpperCase();
  if (/^DECIMAL\(\d+,\s*\d+\)$/.test(type)) return type;
  const simple: Record<string, string> = {
    BIGINT: 'BIGINT',
    INTEGER: 'INT',
    SMALLINT: 'SMALLINT',
    TINYINT: 'TINYINT',
    UBIGINT: 'BIGINT UNSIGNED',
    UINTEGER: 'INT UNSIGNED',
    HUGEINT: 'DECIMAL(38,0)',
    DOUBLE: 'DOUBLE',
    FLOAT: 'FLOAT',
    BOOLEAN: 'BOOLEAN',
    DATE: 'DATE',
    TIMESTAMP: 'DATETIME(6)',
    'TIMESTAMP WITH TIME ZONE': 'DATETIME(6)',
    TIME: 'TIME(6)',
    UUID: 'CHAR(36)',
    VARCHAR: 'TEXT',
  };
  return simple[type] ?? 'TEXT';
}

/** DuckDB type → ClickHouse type (kept to types 18.16 has: DateTime rather than DateTime64). */
export function clickhouseColumnType(duckdbType: string, nullable: boolean): string {
  const type = duckdbType.toUpperCase();
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(type);
  const simple: Record<string, string> = {
    BIGINT: 'Int64',
    INTEGER: 'Int32',
    SMALLINT: 'Int16',
    TINYINT: 'Int8',
    UBIGINT: 'UInt64',
    UINTEGER: 'UInt32',
    DOUBLE: 'Float64',
    FLOAT: 'Float32',
    BOOLEAN: 'UInt8',
    DATE: 'Date',
    TIMESTAMP: 'DateTime',
    'TIMESTAMP WITH TIME ZONE': 'DateTime',
    UUID: 'String',
    VARCHAR: 'String',
  };
  const base = decimal ? `Decimal(${decimal[1]}, ${decimal[2]})` : (simple[type] ?? 'String');
  return nullable ? `Nullable(${base})` : base;
}

async function readSourceTables(connection: DuckDBConnection): Promise<SourceTable[]> {
  const reader = await connection.runAndReadAll(
    `SELECT schema_name, table_name, column_name, data_type, is_nullable FROM duckdb_columns()
      WHERE NOT internal AND database_name = current_database() ORDER BY schema_name, table_name, column_index`,
  );
  const keys = await connection.runAndReadAll(
    `SELECT schema_name, table_name, constraint_column_names FROM duckdb_constraints()
      WHERE constraint_type = 'PRIMARY KEY' AND database_name = current_database()`,
  );
  const primaryKeys = new Map<string, string[]>();
  for (const [schema, table, columns] of keys.getRows()) {
    const names = (columns as { items?: unknown[] } | null)?.items?.map(String) ?? [];
    primaryKeys.set(`${String(schema)}.${String(table)}`, names);
  }
  const tables = new Map<string, SourceTable>();
  for (const [schema, table, column, type, nullable] of reader.getRows()) {
    const name = String(schema) === 'main' ? String(table) : `${String(schema)}_${String(table)}`;
    const entry = tables.get(name) ?? {
      schema: String(schema),
      table: String(table),
      name,
      columns: [],
      primaryKey: primaryKeys.get(`${String(schema)}.${String(table)}`) ?? [],
    };
    entry.columns.push({ name: String(column), type: String(type), nullable: nullable === true });
    tables.set(name, entry);
  }
  return [...tables.values()];
}

/** A DuckDB value as the target's driver expects it: dates and timestamps as text, big integers as text. */
function plainValue(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint')
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'object') {
    const text = String(value);
    // DuckDB timestamps print as `2024-03-01 10:11:12[.123456]`, dates as `2024-03-01`
    if (/^TIMESTAMP/i.test(type)) return text.replace(/\+00(:00)?$/, '');
    return text;
  }
  return value;
}

async function* batches(connection: DuckDBConnection, table: SourceTable): AsyncGenerator<unknown[][]> {
  const columns = table.columns.map((column) => `"${column.name.replaceAll('"', '""')}"`).join(', ');
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const result = await connection.stream(`SELECT ${columns} FROM ${quoted(table.schema)}.${quoted(table.table)}`);
  let batch: unknown[][] = [];
  for (;;) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    for (const row of chunk.getRows()) {
      batch.push(row.map((value, index) => plainValue(value, table.columns[index]?.type ?? '')));
      if (batch.length === INSERT_BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

type Loader = {
  create(table: SourceTable): Promise<void>;
  insert(table: SourceTable, rows: unknown[][]): Promise<void>;
  /** After the last insert: refresh the statistics the catalog's row counts come from. */
  finish(tables: readonly string[]): Promise<void>;
  close(): Promise<void>;
};

async function mysqlLoader(target: Extract<WarehouseTarget, { engine: 'mysql' }>): Promise<Loader> {
  const { default: mysql } = await import('mysql2/promise');
  const connection = await mysql.createConnection({ uri: target.connectionString, timezone: 'Z' });
  await connection.query("SET time_zone = '+00:00'");
  const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;
  return {
    async create(table) {
      await connection.query(`DROP TABLE IF EXISTS ${quote(table.name)}`);
      const columns = table.columns.map(
        (column) => `${quote(column.name)} ${mysqlColumnType(column.type)}${column.nullable ? '' : ' NOT NULL'}`,
      );
      // the primary key DuckDB declares (the catalog reads keys from it), and an index on every other key
      // column, as the database the demo stands for would have: joins on them stay hash-free and fast
      const primary = table.primaryKey.length > 0 ? [`PRIMARY KEY (${table.primaryKey.map(quote).join(', ')})`] : [];
      const keys = table.columns
        .filter(
          (column) =>
            KEY_COLUMN.test(column.name) && column.name !== table.primaryKey[0] && !/^(VARCHAR|TEXT)/i.test(mysqlColumnType(column.type)),
        )
        .map((column) => `KEY (${quote(column.name)})`);
      await connection.query(`CREATE TABLE ${quote(table.name)} (${[...columns, ...primary, ...keys].join(', ')})`);
    },
    async insert(table, rows) {
      await connection.query(
        `INSERT INTO ${quote(table.name)} (${table.columns.map((column) => quote(column.name)).join(', ')}) VALUES ?`,
        [rows],
      );
    },
    async finish(tables) {
      if (tables.length > 0) await connection.query(`ANALYZE TABLE ${tables.map(quote).join(', ')}`);
    },
    close: () => connection.end(),
  };
}

async function clickhouseLoader(target: Extract<WarehouseTarget, { engine: 'clickhouse' }>): Promise<Loader> {
  const { createClient, ClickHouseLogLevel } = await import('@clickhouse/client');
  const parsed = new URL(target.connectionString);
  const client = createClient({
    url: `${target.protocol}://${parsed.hostname}:${target.port}`,
    username: target.user.length > 0 ? target.user : 'default',
    password: decodeURIComponent(parsed.password),
    database: target.database,
    log: { level: ClickHouseLogLevel.OFF },
  });
  const quote = (name: string) => `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
  const qualified = (name: string) => `${quote(target.database)}.${quote(name)}`;
  return {
    async create(table) {
      await client.command({ query: `DROP TABLE IF EXISTS ${qualified(table.name)}` });
      const columns = table.columns.map((column) => `${quote(column.name)} ${clickhouseColumnType(column.type, column.nullable)}`);
      // the primary key DuckDB declares is the sorting key (system.columns marks it is_in_primary_key)
      const order = table.primaryKey.length > 0 ? `(${table.primaryKey.map(quote).join(', ')})` : 'tuple()';
      await client.command({ query: `CREATE TABLE ${qualified(table.name)} (${columns.join(', ')}) ENGINE = MergeTree ORDER BY ${order}` });
    },
    async insert(table, rows) {
      // old servers read a Decimal in JSONEachRow only as a JSON number, never as quoted text
      const decimals = table.columns.map((column) => /^DECIMAL/i.test(column.type));
      const values = rows.map((row) =>
        Object.fromEntries(
          table.columns.map((column, index) => {
            const value = row[index] ?? null;
            return [column.name, decimals[index] && typeof value === 'string' ? Number(value) : value];
          }),
        ),
      );
      await client.insert({ table: qualified(table.name), values, format: 'JSONEachRow' });
    },
    // MergeTree counts its rows as it writes its parts
    finish: async () => undefined,
    close: () => client.close(),
  };
}

/** Copies every table of the demo DuckDB file at `duckdbPath` into the warehouse at `url`. */
export async function loadDemoInto(duckdbPath: string, url: string): Promise<LoadedTable[]> {
  const target = parseWarehouseUrl(url);
  if (target.engine !== 'mysql' && target.engine !== 'clickhouse') {
    throw new ConfigError(`--into takes a mysql:// or clickhouse:// URL (a login that may create tables); got a ${target.engine} URL`);
  }
  let loader: Loader;
  try {
    loader = target.engine === 'mysql' ? await mysqlLoader(target) : await clickhouseLoader(target);
  } catch (error) {
    throw new WarehouseError(`could not connect to the --into warehouse: ${describeError(error)}`, { cause: error });
  }
  try {
    return await withDuckDbFile(duckdbPath, 'read_only', async (connection) => {
      const loaded: LoadedTable[] = [];
      for (const table of await readSourceTables(connection)) {
        await loader.create(table);
        let rows = 0;
        for await (const batch of batches(connection, table)) {
          await loader.insert(table, batch);
          rows += batch.length;
        }
        loaded.push({ name: table.name, rows });
      }
      await loader.finish(loaded.map((table) => table.name));
      return loaded;
    });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof WarehouseError) throw error;
    throw new WarehouseError(`loading the demo into ${target.engine} failed: ${describeError(error)}`, { cause: error });
  } finally {
    await loader.close();
  }
}
