/**
 * Layer 1 of "read-only by construction": a parser-based allow-list. Exactly one statement, a
 * SELECT (WITH … SELECT, set operations and VALUES included), no data-modifying CTE, no
 * SELECT … INTO, no locking clause, and no function that reads files or the network, executes SQL
 * from a string or has side effects. The engine's own parser decides; a statement it cannot parse
 * is refused. DuckDB and PostgreSQL are read by their engines' own parsers; MySQL/MariaDB, ClickHouse,
 * BigQuery and Snowflake by sqlparser-rs (sql-tree/) with one function allow-list per dialect.
 * Layers 2 (read-only engine) and 3 (time, row and byte limits) live in the adapters.
 */
import { SqlSyntaxError, UnsafeSqlError } from '../errors/index.js';
import { guardBigquerySql } from './bigquery/bigquery-sql-guard.js';
import { guardClickhouseSql } from './clickhouse/clickhouse-sql-guard.js';
import { guardDuckdbSql } from './duckdb/duckdb-sql-guard.js';
import { MAX_SQL_LENGTH } from './limits.js';
import { guardMysqlSql } from './mysql/mysql-sql-guard.js';
import { guardPostgresSql } from './postgres/postgres-sql-guard.js';
import { guardSnowflakeSql } from './snowflake/snowflake-sql-guard.js';
import type { SqlDialect } from './sql-function-policy.js';
import { refuse, type AllowedSql, type GuardVerdict } from './sql-guard-verdict.js';

export type { AllowedSql, GuardVerdict, RefusedSql, RelationReference } from './sql-guard-verdict.js';
export type { SqlDialect } from './sql-function-policy.js';

/** Cheap checks before any parser runs: size and characters no SQL needs. */
function precheck(sql: string, dialect: SqlDialect): GuardVerdict | undefined {
  if (sql.trim().length === 0) return refuse(dialect, 'the SQL is empty');
  if (sql.length > MAX_SQL_LENGTH) return refuse(dialect, `the SQL is longer than ${MAX_SQL_LENGTH} characters`);
  if (sql.includes('\u0000')) return refuse(dialect, 'the SQL contains a NUL character');
  return undefined;
}

/** Decide whether `sql` may run on the agent's path. Never executes anything against data. */
export async function guardSql(sql: string, dialect: SqlDialect): Promise<GuardVerdict> {
  const early = precheck(sql, dialect);
  if (early !== undefined) return early;
  switch (dialect) {
    case 'duckdb':
      return guardDuckdbSql(sql);
    case 'postgres':
      return guardPostgresSql(sql);
    case 'mysql':
      return guardMysqlSql(sql);
    case 'clickhouse':
      return guardClickhouseSql(sql);
    case 'bigquery':
      return guardBigquerySql(sql);
    case 'snowflake':
      return guardSnowflakeSql(sql);
  }
}

/**
 * `guardSql` that throws on refusal and returns the allowed statement: `SqlSyntaxError` when the SQL
 * does not parse (a typo: the SQL fixer may correct it), `UnsafeSqlError` when it breaks a rule.
 */
export async function assertSafeSql(sql: string, dialect: SqlDialect): Promise<AllowedSql> {
  const verdict = await guardSql(sql, dialect);
  if (!verdict.allowed && verdict.syntaxError) throw new SqlSyntaxError(verdict.reason, { dialect });
  if (!verdict.allowed) throw new UnsafeSqlError(verdict.reason, { dialect });
  return verdict;
}
