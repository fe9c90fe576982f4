/** The SQL dialects Assay reads, one per warehouse engine (MariaDB speaks `mysql`). */
export const SQL_DIALECTS = ['duckdb', 'postgres', 'mysql', 'clickhouse', 'bigquery', 'snowflake'] as const;
export type SqlDialect = (typeof SQL_DIALECTS)[number];

/** How prompts and messages name each dialect. */
export const DIALECT_DISPLAY_NAMES: Readonly<Record<SqlDialect, string>> = {
  duckdb: 'DuckDB',
  postgres: 'PostgreSQL',
  mysql: 'MySQL/MariaDB',
  clickhouse: 'ClickHouse',
  bigquery: 'BigQuery (GoogleSQL)',
  snowflake: 'Snowflake',
};
