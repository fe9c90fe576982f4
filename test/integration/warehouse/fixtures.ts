/** The same small dataset in every engine the warehouse contract runs against. */
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import pg from 'pg';

/** Portable SQL: runs unchanged on DuckDB and PostgreSQL. */
export const FIXTURE_STATEMENTS = [
  'CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, country VARCHAR(2), signup_date DATE NOT NULL)',
  "INSERT INTO customers VALUES (1, 'Ada', 'GB', '2024-01-05'), (2, 'Linus', 'FI', '2024-02-10'), (3, 'Grace', NULL, '2024-03-15')",
  `CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount DECIMAL(10,2) NOT NULL, big_total BIGINT,
     created_at TIMESTAMP NOT NULL, note VARCHAR(100))`,
  `INSERT INTO orders VALUES (1, 1, 10.50, 9007199254740993, '2024-01-06 10:00:00', NULL), (2, 1, 20.00, 5, '2024-01-07 11:30:00', 'gift'),
     (3, 2, 5.25, NULL, '2024-02-11 09:15:00', NULL), (4, 3, 99.99, 7, '2024-03-16 18:45:00', 'rush')`,
  'CREATE TABLE canary (id INTEGER)',
  'INSERT INTO canary VALUES (1)',
  'CREATE TABLE _assay_internal (id INTEGER)',
  'CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 15',
];

const FILE_TABLES = ['customers', 'orders', 'canary', '_assay_internal'] as const;

export async function createDuckdbFixtureFile(directory: string): Promise<string> {
  const file = path.join(directory, 'fixture.duckdb');
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  for (const statement of FIXTURE_STATEMENTS) await connection.run(statement);
  await connection.run('CHECKPOINT');
  connection.closeSync();
  instance.closeSync();
  return file;
}

/** The fixture tables as Parquet files (types kept, constraints lost), for a `duckdb::memory:` warehouse. */
export async function createParquetFixtureFiles(directory: string): Promise<Record<string, string>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const statement of FIXTURE_STATEMENTS) await connection.run(statement);
  const files: Record<string, string> = {};
  for (const table of FILE_TABLES) {
    files[table] = path.join(directory, `${table}.parquet`);
    await connection.run(`COPY ${table} TO '${files[table]}' (FORMAT parquet)`);
  }
  connection.closeSync();
  instance.closeSync();
  return files;
}

export async function loadPostgresFixture(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const statement of FIXTURE_STATEMENTS) await client.query(statement);
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

export async function loadMysqlFixture(adminUrl: string): Promise<void> {
  const connection = await mysql.createConnection({ uri: adminUrl });
  try {
    // timestamps are written and read in UTC, as the adapter's session reads them
    await connection.query("SET time_zone = '+00:00'");
    for (const statement of FIXTURE_STATEMENTS) await connection.query(statement);
    await connection.query('ANALYZE TABLE customers, orders, canary');
  } finally {
    await connection.end();
  }
}

/** The fixture in ClickHouse's types (MergeTree tables; Nullable where the portable schema allows NULL). */
export const CLICKHOUSE_FIXTURE_STATEMENTS = [
  'CREATE TABLE customers (id Int32, name String, country Nullable(String), signup_date Date) ENGINE = MergeTree ORDER BY id',
  "INSERT INTO customers VALUES (1, 'Ada', 'GB', '2024-01-05'), (2, 'Linus', 'FI', '2024-02-10'), (3, 'Grace', NULL, '2024-03-15')",
  `CREATE TABLE orders (id Int32, customer_id Int32, amount Decimal(10, 2), big_total Nullable(Int64), created_at DateTime,
     note Nullable(String)) ENGINE = MergeTree ORDER BY id`,
  `INSERT INTO orders VALUES (1, 1, 10.50, 9007199254740993, '2024-01-06 10:00:00', NULL), (2, 1, 20.00, 5, '2024-01-07 11:30:00', 'gift'),
     (3, 2, 5.25, NULL, '2024-02-11 09:15:00', NULL), (4, 3, 99.99, 7, '2024-03-16 18:45:00', 'rush')`,
  'CREATE TABLE canary (id Int32) ENGINE = MergeTree ORDER BY id',
  'INSERT INTO canary VALUES (1)',
  'CREATE TABLE _assay_internal (id Int32) ENGINE = MergeTree ORDER BY id',
  'CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 15',
];

export async function loadClickhouseFixture(admin: (sql: string) => Promise<string>, database: string): Promise<void> {
  for (const statement of CLICKHOUSE_FIXTURE_STATEMENTS) {
    await admin(
      statement
        .replace(/^(CREATE TABLE|INSERT INTO|CREATE VIEW) (\w+)/, `$1 ${database}.$2`)
        .replace(/FROM orders/, `FROM ${database}.orders`),
    );
  }
}
