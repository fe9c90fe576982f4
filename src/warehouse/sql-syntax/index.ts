/**
 * The SQL the engine writes itself (mining finders, claim recounts, profiling), per dialect: quoting,
 * literals, time parts, and the aggregates whose spelling differs between engines. Everything the
 * engine generates goes through one `SqlSyntax`, so a new warehouse engine is one more implementation
 * of this interface — never a search for dialect branches across the code.
 *
 * Portable by construction: conditional aggregates are written `agg(CASE WHEN … THEN x END)` (no
 * FILTER clause, which MySQL and ClickHouse lack), and results are cast to double in SQL so every
 * adapter hands back plain numbers.
 */
import type { SqlDialect } from '../sql-guard.js';
import { bigquerySyntax } from './bigquery.js';
import { clickhouseSyntax } from './clickhouse.js';
import { duckdbSyntax } from './duckdb.js';
import { mysqlSyntax } from './mysql.js';
import { postgresSyntax } from './postgres.js';
import { snowflakeSyntax } from './snowflake.js';
import type { SqlSyntax } from './syntax.js';

export type { CalendarPart, SqlSyntax, TimeGrain } from './syntax.js';
export { CALENDAR_PARTS, TIME_GRAINS } from './syntax.js';

/** The left side of a comparison with `values` (see `SqlSyntax.operandFor`). */
export function comparedOperand(syntax: SqlSyntax, expression: string, values: ReadonlyArray<string | number | boolean>): string {
  return syntax.operandFor?.(expression, values) ?? expression;
}

/** True when `condition` is false or NULL (see `SqlSyntax.isNotTrue`). */
export function notTrue(syntax: SqlSyntax, condition: string): string {
  return syntax.isNotTrue?.(condition) ?? `(${condition}) IS NOT TRUE`;
}

export function sqlSyntaxFor(dialect: SqlDialect): SqlSyntax {
  switch (dialect) {
    case 'duckdb':
      return duckdbSyntax;
    case 'postgres':
      return postgresSyntax;
    case 'mysql':
      return mysqlSyntax;
    case 'clickhouse':
      return clickhouseSyntax;
    case 'bigquery':
      return bigquerySyntax;
    case 'snowflake':
      return snowflakeSyntax;
  }
}
