/**
 * The shared SQL-attack corpus, sections for MySQL/MariaDB, ClickHouse, BigQuery and Snowflake:
 * the portable attacks of sql-corpus.ts (stacked statements, writes, DDL, SELECT INTO, locks, empty
 * and unparseable text) plus each dialect's own ways to reach files, the network, other users' data
 * or the server's settings. Used by the guard's unit tests and, for the engines that run here
 * (MariaDB, ClickHouse), by the integration tests against the live servers.
 */
import type { SqlDialect } from '../../../src/warehouse/index.js';
import { ACCEPT_CORPUS, ATTACK_CORPUS, type SqlCase } from './sql-corpus.js';

export const SQLPARSER_DIALECTS = ['mysql', 'clickhouse', 'bigquery', 'snowflake'] as const satisfies readonly SqlDialect[];
type ParsedDialect = (typeof SQLPARSER_DIALECTS)[number];

const ALL: readonly SqlDialect[] = SQLPARSER_DIALECTS;
const MYSQL: readonly SqlDialect[] = ['mysql'];
const CLICKHOUSE: readonly SqlDialect[] = ['clickhouse'];
const BIGQUERY: readonly SqlDialect[] = ['bigquery'];
const SNOWFLAKE: readonly SqlDialect[] = ['snowflake'];

/** Attacks of the shared corpus written in SQL every dialect reads the same way. */
const PORTABLE_ATTACKS = new Set([
  'stacked DELETE',
  'comment-hidden DELETE after line comment',
  'semicolon inside block comment then DROP',
  'line comment then newline statement',
  'double semicolon',
  'leading statement then SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'DROP TABLE',
  'ALTER TABLE',
  'TRUNCATE',
  'CREATE TABLE AS',
  'CREATE VIEW',
  'MERGE',
  'DELETE in CTE',
  'INSERT in CTE',
  'SELECT INTO',
  'empty',
  'only a comment',
  'only a semicolon',
  'NUL byte',
  'oversized statement',
  'unparseable',
]);

const DIALECT_ATTACKS: readonly SqlCase[] = [
  ...ATTACK_CORPUS.filter((entry) => PORTABLE_ATTACKS.has(entry.name)).map((entry) => ({ ...entry, dialects: ALL })),
  { name: 'FOR UPDATE', sql: 'SELECT * FROM canary FOR UPDATE', dialects: ['mysql', 'bigquery', 'snowflake'] },
  { name: 'GRANT', sql: 'GRANT SELECT ON canary TO someone', dialects: ALL },
  { name: 'SET a setting', sql: 'SET autocommit = 1', dialects: ALL },
  { name: 'SHOW', sql: 'SHOW TABLES', dialects: ['mysql', 'clickhouse', 'snowflake'] },
  // MySQL/MariaDB
  { name: 'LOAD_FILE', sql: "SELECT LOAD_FILE('/etc/passwd')", dialects: MYSQL },
  { name: 'LOAD_FILE in WHERE', sql: "SELECT * FROM canary WHERE LENGTH(LOAD_FILE('/etc/passwd')) > 0", dialects: MYSQL },
  { name: 'INTO OUTFILE', sql: "SELECT * FROM canary INTO OUTFILE '{{dir}}/out.csv'", dialects: MYSQL },
  { name: 'INTO DUMPFILE', sql: "SELECT 'x' INTO DUMPFILE '{{dir}}/out.bin'", dialects: MYSQL },
  {
    name: 'INTO OUTFILE inside an executable comment',
    sql: "SELECT * FROM canary /*!50000 INTO OUTFILE '{{dir}}/c.csv' */",
    dialects: MYSQL,
  },
  { name: 'MariaDB executable comment', sql: "SELECT 1 /*M! , LOAD_FILE('/etc/passwd') */", dialects: MYSQL },
  { name: 'stacked DELETE inside an executable comment', sql: 'SELECT 1 /*! ; DELETE FROM canary */', dialects: MYSQL },
  { name: 'INTO a variable', sql: 'SELECT id INTO @stolen FROM canary', dialects: MYSQL },
  { name: 'variable assignment', sql: 'SELECT @x := id FROM canary', dialects: MYSQL },
  { name: 'SLEEP', sql: 'SELECT SLEEP(10)', dialects: MYSQL },
  { name: 'SLEEP in a CASE', sql: 'SELECT CASE WHEN id > 0 THEN SLEEP(10) END FROM canary', dialects: MYSQL },
  { name: 'BENCHMARK', sql: "SELECT BENCHMARK(100000000, MD5('x'))", dialects: MYSQL },
  { name: 'GET_LOCK', sql: "SELECT GET_LOCK('x', 10)", dialects: MYSQL },
  { name: 'user table', sql: 'SELECT user, authentication_string FROM mysql.user', dialects: MYSQL },
  { name: 'statement history', sql: 'SELECT sql_text FROM performance_schema.events_statements_history', dialects: MYSQL },
  { name: 'sys schema', sql: 'SELECT * FROM sys.processlist', dialects: MYSQL },
  { name: 'LOCK IN SHARE MODE', sql: 'SELECT * FROM canary LOCK IN SHARE MODE', dialects: MYSQL },
  { name: 'LOAD DATA', sql: "LOAD DATA INFILE '/etc/passwd' INTO TABLE canary", dialects: MYSQL },
  { name: 'HANDLER', sql: 'HANDLER canary OPEN', dialects: MYSQL },
  { name: 'DO SLEEP', sql: 'DO SLEEP(10)', dialects: MYSQL },
  { name: 'CALL', sql: 'CALL mysql.do_things()', dialects: MYSQL },
  { name: 'PREPARE', sql: "PREPARE s FROM 'DELETE FROM canary'", dialects: MYSQL },
  { name: 'START TRANSACTION READ WRITE', sql: 'START TRANSACTION READ WRITE', dialects: MYSQL },
  { name: 'REPLACE INTO', sql: 'REPLACE INTO canary VALUES (2)', dialects: MYSQL },
  { name: 'INSERT … SELECT', sql: 'INSERT INTO canary SELECT id + 1 FROM canary', dialects: MYSQL },
  { name: 'user-defined function', sql: 'SELECT evil_udf(1)', dialects: ALL },
  // ClickHouse
  { name: 'url() table function', sql: "SELECT * FROM url('http://127.0.0.1:1/x', CSV, 'a String')", dialects: CLICKHOUSE },
  { name: 'file() table function', sql: "SELECT * FROM file('/etc/passwd', TSV, 'line String')", dialects: CLICKHOUSE },
  { name: 's3() table function', sql: "SELECT * FROM s3('https://bucket.s3.amazonaws.com/x.csv', CSV)", dialects: CLICKHOUSE },
  { name: 'remote() table function', sql: "SELECT * FROM remote('127.0.0.1', system.one)", dialects: CLICKHOUSE },
  { name: 'remoteSecure()', sql: "SELECT * FROM remoteSecure('127.0.0.1', default.canary)", dialects: CLICKHOUSE },
  { name: 'mysql() table function', sql: "SELECT * FROM mysql('127.0.0.1:3306', 'db', 't', 'u', 'p')", dialects: CLICKHOUSE },
  { name: 'jdbc() table function', sql: "SELECT * FROM jdbc('jdbc:x', 't')", dialects: CLICKHOUSE },
  { name: 'executable() table function', sql: "SELECT * FROM executable('touch {{dir}}/pwned', TSV, 'x String')", dialects: CLICKHOUSE },
  {
    name: 'url() in a subquery',
    sql: "SELECT (SELECT count() FROM url('http://127.0.0.1:1/x', CSV, 'a String')) AS n",
    dialects: CLICKHOUSE,
  },
  { name: 'file() in a CTE', sql: "WITH f AS (SELECT * FROM file('/etc/passwd', TSV, 'l String')) SELECT * FROM f", dialects: CLICKHOUSE },
  { name: 'INTO OUTFILE', sql: "SELECT * FROM canary INTO OUTFILE '{{dir}}/out.tsv'", dialects: CLICKHOUSE },
  { name: 'FORMAT clause', sql: 'SELECT * FROM canary FORMAT TSV', dialects: CLICKHOUSE },
  { name: 'SETTINGS clause lifting read-only', sql: 'SELECT * FROM canary SETTINGS readonly = 0', dialects: CLICKHOUSE },
  {
    name: 'SETTINGS clause lifting the time limit',
    sql: 'SELECT count() FROM canary SETTINGS max_execution_time = 0',
    dialects: CLICKHOUSE,
  },
  { name: 'system.query_log', sql: 'SELECT query FROM system.query_log', dialects: CLICKHOUSE },
  { name: 'system.users', sql: 'SELECT * FROM system.users', dialects: CLICKHOUSE },
  { name: 'dictGet', sql: "SELECT dictGet('d', 'v', toUInt64(1))", dialects: CLICKHOUSE },
  { name: 'getSetting', sql: "SELECT getSetting('readonly')", dialects: CLICKHOUSE },
  { name: 'sleep', sql: 'SELECT sleep(3)', dialects: CLICKHOUSE },
  { name: 'sleepEachRow', sql: 'SELECT sleepEachRow(3) FROM canary', dialects: CLICKHOUSE },
  { name: 'INSERT … SELECT', sql: 'INSERT INTO canary SELECT id + 1 FROM canary', dialects: CLICKHOUSE },
  { name: 'ALTER TABLE DELETE', sql: 'ALTER TABLE canary DELETE WHERE 1 = 1', dialects: CLICKHOUSE },
  { name: 'OPTIMIZE', sql: 'OPTIMIZE TABLE canary FINAL', dialects: CLICKHOUSE },
  { name: 'SYSTEM command', sql: 'SYSTEM SHUTDOWN', dialects: CLICKHOUSE },
  { name: 'KILL QUERY', sql: 'KILL QUERY WHERE 1 = 1', dialects: CLICKHOUSE },
  { name: 'ATTACH', sql: "ATTACH TABLE stolen FROM '/var/lib/clickhouse/data/x'", dialects: CLICKHOUSE },
  { name: 'RENAME', sql: 'RENAME TABLE canary TO stolen', dialects: CLICKHOUSE },
  {
    name: 'CREATE DICTIONARY',
    sql: "CREATE DICTIONARY d (k UInt64, v String) PRIMARY KEY k SOURCE(FILE(path '/etc/passwd' format 'TSV')) LAYOUT(FLAT()) LIFETIME(0)",
    dialects: CLICKHOUSE,
  },
  // BigQuery
  {
    name: 'EXPORT DATA',
    sql: "EXPORT DATA OPTIONS (uri = 'gs://bucket/x-*.csv', format = 'CSV') AS SELECT * FROM canary",
    dialects: BIGQUERY,
  },
  { name: 'EXTERNAL_QUERY', sql: "SELECT * FROM EXTERNAL_QUERY('project.us.connection', 'SELECT 1')", dialects: BIGQUERY },
  { name: 'ML.PREDICT', sql: 'SELECT * FROM ML.PREDICT(MODEL `d.m`, (SELECT 1 AS x))', dialects: BIGQUERY },
  { name: 'INFORMATION_SCHEMA.JOBS', sql: 'SELECT query FROM `region-us`.INFORMATION_SCHEMA.JOBS', dialects: BIGQUERY },
  { name: 'dataset INFORMATION_SCHEMA', sql: 'SELECT * FROM d.INFORMATION_SCHEMA.TABLES', dialects: BIGQUERY },
  { name: 'script with DECLARE', sql: 'DECLARE x INT64 DEFAULT 1; SELECT x', dialects: BIGQUERY },
  { name: 'EXECUTE IMMEDIATE', sql: "EXECUTE IMMEDIATE 'DELETE FROM d.canary WHERE TRUE'", dialects: BIGQUERY },
  { name: 'CREATE TEMP FUNCTION', sql: 'CREATE TEMP FUNCTION f() AS (1); SELECT f()', dialects: BIGQUERY },
  { name: 'LOAD DATA', sql: "LOAD DATA INTO d.canary FROM FILES (format = 'CSV', uris = ['gs://bucket/x.csv'])", dialects: BIGQUERY },
  { name: 'SESSION_USER', sql: 'SELECT SESSION_USER()', dialects: BIGQUERY },
  { name: 'AEAD key material', sql: "SELECT KEYS.NEW_KEYSET('AEAD_AES_GCM_256')", dialects: BIGQUERY },
  // Snowflake
  { name: 'COPY INTO a stage', sql: 'COPY INTO @mystage FROM canary', dialects: SNOWFLAKE },
  { name: 'COPY INTO a table from a stage', sql: 'COPY INTO canary FROM @mystage', dialects: SNOWFLAKE },
  { name: 'reading a stage', sql: 'SELECT $1 FROM @mystage/data.csv', dialects: SNOWFLAKE },
  { name: 'reading the user stage', sql: 'SELECT * FROM @~', dialects: SNOWFLAKE },
  { name: 'PUT a file', sql: 'PUT file:///etc/passwd @mystage', dialects: SNOWFLAKE },
  { name: 'GET a file', sql: 'GET @mystage file://{{dir}}/', dialects: SNOWFLAKE },
  { name: 'RESULT_SCAN', sql: 'SELECT * FROM TABLE(RESULT_SCAN(LAST_QUERY_ID()))', dialects: SNOWFLAKE },
  { name: 'QUERY_HISTORY', sql: 'SELECT * FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY())', dialects: SNOWFLAKE },
  { name: 'ACCOUNT_USAGE', sql: 'SELECT query_text FROM SNOWFLAKE.ACCOUNT_USAGE.QUERY_HISTORY', dialects: SNOWFLAKE },
  { name: 'SYSTEM$ function', sql: 'SELECT SYSTEM$GET_PRIVATELINK_CONFIG()', dialects: SNOWFLAKE },
  { name: 'GET_PRESIGNED_URL', sql: "SELECT GET_PRESIGNED_URL(@mystage, 'x.csv')", dialects: SNOWFLAKE },
  { name: 'USE ROLE', sql: 'USE ROLE ACCOUNTADMIN', dialects: SNOWFLAKE },
  { name: 'ALTER SESSION', sql: 'ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 0', dialects: SNOWFLAKE },
  { name: 'CREATE STAGE', sql: "CREATE STAGE s URL = 's3://bucket/'", dialects: SNOWFLAKE },
  { name: 'EXECUTE IMMEDIATE', sql: "EXECUTE IMMEDIATE 'DROP TABLE canary'", dialects: SNOWFLAKE },
  { name: 'CALL a procedure', sql: 'CALL evil_proc()', dialects: SNOWFLAKE },
];

/**
 * ClickHouse 18.16 (the server tested here) has no window functions, no `WITH name AS (subquery)`,
 * no GROUP BY position and no correlated subqueries: those accepts are for the other dialects, and
 * ClickHouse gets its own spellings below.
 */
const NOT_OLD_CLICKHOUSE: readonly SqlDialect[] = ['mysql', 'bigquery', 'snowflake'];

const DIALECT_ACCEPTS: readonly SqlCase[] = [
  ...ACCEPT_CORPUS.filter((entry) => ['left join with aggregate', 'IN subquery', 'UNION ALL'].includes(entry.name)).map((entry) => ({
    ...entry,
    dialects: ALL,
  })),
  ...ACCEPT_CORPUS.filter((entry) => ['window functions', 'CTE', 'CASE', 'EXISTS and scalar subqueries'].includes(entry.name)).map(
    (entry) => ({ ...entry, dialects: NOT_OLD_CLICKHOUSE }),
  ),
  {
    name: 'ClickHouse CASE grouped by its alias',
    sql: "SELECT CASE WHEN amount > 50 THEN 'big' WHEN amount > 10 THEN 'medium' ELSE 'small' END AS size, count(*) AS n FROM orders GROUP BY size",
    dialects: CLICKHOUSE,
  },
  {
    name: 'ClickHouse subquery in FROM instead of a CTE',
    sql: 'SELECT * FROM (SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id) AS c WHERE total > 10',
    dialects: CLICKHOUSE,
  },
  { name: 'trailing semicolon and comments', sql: '-- top customers\nSELECT /* all */ * FROM customers; -- done', dialects: ALL },
  { name: 'keywords inside a string', sql: "SELECT 'DELETE FROM canary; DROP TABLE orders' AS harmless_text", dialects: ALL },
  { name: 'coalesce, nullif', sql: "SELECT coalesce(note, 'none') AS note, nullif(customer_id, 1) AS other FROM orders", dialects: ALL },
  {
    name: 'HAVING and ORDER BY LIMIT',
    sql: 'SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id HAVING sum(amount) > 1 ORDER BY total DESC LIMIT 2',
    dialects: ALL,
  },
  {
    name: 'MySQL dates and strings',
    sql: "SELECT DATE_FORMAT(created_at, '%Y-%m') AS ym, DAYOFWEEK(created_at) AS dow, TIMESTAMPDIFF(HOUR, created_at, NOW()) AS age, CONCAT(`note`, '!') AS bang, GROUP_CONCAT(DISTINCT customer_id ORDER BY customer_id SEPARATOR ',') AS ids FROM orders GROUP BY ym, dow, age, bang",
    dialects: MYSQL,
  },
  {
    name: 'MySQL REGEXP and IF',
    sql: "SELECT IF(note REGEXP '^g', 'g', 'other') AS k, COUNT(*) AS n FROM orders GROUP BY k",
    dialects: MYSQL,
  },
  {
    name: 'ClickHouse aggregates and combinators',
    sql: 'SELECT customer_id, countIf(amount > 10) AS big, uniqExact(id) AS orders, quantile(0.5)(toFloat64(amount)) AS median, toStartOfMonth(created_at) AS month FROM orders GROUP BY customer_id, month',
    dialects: CLICKHOUSE,
  },
  { name: 'ClickHouse numbers()', sql: 'SELECT sum(number) AS s FROM numbers(10)', dialects: CLICKHOUSE },
  {
    name: 'ClickHouse arrays and lambdas',
    sql: 'SELECT arrayMap(x -> x * 2, [1, 2, 3]) AS doubled, arraySum([1, 2]) AS s',
    dialects: CLICKHOUSE,
  },
  {
    name: 'ClickHouse LIMIT BY',
    sql: 'SELECT customer_id, amount FROM orders ORDER BY amount DESC LIMIT 1 BY customer_id',
    dialects: CLICKHOUSE,
  },
  {
    name: 'BigQuery dates, SAFE and approximate quantiles',
    sql: 'SELECT TIMESTAMP_TRUNC(created_at, MONTH) AS month, SAFE_DIVIDE(SUM(amount), COUNT(*)) AS mean, SAFE.LOG(SUM(amount)) AS log_total, APPROX_QUANTILES(amount, 100)[OFFSET(50)] AS median FROM orders GROUP BY month',
    dialects: BIGQUERY,
  },
  { name: 'BigQuery UNNEST', sql: 'SELECT x FROM UNNEST([1, 2, 3]) AS x', dialects: BIGQUERY },
  {
    name: 'BigQuery QUALIFY',
    sql: 'SELECT id FROM orders WHERE TRUE QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) = 1',
    dialects: BIGQUERY,
  },
  {
    name: 'Snowflake semi-structured and IFF',
    sql: "SELECT v:customer.name::string AS name, IFF(amount > 10, 'big', 'small') AS size, DATE_TRUNC('month', created_at) AS month FROM orders",
    dialects: SNOWFLAKE,
  },
  { name: 'Snowflake FLATTEN', sql: 'SELECT f.value FROM orders, LATERAL FLATTEN(input => orders.tags) f', dialects: SNOWFLAKE },
  {
    name: 'Snowflake MEDIAN and APPROX_COUNT_DISTINCT',
    sql: 'SELECT MEDIAN(amount) AS m, APPROX_COUNT_DISTINCT(customer_id) AS c FROM orders',
    dialects: SNOWFLAKE,
  },
];

export function dialectAttacks(dialect: ParsedDialect): SqlCase[] {
  return DIALECT_ATTACKS.filter((entry) => entry.dialects.includes(dialect));
}

export function dialectAccepts(dialect: ParsedDialect): SqlCase[] {
  return DIALECT_ACCEPTS.filter((entry) => entry.dialects.includes(dialect));
}
