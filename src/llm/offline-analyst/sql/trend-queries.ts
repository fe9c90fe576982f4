/** Over time: monthly series of a table's measures, and per segment the change of one rate from the first to the last months. */
import type { Measure } from '../planner/measures.js';
import type { Segment } from '../planner/segments.js';
import type { TableModel } from '../types.js';
import { alias, quoteIdentifier, quoteTable } from './dialect.js';
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

export function monthlyQuery(table: TableModel, time: TimeSource, measures: readonly Measure[]): string {
  const count = quoteIdentifier(countAlias(table));
  const select = [
    `date_trunc('month', ${time.expression}) AS month`,
    `COUNT(*) AS ${count}`,
    ...measures.filter((measure) => measure.kind !== 'share').map((measure) => `${measure.sql} AS ${quoteIdentifier(measure.alias)}`),
  ];
  return [
    `SELECT ${select.join(',\n       ')}`,
    `FROM ${quoteTable(table.qualified)} t${time.join ? `\n${time.join}` : ''}`,
    'GROUP BY 1',
    'ORDER BY 1',
    `LIMIT ${MONTHLY_ROWS_MAX}`,
  ].join('\n');
}

export function segmentTrendQuery(table: TableModel, segment: Segment, time: TimeSource, rate: Measure): string {
  const count = quoteIdentifier(countAlias(table));
  const rateName = rate.alias;
  const joins = [...new Set([time.join, segment.join, rate.join ?? ''].filter(Boolean))].join('\n  ');
  return [
    'WITH monthly AS (',
    `  SELECT ${segment.expression} AS segment_value, date_trunc('month', ${time.expression}) AS month, COUNT(*) AS n, ${rate.sql} AS r`,
    `  FROM ${quoteTable(table.qualified)} t${joins ? `\n  ${joins}` : ''}`,
    '  GROUP BY 1, 2',
    '), indexed AS (',
    '  SELECT *, ROW_NUMBER() OVER (PARTITION BY segment_value ORDER BY month) AS month_index, COUNT(*) OVER (PARTITION BY segment_value) AS months FROM monthly',
    ')',
    `SELECT segment_value AS ${quoteIdentifier(segment.alias)},`,
    `       SUM(n) AS ${count},`,
    `       SUM(r * n) / NULLIF(SUM(n), 0) AS ${quoteIdentifier(rateName)},`,
    `       SUM(r * n) FILTER (WHERE month_index <= ${TREND_EDGE_MONTHS}) / NULLIF(SUM(n) FILTER (WHERE month_index <= ${TREND_EDGE_MONTHS}), 0) AS ${quoteIdentifier(alias(`first_${TREND_EDGE_MONTHS}_months`, rateName))},`,
    `       SUM(r * n) FILTER (WHERE month_index > months - ${TREND_EDGE_MONTHS}) / NULLIF(SUM(n) FILTER (WHERE month_index > months - ${TREND_EDGE_MONTHS}), 0) AS ${quoteIdentifier(alias(`last_${TREND_EDGE_MONTHS}_months`, rateName))},`,
    `       regr_slope(r, month_index) AS ${quoteIdentifier(alias('monthly_change', rateName))},`,
    '       COUNT(*) AS months',
    'FROM indexed',
    'GROUP BY 1',
    `ORDER BY ${count} DESC, 1`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}
