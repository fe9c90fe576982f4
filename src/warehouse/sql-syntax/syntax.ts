/** The interface every dialect's SQL syntax implements (see index.ts). */
import type { SqlDialect } from '../sql-guard.js';
import type { TableRef } from '../port.js';

/** Periods a time column is truncated to. */
export const TIME_GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type TimeGrain = (typeof TIME_GRAINS)[number];

/**
 * Calendar positions read off a time column: `hour_of_day` 0–23, `day_of_week` ISO 1 (Monday) – 7
 * (Sunday), `month_of_year` 1–12. They are dimensions like any category: "Friday", "September".
 */
export const CALENDAR_PARTS = ['hour_of_day', 'day_of_week', 'month_of_year'] as const;
export type CalendarPart = (typeof CALENDAR_PARTS)[number];

export interface SqlSyntax {
  readonly dialect: SqlDialect;
  /** A column or alias, always quoted (names from a warehouse are data, not SQL). */
  identifier(name: string): string;
  /** `"schema"."table"`. */
  table(ref: TableRef): string;
  /** A text literal with quotes escaped. */
  string(value: string): string;
  /** A finite number literal; throws RangeError on NaN or ±Infinity. */
  number(value: number): string;
  boolean(value: boolean): string;
  /** Any scalar as a literal of its own type. */
  literal(value: string | number | boolean): string;
  /** A numeric expression as double precision. */
  toDouble(expression: string): string;
  /** Any expression as text. */
  toText(expression: string): string;
  /** A timestamp literal from ISO text (`2023-07-01` or `2023-07-01T12:00:00`). */
  timestamp(iso: string): string;
  /** The expression as a timestamp (a DATE or TIMESTAMP column, or ISO text). */
  toTimestamp(expression: string): string;
  /** Start of the period holding the timestamp, as a timestamp. */
  truncate(expression: string, grain: TimeGrain): string;
  /** The calendar position (see CALENDAR_PARTS) as an integer. */
  calendarPart(expression: string, part: CalendarPart): string;
  /** The calendar year as an integer. */
  year(expression: string): string;
  /** The timestamp `days` whole days later (earlier when negative). */
  addDays(expression: string, days: number): string;
  /** Seconds since the epoch as double precision. */
  epochSeconds(expression: string): string;
  /** Sample variance (n − 1) as double precision; NULL below two values. */
  variance(expression: string): string;
  /** The continuous median as double precision. */
  median(expression: string): string;
  /** The continuous quantile `q` (0–1) as double precision. */
  quantile(expression: string, q: number): string;
  /** Pearson correlation of two numeric expressions as double precision. */
  correlation(y: string, x: string): string;
  /** Distinct values, approximately where the engine has a sketch (say so in what it measures). */
  approxDistinct(expression: string): string;
  /** True when the text holds `word` as a whole word, case-insensitively (`word` is data: escaped here). */
  containsWord(expression: string, word: string): string;
  /** Average number of words in the text values. */
  wordCount(expression: string): string;
  /** A uniform sample of roughly `rows` rows of the table (a FROM item), or the table itself when it is smaller. */
  sampledTable(ref: TableRef, tableRows: number, rows: number): string;
  /** An aggregate: the text values joined by `separator` in ascending order (`separator` is data: escaped here). */
  orderedConcat(expression: string, separator: string): string;
  /** Least-squares slope of `y` on `x` over the rows where both are present, as double precision; NULL when `x` is constant. */
  slope(y: string, x: string): string;
  /** Whole calendar days from `from` to `to` (dates or timestamps) as an integer. */
  daysBetween(from: string, to: string): string;
  /** The month of a date or timestamp as `YYYY-MM` text. */
  monthText(expression: string): string;
  /**
   * One row per word of a text (lower case, split on white space and punctuation), written in a
   * SELECT list; undefined where the engine has no set-returning splitter there (MySQL/MariaDB, and
   * BigQuery and Snowflake, whose splitters are FROM items).
   */
  wordRows(expression: string): string | undefined;
  /**
   * `expression` as the left side of a comparison with these literals, where the engine needs it cast:
   * ClickHouse compares no Decimal with a Float64 literal ("No operation equals between Decimal(12, 2)
   * and Float64"), so against a fractional number it compares as double. Absent: compared as it is
   * (see `comparedOperand` in index.ts).
   */
  operandFor?(expression: string, values: ReadonlyArray<string | number | boolean>): string;
  /**
   * True when `condition` is false or NULL, where the engine has no `IS NOT TRUE` (ClickHouse).
   * Absent: `(condition) IS NOT TRUE` (see `notTrue` in index.ts).
   */
  isNotTrue?(condition: string): string;
  /**
   * The engine runs one JOIN per SELECT (ClickHouse 18.16: "Support for more than one JOIN in query is
   * not implemented"): a table's related values are joined one per nested SELECT (claims/relation.ts).
   */
  readonly oneJoinPerSelect?: boolean;
  /**
   * A SELECT of `columns` from the derived table `source` (parenthesised) that keeps the first `count`
   * rows of each `group` value in `order` (a comma-separated ORDER BY list without the group), ordered
   * by the group and then `order`. Window engines rank with `row_number()`; ClickHouse has `LIMIT n BY`
   * on every version (its window functions are 21.x and later).
   */
  topRowsPerGroup(source: string, columns: string, group: string, order: string, count: number): string;
  /**
   * A sample of roughly `rows` rows read block by block (a FROM item), or the table itself when it is
   * smaller: the engine reads only the sampled blocks, so the cost follows `rows`, not the table (a row
   * sample filters every row). Rows of a block come together, so it suits tables far past the sample
   * size. Absent where the engine has no repeatable block sample (the row sample is used there).
   */
  blockSampledTable?(ref: TableRef, tableRows: number, rows: number): string;
}
