/** Over time: monthly series of a table's measures, and per segment the change of one rate from the first to the last months. */
import type { Measure } from '../planner/measures.js';
import type { Segment } from '../planner/segments.js';
import type { TableModel } from '../types.js';
import { alias, type SqlDialect } from './dialect.js';
import { SEGMENT_ROWS_MAX, countAlias } from './segment-query.js';

/** Months a monthly series shows at most (three years). */
export const MONTHLY_ROWS_MAX = 36;
/** Months compared at each end of a series. */
export const TREND_EDGE_MONTHS = 3;

/** Where a table's rows get their time: its own column, or a referenced parent's (order_items → orders). */
export interface TimeSource {
  expression: string;
  join: string;
  words: string[];
}

export function monthlyQuery(dialect: SqlDialect, table: TableModel, time: TimeSource, measures: readonly Measure[]): string {
  const count = dialect.identifier(countAlias(table));
  const select = [
    `${dialect.syntax.truncate(time.expression, 'month')} AS month`,
    `COUNT(*) AS ${count}`,
    ...measures.filter((measure) => measure.kind !== 'share').map((measure) => `${measure.sql} AS ${dialect.identifier(measure.alias)}`),
  ];
  return [
    `SELECT ${select.join(',\n       ')}`,
    `FROM ${dialect.table(table.qualified)} t${time.join ? `\n${time.join}` : ''}`,
    'GROUP BY 1',
    'ORDER BY 1',
    `LIMIT ${MONTHLY_ROWS_MAX}`,
  ].join('\n');
}

export function segmentTrendQuery(dialect: SqlDialect, table: TableModel, segment: Segment, time: TimeSource, rate: Measure): string {
  const count = dialect.identifier(countAlias(table));
  const rateName = rate.alias;
  const joins = [...new Set([time.join, segment.join, rate.join ?? ''].filter(Boolean))].join('\n  ');
  return [
    'WITH monthly AS (',
    `  SELECT ${segment.expression} AS segment_value, ${dialect.syntax.truncate(time.expression, 'month')} AS month, COUNT(*) AS n, ${rate.sql} AS r`,
    `  FROM ${dialect.table(table.qualified)} t${joins ? `\n  ${joins}` : ''}`,
    '  GROUP BY 1, 2',
    '), indexed AS (',
    '  SELECT *, ROW_NUMBER() OVER (PARTITION BY segment_value ORDER BY month) AS month_index, COUNT(*) OVER (PARTITION BY segment_value) AS months FROM monthly',
    ')',
    `SELECT segment_value AS ${dialect.identifier(segment.alias)},`,
    `       SUM(n) AS ${count},`,
    `       SUM(r * n) / NULLIF(SUM(n), 0) AS ${dialect.identifier(rateName)},`,
    `       SUM(CASE WHEN month_index <= ${TREND_EDGE_MONTHS} THEN r * n END) / NULLIF(SUM(CASE WHEN month_index <= ${TREND_EDGE_MONTHS} THEN n END), 0) AS ${dialect.identifier(alias(`first_${TREND_EDGE_MONTHS}_months`, rateName))},`,
    `       SUM(CASE WHEN month_index > months - ${TREND_EDGE_MONTHS} THEN r * n END) / NULLIF(SUM(CASE WHEN month_index > months - ${TREND_EDGE_MONTHS} THEN n END), 0) AS ${dialect.identifier(alias(`last_${TREND_EDGE_MONTHS}_months`, rateName))},`,
    `       ${dialect.syntax.slope('r', 'month_index')} AS ${dialect.identifier(alias('monthly_change', rateName))},`,
    '       COUNT(*) AS months',
    'FROM indexed',
    'GROUP BY 1',
    `ORDER BY ${count} DESC, 1`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}
