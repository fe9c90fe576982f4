/** PostgreSQL's spelling of the engine's SQL (see syntax.ts). */
import { doubleQuoted, finiteNumber, qualifiedTable, regexLiteral, singleQuoted, WORD_SEPARATOR, rankedTopRows } from './common.js';
import type { CalendarPart, SqlSyntax } from './syntax.js';

const CALENDAR: Record<CalendarPart, string> = { hour_of_day: 'hour', day_of_week: 'isodow', month_of_year: 'month' };

export const postgresSyntax: SqlSyntax = {
  dialect: 'postgres',
  identifier: doubleQuoted,
  table: (ref) => qualifiedTable(ref, doubleQuoted),
  string: singleQuoted,
  number: finiteNumber,
  boolean: (value) => (value ? 'TRUE' : 'FALSE'),
  literal(value) {
    if (typeof value === 'number') return finiteNumber(value);
    if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
    return singleQuoted(value);
  },
  toDouble: (expression) => `CAST(${expression} AS DOUBLE PRECISION)`,
  toText: (expression) => `CAST(${expression} AS TEXT)`,
  timestamp: (iso) => `CAST(${singleQuoted(iso)} AS TIMESTAMP)`,
  toTimestamp: (expression) => `CAST(${expression} AS TIMESTAMP)`,
  truncate: (expression, grain) => `date_trunc(${singleQuoted(grain)}, CAST(${expression} AS TIMESTAMP))`,
  calendarPart: (expression, part) => `CAST(extract(${CALENDAR[part]} FROM CAST(${expression} AS TIMESTAMP)) AS INTEGER)`,
  year: (expression) => `CAST(extract(year FROM CAST(${expression} AS TIMESTAMP)) AS INTEGER)`,
  addDays: (expression, days) => `(CAST(${expression} AS TIMESTAMP) + make_interval(days => ${Math.trunc(Number(finiteNumber(days)))}))`,
  epochSeconds: (expression) => `CAST(extract(epoch FROM CAST(${expression} AS TIMESTAMP)) AS DOUBLE PRECISION)`,
  variance: (expression) => `CAST(var_samp(${expression}) AS DOUBLE PRECISION)`,
  median: (expression) => `CAST(percentile_cont(0.5) WITHIN GROUP (ORDER BY ${expression}) AS DOUBLE PRECISION)`,
  quantile: (expression, q) => `CAST(percentile_cont(${finiteNumber(q)}) WITHIN GROUP (ORDER BY ${expression}) AS DOUBLE PRECISION)`,
  correlation: (y, x) => `CAST(corr(${y}, ${x}) AS DOUBLE PRECISION)`,
  // PostgreSQL has no distinct-count sketch in core: the exact count
  approxDistinct: (expression) => `CAST(count(DISTINCT ${expression}) AS DOUBLE PRECISION)`,
  containsWord: (expression, word) => `(CAST(${expression} AS TEXT) ~* ${singleQuoted(`\\m${regexLiteral(word)}\\M`)})`,
  wordCount: (expression) =>
    `CAST(avg(array_length(regexp_split_to_array(btrim(CAST(${expression} AS TEXT)), '\\s+'), 1)) AS DOUBLE PRECISION)`,
  sampledTable: (ref, tableRows, rows) =>
    tableRows <= rows
      ? qualifiedTable(ref, doubleQuoted)
      : `(SELECT * FROM ${qualifiedTable(ref, doubleQuoted)} TABLESAMPLE BERNOULLI (${finiteNumber(Math.min(100, (100 * rows) / Math.max(1, tableRows)))}) REPEATABLE (7))`,
  orderedConcat: (expression, separator) => `string_agg(${expression}, ${singleQuoted(separator)} ORDER BY ${expression})`,
  slope: (y, x) => `CAST(regr_slope(${y}, ${x}) AS DOUBLE PRECISION)`,
  daysBetween: (from, to) => `(CAST(${to} AS DATE) - CAST(${from} AS DATE))`,
  monthText: (expression) => `to_char(CAST(${expression} AS TIMESTAMP), 'YYYY-MM')`,
  topRowsPerGroup: rankedTopRows,
  wordRows: (expression) => `regexp_split_to_table(lower(CAST(${expression} AS TEXT)), ${singleQuoted(WORD_SEPARATOR)})`,
  blockSampledTable: (ref, tableRows, rows) =>
    tableRows <= rows
      ? qualifiedTable(ref, doubleQuoted)
      : `(SELECT * FROM ${qualifiedTable(ref, doubleQuoted)} TABLESAMPLE SYSTEM (${finiteNumber(Math.min(100, (100 * rows) / Math.max(1, tableRows)))}) REPEATABLE (7))`,
};
