/**
 * The analyst writes its SQL through the engine's per-dialect `SqlSyntax` (quoting, casts, dates,
 * medians, correlations, ordered string aggregates, word splitting): one `SqlDialect` per engine,
 * read from the prompt's "SQL dialect:" line. The few pieces here are the analyst's own conventions
 * on top: identifiers quoted only when they must be (so the SQL a reader sees stays plain), and
 * compositions of syntax members.
 *
 * Portable by construction, as the engine's own SQL: conditional aggregates are `agg(CASE WHEN …)`
 * (no FILTER clause), medians and slopes come from the syntax, intervals are `addDays`.
 */
import type { SqlDialect as EngineDialect } from '../../../warehouse/dialect.js';
import { sqlSyntaxFor, type SqlSyntax } from '../../../warehouse/sql-syntax/index.js';

export interface SqlDialect {
  name: EngineDialect;
  syntax: SqlSyntax;
  /** An identifier, quoted (in the engine's quotes) only when it must be. */
  identifier(name: string): string;
  /** `schema.table` with each part quoted when needed. */
  table(qualified: string): string;
  /** A column of an aliased table. */
  column(tableAlias: string, name: string): string;
  /** Fractional days from `from` to `to` (dates or timestamps). */
  fractionalDaysBetween(from: string, to: string): string;
  /** Fractional days since 1970-01-01 (a date or timestamp). */
  epochDays(expression: string): string;
  /** A number rounded to `digits` decimals, as double precision (short cells keep a digest whole). */
  round(expression: string, digits: number): string;
  /**
   * A FROM item reading about `percent` % of the table's blocks (repeatable), never the whole table.
   * DuckDB and PostgreSQL only; on the other engines the analyst profiles the whole table.
   */
  blockSample?(table: string, percent: number): string;
}

/** A sampling percentage as a short literal (3 significant digits). */
const percentText = (percent: number) => String(Number(percent.toPrecision(3)));

/** Block sampling with a seed, where the engine has it in a form the analyst may use in a CTE. */
function blockSampleOf(name: EngineDialect): Pick<SqlDialect, 'blockSample'> {
  if (name === 'duckdb') return { blockSample: (table, percent) => `${table} USING SAMPLE ${percentText(percent)} PERCENT (system, 7)` };
  if (name === 'postgres')
    return { blockSample: (table, percent) => `${table} TABLESAMPLE SYSTEM (${percentText(percent)}) REPEATABLE (7)` };
  return {};
}

function dialectOf(syntax: SqlSyntax): SqlDialect {
  const identifier = (name: string) =>
    PLAIN_IDENTIFIER.test(name) && !RESERVED.has(name) && !ALSO_QUOTED.has(name) ? name : syntax.identifier(name);
  return {
    name: syntax.dialect,
    syntax,
    identifier,
    table: (qualified) => qualified.split('.').map(identifier).join('.'),
    column: (tableAlias, name) => `${tableAlias}.${identifier(name)}`,
    fractionalDaysBetween: (from, to) => `(${syntax.epochSeconds(to)} - ${syntax.epochSeconds(from)}) / 86400.0`,
    epochDays: (expression) => `${syntax.epochSeconds(expression)} / 86400.0`,
    round: (expression, digits) =>
      // PostgreSQL rounds to a number of decimals only on NUMERIC
      syntax.dialect === 'postgres'
        ? syntax.toDouble(`ROUND(CAST(${expression} AS NUMERIC), ${digits})`)
        : `ROUND(${syntax.toDouble(expression)}, ${digits})`,
    ...blockSampleOf(syntax.dialect),
  };
}

const DIALECTS = new Map<EngineDialect, SqlDialect>();

export function sqlDialect(name: EngineDialect): SqlDialect {
  let dialect = DIALECTS.get(name);
  if (dialect === undefined) {
    dialect = dialectOf(sqlSyntaxFor(name));
    DIALECTS.set(name, dialect);
  }
  return dialect;
}

const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const RESERVED = new Set([
  'order',
  'group',
  'user',
  'select',
  'from',
  'where',
  'table',
  'limit',
  'offset',
  'desc',
  'asc',
  'by',
  'to',
  'end',
  'case',
  'when',
  'default',
  'check',
  'column',
  'primary',
  'references',
  'level',
  'position',
  'value',
  'year',
  'month',
  'day',
  'rows',
  'count',
  'window',
  'range',
  'type',
]);

/** Words some engine reserves (MySQL/MariaDB, ClickHouse, BigQuery, Snowflake): quoted as identifiers, never turned into aliases. */
const ALSO_QUOTED = new Set([
  'key',
  'keys',
  'index',
  'interval',
  'div',
  'mod',
  'rank',
  'row',
  'read',
  'usage',
  'condition',
  'match',
  'option',
  'lines',
  'load',
  'lock',
  'long',
  'signal',
  'release',
  'qualify',
  'sample',
  'format',
  'settings',
  'array',
  'struct',
  'hash',
  'lateral',
  'natural',
  'window',
  'groups',
  'current',
]);

/** Share of rows where `condition` holds, as a fraction. */
export function rateOf(condition: string): string {
  return `AVG(CASE WHEN ${condition} THEN 1.0 ELSE 0.0 END)`;
}

/** An output alias that is always a plain identifier (lower case, `_` separated, ≤ 60 chars). */
export function alias(...parts: string[]): string {
  const joined = parts
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  const safe = /^[a-z_]/.test(joined) ? joined : `c_${joined}`;
  const cut = safe.slice(0, 60).replace(/_$/, '');
  return RESERVED.has(cut) ? `${cut}_value` : cut;
}
