/** Rates and averages per segment of one table: where a flag, status or metric is unusually high or low. */
import { spreadAlias, type Measure } from '../planner/measures.js';
import type { Segment } from '../planner/segments.js';
import type { TableModel } from '../types.js';
import { alias, type SqlDialect } from './dialect.js';

/** Rows a segment query returns at most: the analysis digest shows every row up to 20. */
export const SEGMENT_ROWS_MAX = 20;

/**
 * Columns a per-segment result carries at most: wider rows no longer fit whole in an analysis digest
 * (a digest that loses rows can no longer compare every segment).
 */
export const SEGMENT_COLUMNS_MAX = 16;
/** Standard deviations carried at most (durations' and the main amount's first). */
const SPREADS_MAX = 2;

export function countAlias(table: TableModel): string {
  return alias(table.name);
}

/** The measures a segment query carries, most important first, within the column budget, and the spreads it adds. */
function budgeted(measures: readonly Measure[]): { carried: Measure[]; spreads: Measure[] } {
  const room = SEGMENT_COLUMNS_MAX - 3; // the segment, its count and its share
  const candidates = measures
    .slice(0, room)
    .filter((measure) => measure.spreadSql !== undefined)
    .slice(0, SPREADS_MAX);
  const carried = measures.slice(0, room - candidates.length);
  return { carried, spreads: candidates.filter((measure) => carried.includes(measure)) };
}

export function segmentQuery(dialect: SqlDialect, table: TableModel, segment: Segment, allMeasures: readonly Measure[]): string {
  const count = dialect.identifier(countAlias(table));
  const { carried: measures, spreads } = budgeted(allMeasures);
  const select = [
    `${segment.expression} AS ${dialect.identifier(segment.alias)}`,
    `COUNT(*) AS ${count}`,
    ...measures.map((measure) => `${measure.sql} AS ${dialect.identifier(measure.alias)}`),
    ...spreads.map((measure) => `${measure.spreadSql} AS ${dialect.identifier(spreadAlias(measure.alias))}`),
  ];
  if (!measures.some((measure) => measure.kind === 'share'))
    select.push(`COUNT(*) * 1.0 / SUM(COUNT(*)) OVER () AS ${dialect.identifier(alias('share_of', table.name))}`);
  return [
    `SELECT ${select.join(',\n       ')}`,
    `FROM ${dialect.table(table.qualified)} t${segment.join ? `\n${segment.join}` : ''}`,
    'GROUP BY 1',
    `ORDER BY ${segment.ordinal ? '1' : `${count} DESC, 1`}`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}

/**
 * A long ordered scale (levels) does not fit in 20 rows: the rows where the first rate is worst, next
 * to that rate's mean over every position, show where the cliff is.
 */
export function ordinalCliffQuery(dialect: SqlDialect, table: TableModel, segment: Segment, rates: readonly Measure[]): string {
  const count = dialect.identifier(countAlias(table));
  const first = rates[0] as Measure;
  const perPosition = [
    `${segment.expression} AS ${dialect.identifier(segment.alias)}`,
    `COUNT(*) AS ${count}`,
    ...rates.map((measure) => `${measure.sql} AS ${dialect.identifier(measure.alias)}`),
  ];
  const meanAlias = dialect.identifier(alias('mean', first.alias, 'across', segment.alias));
  return [
    `WITH per_position AS (`,
    `  SELECT ${perPosition.join(',\n         ')}`,
    `  FROM ${dialect.table(table.qualified)} t${segment.join ? `\n  ${segment.join}` : ''}`,
    '  GROUP BY 1',
    ')',
    `SELECT *, AVG(${dialect.identifier(first.alias)}) OVER () AS ${meanAlias}`,
    'FROM per_position',
    `ORDER BY ${dialect.identifier(first.alias)} ${first.negative ? 'DESC' : 'ASC'}, 1`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}
