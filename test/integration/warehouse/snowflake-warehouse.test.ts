/**
 * The warehouse contract against real Snowflake — only when SNOWFLAKE_TEST_ADMIN_URL (a role that may
 * create the fixture tables) and SNOWFLAKE_TEST_URL (the read-only role Assay connects with, on the
 * same database and schema) are set. Nothing is faked without them.
 */
import snowflake from 'snowflake-sdk';
import { openWarehouse, parseWarehouseUrl } from '../../../src/warehouse/index.js';
import { runWarehouseContract } from './contract.js';

const adminUrl = process.env.SNOWFLAKE_TEST_ADMIN_URL;
const readerUrl = process.env.SNOWFLAKE_TEST_URL;
const skipReason =
  adminUrl === undefined || readerUrl === undefined
    ? 'SNOWFLAKE_TEST_ADMIN_URL and SNOWFLAKE_TEST_URL are not set (snowflake://user:password@account/db/schema?warehouse=WH&role=ROLE)'
    : undefined;

const FIXTURE = [
  'CREATE OR REPLACE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, country VARCHAR(2), signup_date DATE NOT NULL)',
  "INSERT INTO customers VALUES (1, 'Ada', 'GB', '2024-01-05'), (2, 'Linus', 'FI', '2024-02-10'), (3, 'Grace', NULL, '2024-03-15')",
  `CREATE OR REPLACE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount NUMBER(10,2) NOT NULL, big_total BIGINT,
     created_at TIMESTAMP_NTZ NOT NULL, note VARCHAR(100))`,
  `INSERT INTO orders VALUES (1, 1, 10.50, 9007199254740993, '2024-01-06 10:00:00', NULL), (2, 1, 20.00, 5, '2024-01-07 11:30:00', 'gift'),
     (3, 2, 5.25, NULL, '2024-02-11 09:15:00', NULL), (4, 3, 99.99, 7, '2024-03-16 18:45:00', 'rush')`,
  'CREATE OR REPLACE TABLE canary (id INTEGER)',
  'INSERT INTO canary VALUES (1)',
  'CREATE OR REPLACE TABLE "_assay_internal" (id INTEGER)',
  'CREATE OR REPLACE VIEW big_orders AS SELECT * FROM orders WHERE amount > 15',
];

async function connect(url: string): Promise<snowflake.Connection> {
  const target = parseWarehouseUrl(url);
  if (target.engine !== 'snowflake') throw new Error('a Snowflake test URL must be snowflake://user:password@account/db/schema');
  const connection = snowflake.createConnection({
    account: target.account,
    username: target.user,
    password: decodeURIComponent(new URL(url).password),
    database: target.database,
    schema: target.schema,
    ...(target.warehouse === undefined ? {} : { warehouse: target.warehouse }),
    ...(target.role === undefined ? {} : { role: target.role }),
  });
  await new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve())));
  return connection;
}

function run(connection: snowflake.Connection, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    connection.execute({ sqlText: sql, complete: (error, _statement, rows) => (error ? reject(error) : resolve(rows)) });
  });
}

runWarehouseContract(
  'Snowflake',
  async () => {
    const admin = await connect(adminUrl ?? '');
    for (const statement of FIXTURE) await run(admin, statement);
    admin.destroy(() => undefined);
    const warehouse = await openWarehouse(readerUrl ?? '');
    const reader = await connect(readerUrl ?? '');
    return {
      warehouse,
      declaresConstraints: true,
      columnTypes: { id: /^NUMBER$/, amount: /^NUMBER$/, big_total: /^NUMBER$/, created_at: /^TIMESTAMP_NTZ$/, note: /^TEXT$/ },
      endlessQuery: 'SELECT COUNT(*) AS n FROM TABLE(GENERATOR(ROWCOUNT => 1000000000000))',
      cellsQuery: `SELECT CAST('2024-03-01' AS DATE) AS d, CAST('2024-03-01 10:11:12' AS TIMESTAMP_NTZ) AS ts, 9007199254740993 AS big,
                  42 AS small, CAST(12.34 AS NUMBER(10,2)) AS amount, CAST(NULL AS INTEGER) AS nothing, 1 = 1 AS yes`,
      // the engine layer alone: the read-only role straight through the driver
      runUnguarded: (sql) => run(reader, sql),
      close: async () => {
        reader.destroy(() => undefined);
        await warehouse.close();
      },
    };
  },
  skipReason === undefined ? {} : { skipReason },
);
