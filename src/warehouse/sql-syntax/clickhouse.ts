/**
 * ClickHouse's spelling of the engine's SQL (see syntax.ts). Written for current ClickHouse and kept
 * to functions that 18.16 (the oldest server tested) also has: the continuous quantile interpolates
 * over `arraySort(groupArray(…))` (`quantileExactInclusive` is newer), and a variance or correlation
 * that is NaN or infinite (one row, a constant column) becomes NULL, as on the other engines.
 * Sampling filters on `rand()`: fast, uniform, but not repeatable (a SAMPLE clause needs a sampling key).
 */
import {
  backslashQuoted,
  backtickEscaped,
  finiteNumber,
  interpolatedQuantile,
  plainTimestampText,
  qualifiedTable,
  regexLiteral,
  slopeFromSums,
  WORD_SEPARATOR,
} from './common.js';
import type { CalendarPart, SqlSyntax, TimeGrain } from './syntax.js';

const string = (value: string) => backslashQuoted(value, "\\'");
const double = (expression: string) => `toFloat64(${expression})`;
const datetime = (expression: string) => `toDateTime(${expression})`;
/** NaN and ±Infinity (ClickHouse's answer for one row or a constant column) become NULL. */
const finiteOrNull = (expression: string) => `if(isFinite(${expression}), ${expression}, NULL)`;

const CALENDAR: Record<CalendarPart, string> = { hour_of_day: 'toHour', day_of_week: 'toDayOfWeek', month_of_year: 'toMonth' };
const TRUNCATE: Record<TimeGrain, string> = {
  hour: 'toStartOfHour',
  day: 'toStartOfDay',
  week: 'toMonday',
  month: 'toStartOfMonth',
  quarter: 'toStartOfQuarter',
  year: 'toStartOfYear',
};

function quantile(expression: string, q: number): string {
  const sorted = `arraySort(groupArray(${double(expression)}))`;
  return interpolatedQuantile(`length(${sorted})`, (position) => `arrayElement(${sorted}, toUInt64(${position}))`, q);
}

export const clickhouseSyntax: SqlSyntax = {
  dialect: 'clickhouse',
  operandFor: (expression, values) =>
    values.some((value) => typeof value === 'number' && !Number.isInteger(value)) ? double(expression) : expression,
  isNotTrue: (condition) => `NOT coalesce((${condition}), 0)`,
  // 18.16 refuses a second JOIN in a SELECT; the nested form runs on current ClickHouse as well
  oneJoinPerSelect: true,
  identifier: backtickEscaped,
  table: (ref) => qualifiedTable(ref, backtickEscaped),
  string,
  number: finiteNumber,
  boolean: (value) => (value ? '1' : '0'),
  literal(value) {
    if (typeof value === 'number') return finiteNumber(value);
    if (typeof value === 'boolean') return value ? '1' : '0';
    return string(value);
  },
  toDouble: double,
  toText: (expression) => `toString(${expression})`,
  timestamp: (iso) => datetime(string(plainTimestampText(iso, false))),
  toTimestamp: datetime,
  truncate: (expression, grain) => datetime(`${TRUNCATE[grain]}(${datetime(expression)})`),
  calendarPart: (expression, part) => `toInt32(${CALENDAR[part]}(${datetime(expression)}))`,
  year: (expression) => `toInt32(toYear(${datetime(expression)}))`,
  addDays: (expression, days) => `addDays(${datetime(expression)}, ${Math.trunc(days)})`,
  epochSeconds: (expression) => double(`toUnixTimestamp(${datetime(expression)})`),
  variance: (expression) => finiteOrNull(`varSamp(${double(expression)})`),
  median: (expression) => quantile(expression, 0.5),
  quantile,
  correlation: (y, x) => finiteOrNull(`corr(${double(y)}, ${double(x)})`),
  approxDistinct: (expression) => double(`uniq(${expression})`),
  containsWord: (expression, word) => `match(toString(${expression}), ${string(`(?i)\\b${regexLiteral(word)}\\b`)})`,
  wordCount: (expression) => {
    const text = `replaceRegexpAll(toString(${expression}), '^ +| +$', '')`;
    return double(`avg(length(${text}) - length(replaceAll(${text}, ' ', '')) + 1)`);
  },
  sampledTable: (ref, tableRows, rows) =>
    tableRows <= rows
      ? qualifiedTable(ref, backtickEscaped)
      : `(SELECT * FROM ${qualifiedTable(ref, backtickEscaped)} WHERE rand() < ${Math.floor(Math.min(1, rows / Math.max(1, tableRows)) * 4294967295)})`,
  orderedConcat: (expression, separator) => `arrayStringConcat(arraySort(groupArray(${expression})), ${string(separator)})`,
  slope: (y, x) => finiteOrNull(slopeFromSums(y, x, double)),
  daysBetween: (from, to) => `dateDiff('day', toDate(${from}), toDate(${to}))`,
  monthText: (expression) => `formatDateTime(${datetime(expression)}, '%Y-%m')`,
  topRowsPerGroup: (source, columns, group, order, count) =>
    `SELECT ${columns} FROM ${source} AS counted ORDER BY ${group}, ${order} LIMIT ${finiteNumber(count)} BY ${group}`,
  // splitByRegexp is ClickHouse 21.x and later
  wordRows: (expression) => `arrayJoin(splitByRegexp(${string(WORD_SEPARATOR)}, lowerUTF8(toString(${expression}))))`,
};
