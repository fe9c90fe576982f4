/**
 * What happens after a row: for a parent table (sessions, customers, posts) and a table referencing
 * it (orders, interactions), per segment of the parent: the share of parents with any child, children
 * per parent, the share of parents that reached a funnel flag yet got no child (abandonment), repeat
 * children, and child amounts per parent, also within 90 days of the parent's start.
 */
import type { Reference } from '../schema-model.js';
import { mainTime } from '../schema-model.js';
import type { Segment } from '../planner/segments.js';
import { singular } from '../text.js';
import type { ColumnModel } from '../types.js';
import { alias, type SqlDialect } from './dialect.js';
import { SEGMENT_ROWS_MAX, countAlias } from './segment-query.js';

/** Window for cohort value: long enough for repeat behaviour, short enough for most cohorts to have it. */
export const COHORT_VALUE_DAYS = 90;

export interface ChildQueryOptions {
  /** Parent flags that mark a funnel step (`reached_checkout`). */
  funnelFlags: readonly ColumnModel[];
  /** Child metrics summed per parent (amounts). */
  childMetrics: readonly ColumnModel[];
  /** Whether to measure repeat children and the 90-day window (people, not sessions). */
  valueMode: boolean;
}

export function childOutcomeQuery(dialect: SqlDialect, reference: Reference, segment: Segment, options: ChildQueryOptions): string {
  const parent = reference.to;
  const child = reference.from;
  const parentKey = reference.toKey;
  const parentCount = countAlias(parent);
  const childName = child.name.toLowerCase();
  const perParent = singular(parent.name.toLowerCase());
  const parentTime = mainTime(parent);
  const childTime = mainTime(child);
  const windowed = options.valueMode && parentTime !== undefined && childTime !== undefined;

  const childSelect = [`${dialect.column('c', reference.column.name)} AS parent_key`, 'COUNT(*) AS child_rows'];
  for (const metric of options.childMetrics) {
    childSelect.push(
      `SUM(${dialect.syntax.toDouble(dialect.column('c', metric.name))}) AS ${dialect.identifier(alias('sum', metric.name))}`,
    );
    if (windowed) {
      childSelect.push(
        `SUM(CASE WHEN ${dialect.syntax.toTimestamp(dialect.column('c', (childTime as ColumnModel).name))} < ${dialect.syntax.addDays(dialect.column('p', (parentTime as ColumnModel).name), COHORT_VALUE_DAYS)} THEN ${dialect.syntax.toDouble(dialect.column('c', metric.name))} ELSE 0 END) AS ${dialect.identifier(alias('window', metric.name))}`,
      );
    }
  }
  const childFrom = windowed
    ? `${dialect.table(child.qualified)} c\n    JOIN ${dialect.table(parent.qualified)} p ON ${dialect.column('p', parentKey.name)} = ${dialect.column('c', reference.column.name)}`
    : `${dialect.table(child.qualified)} c`;

  const select = [`${segment.expression} AS ${dialect.identifier(segment.alias)}`, `COUNT(*) AS ${dialect.identifier(parentCount)}`];
  if (options.valueMode) {
    const withChild = alias(parentCount, 'with', childName);
    select.push(`COUNT(ch.parent_key) AS ${dialect.identifier(withChild)}`);
    select.push(
      `AVG(CASE WHEN ch.parent_key IS NOT NULL THEN (CASE WHEN ch.child_rows >= 2 THEN 1.0 ELSE 0.0 END) END) AS ${dialect.identifier(alias(withChild, 'repeat_rate'))}`,
    );
  } else {
    select.push(
      `AVG(CASE WHEN ch.parent_key IS NOT NULL THEN 1.0 ELSE 0.0 END) AS ${dialect.identifier(alias('with', childName, 'rate'))}`,
    );
  }
  select.push(`AVG(COALESCE(ch.child_rows, 0) * 1.0) AS ${dialect.identifier(alias('avg', childName, 'per', perParent))}`);
  for (const flag of options.funnelFlags) {
    const flagged = alias(flag.name, parentCount);
    select.push(`COUNT(CASE WHEN ${dialect.column('t', flag.name)} THEN 1 END) AS ${dialect.identifier(flagged)}`);
    select.push(
      `AVG(CASE WHEN ${dialect.column('t', flag.name)} THEN (CASE WHEN ch.parent_key IS NULL THEN 1.0 ELSE 0.0 END) END) AS ${dialect.identifier(alias(flagged, 'abandon_rate'))}`,
    );
  }
  for (const metric of options.childMetrics) {
    select.push(
      `AVG(COALESCE(ch.${dialect.identifier(alias('sum', metric.name))}, 0)) AS ${dialect.identifier(alias('avg', metric.name, 'per', perParent))}`,
    );
    if (windowed) {
      select.push(
        `AVG(CASE WHEN ${dialect.syntax.toTimestamp(dialect.column('t', (parentTime as ColumnModel).name))} <= ${dialect.syntax.addDays('h.last_time', -COHORT_VALUE_DAYS)} THEN COALESCE(ch.${dialect.identifier(alias('window', metric.name))}, 0) END) AS ${dialect.identifier(alias('avg', metric.name, `${COHORT_VALUE_DAYS}d`, 'per', perParent))}`,
      );
    }
  }

  const lines = ['WITH child AS (', `  SELECT ${childSelect.join(',\n         ')}`, `  FROM ${childFrom}`, '  GROUP BY 1', ')'];
  if (windowed)
    lines.push(
      `, horizon AS (SELECT MAX(${dialect.identifier((childTime as ColumnModel).name)}) AS last_time FROM ${dialect.table(child.qualified)})`,
    );
  lines.push(
    `SELECT ${select.join(',\n       ')}`,
    `FROM ${dialect.table(parent.qualified)} t${windowed ? '\nCROSS JOIN horizon h' : ''}`,
    `LEFT JOIN child ch ON ch.parent_key = ${dialect.column('t', parentKey.name)}${segment.join ? `\n${segment.join}` : ''}`,
    'GROUP BY 1',
    `ORDER BY ${segment.ordinal ? '1' : `${dialect.identifier(parentCount)} DESC, 1`}`,
    `LIMIT ${SEGMENT_ROWS_MAX}`,
  );
  return lines.join('\n');
}
