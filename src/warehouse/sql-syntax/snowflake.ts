/**
 * Snowflake's spelling of the engine's SQL (see syntax.ts). Identifiers are always quoted, so names
 * keep the case the catalog reports (unquoted names are stored upper-case). Timestamps are
 * TIMESTAMP_NTZ, as DuckDB's TIMESTAMP; regular expressions match the whole text, hence `.*` around a word.
 */
import { backslashQuoted, doubleQuoted, finiteNumber, plainTimestampText, qualifiedTable, regexLiteral, rankedTopRows } from './common.js';
import type { CalendarPart, SqlSyntax } from './syntax.js';

const string = (value: string) => backslashQuoted(value);
const double = (expression: string) => `CAST(${expression} AS DOUBLE)`;
const timestamp = (expression: string) => `CAST(${expression} AS TIMESTAMP_NTZ)`;

const CALENDAR: Record<CalendarPart, string> = { hour_of_day: 'HOUR', day_of_week: 'DAYOFWEEKISO', month_of_year: 'MONTH' };

export const snowflakeSyntax: SqlSyntax = {
  dialect: 'snowflake',
  identifier: doubleQuoted,
  table: (ref) => qualifiedTable(ref, doubleQuoted),
  string,
  number: finiteNumber,
  boolean: (value) => (value ? 'TRUE' : 'FALSE'),
  literal(value) {
    if (typeof value === 'number') return finiteNumber(value);
    if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
    return string(value);
  },
  toDouble: double,
  toText: (expression) => `CAST(${expression} AS VARCHAR)`,
  timestamp: (iso) => timestamp(string(plainTimestampText(iso))),
  toTimestamp: timestamp,
  truncate: (expression, grain) => `DATE_TRUNC(${string(grain)}, ${timestamp(expression)})`,
  calendarPart: (expression, part) => `CAST(${CALENDAR[part]}(${timestamp(expression)}) AS INTEGER)`,
  year: (expression) => `CAST(YEAR(${timestamp(expression)}) AS INTEGER)`,
  addDays: (expression, days) => `DATEADD(day, ${Math.trunc(days)}, ${timestamp(expression)})`,
  epochSeconds: (expression) => double(`DATE_PART(EPOCH_MICROSECOND, ${timestamp(expression)}) / 1000000`),
  variance: (expression) => double(`VAR_SAMP(${expression})`),
  median: (expression) => double(`MEDIAN(${expression})`),
  quantile: (expression, q) => double(`PERCENTILE_CONT(${finiteNumber(q)}) WITHIN GROUP (ORDER BY ${expression})`),
  correlation: (y, x) => double(`CORR(${y}, ${x})`),
  approxDistinct: (expression) => double(`APPROX_COUNT_DISTINCT(${expression})`),
  containsWord: (expression, word) =>
    `REGEXP_LIKE(CAST(${expression} AS VARCHAR), ${string(`.*(^|\\W)${regexLiteral(word)}(\\W|$).*`)}, 'is')`,
  wordCount: (expression) => double(`AVG(ARRAY_SIZE(SPLIT(TRIM(CAST(${expression} AS VARCHAR)), ' ')))`),
  sampledTable: (ref, tableRows, rows) =>
    tableRows <= rows
      ? qualifiedTable(ref, doubleQuoted)
      : `(SELECT * FROM ${qualifiedTable(ref, doubleQuoted)} SAMPLE BERNOULLI (${finiteNumber(Math.min(100, (100 * rows) / Math.max(1, tableRows)))}))`,
  orderedConcat: (expression, separator) => `LISTAGG(${expression}, ${string(separator)}) WITHIN GROUP (ORDER BY ${expression})`,
  slope: (y, x) => double(`REGR_SLOPE(${y}, ${x})`),
  daysBetween: (from, to) => `DATEDIFF(day, ${timestamp(from)}, ${timestamp(to)})`,
  monthText: (expression) => `TO_CHAR(${timestamp(expression)}, 'YYYY-MM')`,
  topRowsPerGroup: rankedTopRows,
  // FLATTEN is a FROM item in Snowflake, not a SELECT-list function
  wordRows: () => undefined,
};
