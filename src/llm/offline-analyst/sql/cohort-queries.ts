/**
 * Queries on people over time: return rates after their start (D1, D7, days 28–34) per segment, how
 * long after their start they first act (first purchase), weekly arrivals (spikes), and how far along
 * an ordered scale (levels) each one got.
 */
import type { Reference } from '../schema-model.js';
import { mainTime } from '../schema-model.js';
import type { Segment } from '../planner/segments.js';
import { singular } from '../text.js';
import type { ColumnModel, TableModel } from '../types.js';
import { alias, type SqlDialect } from './dialect.js';
import { SEGMENT_ROWS_MAX, countAlias } from './segment-query.js';

/** The latest return window measured (days 28–34) plus a day: only people observed that long count. */
export const RETENTION_OBSERVATION_DAYS = 35;

export function retentionQuery(dialect: SqlDialect, activity: Reference, segment: Segment): string {
  const people = activity.to;
  const start = mainTime(people) as ColumnModel;
  const activeAt = mainTime(activity.from) as ColumnModel;
  const count = dialect.identifier(countAlias(people));
  const days = dialect.syntax.daysBetween('c.start_time', 'a.active_day');
  return [
    `WITH horizon AS (SELECT MAX(${dialect.identifier(activeAt.name)}) AS last_time FROM ${dialect.table(activity.from.qualified)}),`,
    'cohort AS (',
    `  SELECT ${dialect.column('t', activity.toKey.name)} AS entity_key, ${dialect.column('t', start.name)} AS start_time, ${segment.expression} AS segment_value`,
    `  FROM ${dialect.table(people.qualified)} t${segment.join ? `\n  ${segment.join}` : ''}`,
    '  CROSS JOIN horizon h',
    `  WHERE ${dialect.syntax.toTimestamp(dialect.column('t', start.name))} <= ${dialect.syntax.addDays('h.last_time', -RETENTION_OBSERVATION_DAYS)}`,
    '),',
    `activity AS (SELECT DISTINCT ${dialect.column('a', activity.column.name)} AS entity_key, CAST(${dialect.column('a', activeAt.name)} AS DATE) AS active_day FROM ${dialect.table(activity.from.qualified)} a),`,
    'returns AS (',
    '  SELECT c.entity_key,',
    `         MAX(CASE WHEN ${days} = 1 THEN 1 ELSE 0 END) AS d1,`,
    `         MAX(CASE WHEN ${days} = 7 THEN 1 ELSE 0 END) AS d7,`,
    `         MAX(CASE WHEN ${days} BETWEEN 28 AND 34 THEN 1 ELSE 0 END) AS week5`,
    '  FROM cohort c JOIN activity a ON a.entity_key = c.entity_key',
    '  GROUP BY 1',
    ')',
    `SELECT c.segment_value AS ${dialect.identifier(segment.alias)},`,
    `       COUNT(*) AS ${count},`,
    '       AVG(COALESCE(r.d1, 0) * 1.0) AS d1_retention_rate,',
    '       AVG(COALESCE(r.d7, 0) * 1.0) AS d7_retention_rate,',
    '       AVG(COALESCE(r.week5, 0) * 1.0) AS week5_retention_rate',
    'FROM cohort c LEFT JOIN returns r ON r.entity_key = c.entity_key',
    'GROUP BY 1',
    `ORDER BY ${count} DESC, 1`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}

/** Name of the bucket column of a time-to-first query (`days_to_first_purchase`). */
export function firstBucketAlias(child: TableModel): string {
  return alias('days_to_first', singular(child.name.toLowerCase()));
}

export function timeToFirstQuery(dialect: SqlDialect, reference: Reference): string {
  const people = reference.to;
  const child = reference.from;
  const start = mainTime(people) as ColumnModel;
  const acted = mainTime(child) as ColumnModel;
  const withChild = alias(countAlias(people), 'with', child.name);
  const days = `FLOOR(${dialect.fractionalDaysBetween(dialect.column('t', start.name), 'f.first_time')})`;
  return [
    `WITH first_child AS (SELECT ${dialect.column('c', reference.column.name)} AS entity_key, MIN(${dialect.column('c', acted.name)}) AS first_time FROM ${dialect.table(child.qualified)} c GROUP BY 1),`,
    `gaps AS (SELECT ${days} AS days FROM ${dialect.table(people.qualified)} t JOIN first_child f ON f.entity_key = ${dialect.column('t', reference.toKey.name)})`,
    `SELECT CASE WHEN days <= 0 THEN '0' WHEN days = 1 THEN '1' WHEN days = 2 THEN '2' WHEN days = 3 THEN '3' WHEN days <= 7 THEN '4-7' WHEN days <= 30 THEN '8-30' ELSE '31+' END AS ${dialect.identifier(firstBucketAlias(child))},`,
    `       COUNT(*) AS ${dialect.identifier(withChild)},`,
    `       COUNT(*) * 1.0 / SUM(COUNT(*)) OVER () AS ${dialect.identifier(alias('share_of', withChild))}`,
    'FROM gaps',
    'GROUP BY 1',
    'ORDER BY MIN(days)',
  ].join('\n');
}

/** Weekly arrivals, the busiest weeks first, next to the median week; optional references counted as "with …". */
export function weeklyArrivalsQuery(dialect: SqlDialect, people: TableModel, optionalReferences: readonly ColumnModel[]): string {
  const start = mainTime(people) as ColumnModel;
  const count = dialect.identifier(countAlias(people));
  const weekly = [
    `${dialect.syntax.truncate(dialect.column('t', start.name), 'week')} AS week`,
    `COUNT(*) AS ${count}`,
    ...optionalReferences.map(
      (reference) =>
        `COUNT(${dialect.column('t', reference.name)}) AS ${dialect.identifier(alias('with', reference.name.replace(/_(id|key)$/i, '')))}`,
    ),
  ];
  return [
    `WITH weekly AS (SELECT ${weekly.join(', ')} FROM ${dialect.table(people.qualified)} t GROUP BY 1)`,
    `SELECT *, (SELECT ${dialect.syntax.median(count)} FROM weekly) AS ${dialect.identifier(alias('median_weekly', countAlias(people)))}`,
    'FROM weekly',
    `ORDER BY ${count} DESC, week`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}

/** Furthest position on a scale per person: a spike marks where progress stops. */
export function furthestPositionQuery(dialect: SqlDialect, reference: Reference, ordinal: ColumnModel): string {
  const people = countAlias(reference.to);
  return [
    `WITH furthest AS (SELECT ${dialect.column('t', reference.column.name)} AS entity_key, MAX(${dialect.column('t', ordinal.name)}) AS furthest FROM ${dialect.table(reference.from.qualified)} t GROUP BY 1)`,
    `SELECT furthest AS ${dialect.identifier(alias('furthest', ordinal.name))}, COUNT(*) AS ${dialect.identifier(people)}, COUNT(*) * 1.0 / SUM(COUNT(*)) OVER () AS ${dialect.identifier(alias('share_of', people))}`,
    'FROM furthest',
    'GROUP BY 1',
    `ORDER BY 2 DESC, 1`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  ].join('\n');
}
