/**
 * The few SQL pieces that differ between the dialects the analyst writes (DuckDB, PostgreSQL); every
 * other construct it uses (FILTER, date_trunc, string_agg … ORDER BY, regr_slope, percentile_cont
 * WITHIN GROUP, INTERVAL '90 days') is written the same way in both.
 */
import type { SqlDialectName } from '../types.js';

export interface SqlDialect {
  name: SqlDialectName;
  /** Whole days from `from` to `to` (dates or timestamps). */
  daysBetween(from: string, to: string): string;
  /** Fractional days from `from` to `to`. */
  fractionalDaysBetween(from: string, to: string): string;
  /** A value as text. */
  asText(expression: string): string;
  /** One row per word of a text (lower case; split on spaces and punctuation), used in a SELECT list. */
  splitWords(expression: string): string;
  /** A month (a truncated date or timestamp) as `YYYY-MM` text. */
  monthText(expression: string): string;
  /** A number rounded to `digits` decimals (short cells keep a digest whole). */
  round(expression: string, digits: number): string;
  /** A FROM item reading about `percent` % of the table's blocks (repeatable), never the whole table. */
  blockSample(table: string, percent: number): string;
}

/** A sampling percentage as a short literal (3 significant digits). */
const percentText = (percent: number) => String(Number(percent.toPrecision(3)));

/** Words are separated by white space and punctuation; letters of any script stay in the word. */
const WORD_SEPARATOR = "'[[:space:][:punct:]]+'";

const duckdb: SqlDialect = {
  name: 'duckdb',
  daysBetween: (from, to) => `date_diff('day', CAST(${from} AS DATE), CAST(${to} AS DATE))`,
  fractionalDaysBetween: (from, to) => `(epoch(CAST(${to} AS TIMESTAMP)) - epoch(CAST(${from} AS TIMESTAMP))) / 86400.0`,
  asText: (expression) => `CAST(${expression} AS VARCHAR)`,
  splitWords: (expression) => `UNNEST(regexp_split_to_array(lower(CAST(${expression} AS VARCHAR)), ${WORD_SEPARATOR}))`,
  monthText: (expression) => `strftime(CAST(${expression} AS TIMESTAMP), '%Y-%m')`,
  round: (expression, digits) => `ROUND(CAST(${expression} AS DOUBLE), ${digits})`,
  blockSample: (table, percent) => `${table} USING SAMPLE ${percentText(percent)} PERCENT (system, 7)`,
};

const postgres: SqlDialect = {
  name: 'postgres',
  daysBetween: (from, to) => `(CAST(${to} AS DATE) - CAST(${from} AS DATE))`,
  fractionalDaysBetween: (from, to) => `EXTRACT(EPOCH FROM (CAST(${to} AS TIMESTAMP) - CAST(${from} AS TIMESTAMP))) / 86400.0`,
  asText: (expression) => `CAST(${expression} AS TEXT)`,
  splitWords: (expression) => `regexp_split_to_table(lower(CAST(${expression} AS TEXT)), ${WORD_SEPARATOR})`,
  monthText: (expression) => `to_char(CAST(${expression} AS TIMESTAMP), 'YYYY-MM')`,
  round: (expression, digits) => `CAST(ROUND(CAST(${expression} AS NUMERIC), ${digits}) AS DOUBLE PRECISION)`,
  blockSample: (table, percent) => `${table} TABLESAMPLE SYSTEM (${percentText(percent)}) REPEATABLE (7)`,
};

export function sqlDialect(name: SqlDialectName): SqlDialect {
  return name === 'postgres' ? postgres : duckdb;
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

/** An identifier, quoted only when it must be. */
export function quoteIdentifier(name: string): string {
  return PLAIN_IDENTIFIER.test(name) && !RESERVED.has(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** `schema.table` with each part quoted when needed. */
export function quoteTable(qualified: string): string {
  return qualified.split('.').map(quoteIdentifier).join('.');
}

/** A column of an aliased table. */
export function column(alias: string, name: string): string {
  return `${alias}.${quoteIdentifier(name)}`;
}

export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

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
