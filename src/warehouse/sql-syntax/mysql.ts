/**
 * MySQL/MariaDB's spelling of the engine's SQL (see syntax.ts). Neither has a continuous-median
 * aggregate nor `corr`: the quantile interpolates over a sorted `GROUP_CONCAT` (the adapter raises
 * `group_concat_max_len` so the list is never cut), and the correlation is Pearson's formula over sums.
 * Strings escape backslashes, as the server reads them by default.
 */
import {
  backslashQuoted,
  backtickDoubled,
  finiteNumber,
  interpolatedQuantile,
  plainTimestampText,
  qualifiedTable,
  regexLiteral,
  slopeFromSums,
  rankedTopRows,
} from './common.js';
import type { CalendarPart, SqlSyntax, TimeGrain } from './syntax.js';

const string = (value: string) => backslashQuoted(value);
const datetime = (expression: string) => `CAST(${expression} AS DATETIME(6))`;
const double = (expression: string) => `CAST(${expression} AS DOUBLE)`;

const CALENDAR: Record<CalendarPart, (timestamp: string) => string> = {
  hour_of_day: (timestamp) => `HOUR(${timestamp})`,
  day_of_week: (timestamp) => `(WEEKDAY(${timestamp}) + 1)`,
  month_of_year: (timestamp) => `MONTH(${timestamp})`,
};

function truncate(expression: string, grain: TimeGrain): string {
  const timestamp = datetime(expression);
  switch (grain) {
    case 'hour':
      return datetime(`DATE_FORMAT(${timestamp}, '%Y-%m-%d %H:00:00')`);
    case 'day':
      return datetime(`DATE(${timestamp})`);
    case 'week':
      return datetime(`FROM_DAYS(TO_DAYS(${timestamp}) - WEEKDAY(${timestamp}))`);
    case 'month':
      return datetime(`DATE_FORMAT(${timestamp}, '%Y-%m-01')`);
    case 'quarter':
      return datetime(`MAKEDATE(YEAR(${timestamp}), 1) + INTERVAL (QUARTER(${timestamp}) - 1) QUARTER`);
    case 'year':
      return datetime(`DATE_FORMAT(${timestamp}, '%Y-01-01')`);
  }
}

/** Pearson's r over the rows where both values are present; NULL when either side is constant. */
function correlation(y: string, x: string): string {
  const both = `${y} IS NOT NULL AND ${x} IS NOT NULL`;
  const sum = (term: string) => `SUM(CASE WHEN ${both} THEN ${term} END)`;
  const n = sum('1.0');
  const [sx, sy, sxx, syy, sxy] = [
    sum(double(x)),
    sum(double(y)),
    sum(`${double(x)} * ${double(x)}`),
    sum(`${double(y)} * ${double(y)}`),
    sum(`${double(x)} * ${double(y)}`),
  ];
  return double(
    `(${n} * ${sxy} - ${sx} * ${sy}) / NULLIF(SQRT(NULLIF((${n} * ${sxx} - ${sx} * ${sx}) * (${n} * ${syy} - ${sy} * ${sy}), 0)), 0)`,
  );
}

function quantile(expression: string, q: number): string {
  const value = double(expression);
  const sorted = `GROUP_CONCAT(${value} ORDER BY ${value} SEPARATOR ',')`;
  const element = (position: string) => double(`SUBSTRING_INDEX(SUBSTRING_INDEX(${sorted}, ',', ${position}), ',', -1)`);
  return double(interpolatedQuantile(`COUNT(${expression})`, element, q));
}

export const mysqlSyntax: SqlSyntax = {
  dialect: 'mysql',
  identifier: backtickDoubled,
  table: (ref) => qualifiedTable(ref, backtickDoubled),
  string,
  number: finiteNumber,
  boolean: (value) => (value ? 'TRUE' : 'FALSE'),
  literal(value) {
    if (typeof value === 'number') return finiteNumber(value);
    if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
    return string(value);
  },
  toDouble: double,
  toText: (expression) => `CAST(${expression} AS CHAR)`,
  timestamp: (iso) => datetime(string(plainTimestampText(iso))),
  toTimestamp: datetime,
  truncate,
  calendarPart: (expression, part) => `CAST(${CALENDAR[part](datetime(expression))} AS SIGNED)`,
  year: (expression) => `CAST(YEAR(${datetime(expression)}) AS SIGNED)`,
  addDays: (expression, days) => `DATE_ADD(${datetime(expression)}, INTERVAL ${Math.trunc(days)} DAY)`,
  epochSeconds: (expression) => double(`TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', ${datetime(expression)}) / 1000000`),
  variance: (expression) => double(`VAR_SAMP(${expression})`),
  median: (expression) => quantile(expression, 0.5),
  quantile,
  correlation,
  // no distinct-count sketch: the exact count
  approxDistinct: (expression) => double(`COUNT(DISTINCT ${expression})`),
  containsWord: (expression, word) => `(CAST(${expression} AS CHAR) REGEXP ${string(`(?i)\\b${regexLiteral(word)}\\b`)})`,
  // spaces counted in bytes (a space is one); TRIM reads any value as text; the average of integers is
  // an exact DECIMAL, read as a number. Kept short: the analyst's profile writes this once per column,
  // and the whole statement must fit the model's reply, as on DuckDB
  wordCount: (expression) => `AVG(LENGTH(TRIM(${expression})) - LENGTH(REPLACE(TRIM(${expression}), ' ', '')) + 1)`,
  sampledTable: (ref, tableRows, rows) =>
    tableRows <= rows
      ? qualifiedTable(ref, backtickDoubled)
      : `(SELECT * FROM ${qualifiedTable(ref, backtickDoubled)} WHERE RAND(7) < ${finiteNumber(Math.min(1, rows / Math.max(1, tableRows)))})`,
  orderedConcat: (expression, separator) => `GROUP_CONCAT(${expression} ORDER BY ${expression} SEPARATOR ${string(separator)})`,
  slope: (y, x) => slopeFromSums(y, x, double),
  daysBetween: (from, to) => `DATEDIFF(${datetime(to)}, ${datetime(from)})`,
  monthText: (expression) => `DATE_FORMAT(${datetime(expression)}, '%Y-%m')`,
  topRowsPerGroup: rankedTopRows,
  // no set-returning splitter: the queries that need one are not written for MySQL/MariaDB
  wordRows: () => undefined,
};
