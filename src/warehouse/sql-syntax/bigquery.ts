/**
 * BigQuery's (GoogleSQL) spelling of the engine's SQL (see syntax.ts). `PERCENTILE_CONT` is only a
 * window function there, so the quantile interpolates over a sorted `ARRAY_AGG`; sampling is
 * `TABLESAMPLE SYSTEM`, which reads (and bills) only the sampled blocks.
 */
import {
  backslashQuoted,
  backtickEscaped,
  finiteNumber,
  interpolatedQuantile,
  plainTimestampText,
  regexLiteral,
  slopeFromSums,
  rankedTopRows,
} from './common.js';
import type { CalendarPart, SqlSyntax, TimeGrain } from './syntax.js';

const string = (value: string) => backslashQuoted(value, "\\'");
const double = (expression: string) => `CAST(${expression} AS FLOAT64)`;
const timestamp = (expression: string) => `CAST(${expression} AS TIMESTAMP)`;
const table = (ref: { schema: string; name: string }) => `${backtickEscaped(ref.schema)}.${backtickEscaped(ref.name)}`;

const CALENDAR: Record<CalendarPart, (value: string) => string> = {
  hour_of_day: (value) => `EXTRACT(HOUR FROM ${value})`,
  // DAYOFWEEK is 1 (Sunday) – 7 (Saturday); ISO is 1 (Monday) – 7 (Sunday)
  day_of_week: (value) => `(MOD(EXTRACT(DAYOFWEEK FROM ${value}) + 5, 7) + 1)`,
  month_of_year: (value) => `EXTRACT(MONTH FROM ${value})`,
};
const GRAIN: Record<TimeGrain, string> = { hour: 'HOUR', day: 'DAY', week: 'ISOWEEK', month: 'MONTH', quarter: 'QUARTER', year: 'YEAR' };

function quantile(expression: string, q: number): string {
  const sorted = `ARRAY_AGG(${double(expression)} IGNORE NULLS ORDER BY ${double(expression)})`;
  return interpolatedQuantile(
    `COALESCE(ARRAY_LENGTH(${sorted}), 0)`,
    (position) => `${sorted}[SAFE_ORDINAL(CAST(${position} AS INT64))]`,
    q,
  );
}

export const bigquerySyntax: SqlSyntax = {
  dialect: 'bigquery',
  identifier: backtickEscaped,
  table,
  string,
  number: finiteNumber,
  boolean: (value) => (value ? 'TRUE' : 'FALSE'),
  literal(value) {
    if (typeof value === 'number') return finiteNumber(value);
    if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
    return string(value);
  },
  toDouble: double,
  toText: (expression) => `CAST(${expression} AS STRING)`,
  timestamp: (iso) => timestamp(string(plainTimestampText(iso))),
  toTimestamp: timestamp,
  truncate: (expression, grain) => `TIMESTAMP_TRUNC(${timestamp(expression)}, ${GRAIN[grain]})`,
  calendarPart: (expression, part) => `CAST(${CALENDAR[part](timestamp(expression))} AS INT64)`,
  year: (expression) => `CAST(EXTRACT(YEAR FROM ${timestamp(expression)}) AS INT64)`,
  addDays: (expression, days) => `TIMESTAMP_ADD(${timestamp(expression)}, INTERVAL ${Math.trunc(days)} DAY)`,
  epochSeconds: (expression) => double(`UNIX_MICROS(${timestamp(expression)}) / 1000000`),
  variance: (expression) => double(`VAR_SAMP(${expression})`),
  median: (expression) => quantile(expression, 0.5),
  quantile,
  correlation: (y, x) => double(`CORR(${y}, ${x})`),
  approxDistinct: (expression) => double(`APPROX_COUNT_DISTINCT(${expression})`),
  containsWord: (expression, word) => `REGEXP_CONTAINS(CAST(${expression} AS STRING), ${string(`(?i)\\b${regexLiteral(word)}\\b`)})`,
  wordCount: (expression) => double(`AVG(ARRAY_LENGTH(SPLIT(TRIM(CAST(${expression} AS STRING)), ' ')))`),
  sampledTable: (ref, tableRows, rows) =>
    tableRows <= rows
      ? table(ref)
      : `(SELECT * FROM ${table(ref)} TABLESAMPLE SYSTEM (${finiteNumber(Math.min(100, (100 * rows) / Math.max(1, tableRows)))} PERCENT))`,
  orderedConcat: (expression, separator) => `STRING_AGG(${expression}, ${string(separator)} ORDER BY ${expression})`,
  slope: (y, x) => slopeFromSums(y, x, double),
  daysBetween: (from, to) => `DATE_DIFF(DATE(${timestamp(to)}), DATE(${timestamp(from)}), DAY)`,
  monthText: (expression) => `FORMAT_TIMESTAMP('%Y-%m', ${timestamp(expression)})`,
  topRowsPerGroup: rankedTopRows,
  // UNNEST is a FROM item in GoogleSQL, not a SELECT-list function
  wordRows: () => undefined,
};
