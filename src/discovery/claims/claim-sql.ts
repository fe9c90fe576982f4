/**
 * The verifier's own SQL for a claim (src/domain/claim.ts): tables and columns resolved against the
 * project's schema and quoted, values written as escaped literals, every piece spelled by the
 * warehouse's `SqlSyntax` — so a recount never re-runs SQL the model or the miner wrote. One statement
 * per claim:
 *
 * - `difference` and `share`: both sides' sufficient statistics (rows, successes, mean, variance, sum,
 *   above-median counts) with conditional aggregates;
 * - `trend` and `shift`: the metric per period (or per step of an ordered axis) with its rows;
 * - `correlation`: Pearson's r and the complete pairs;
 * - `contribution`: per period of the two windows and per side (the segment, the rest), the rows and the
 *   per-row values' count, sum and sum of squares;
 * - `outlier`: the quartiles, smallest value, count and total of the measure, and per side the rows, the
 *   extreme rows' mean and sum, and the other rows' median.
 */
import type { Claim, ClaimCondition, ClaimGroup, ClaimMetric, ClaimScalar } from '../../domain/index.js';
import type { TableSchema } from '../../warehouse/port.js';
import { comparedOperand, notTrue, type SqlSyntax } from '../../warehouse/sql-syntax/index.js';
import { isPeriodGrain } from '../statistics/periods.js';
import { type Relation, RelationShapeError, buildRelation } from './relation.js';

export type RecountShape = 'sides' | 'series' | 'correlation' | 'contribution' | 'outlier';

export type ClaimSql = { ok: true; sql: string; shape: RecountShape } | { ok: false; reason: string };

const SECONDS_PER_UNIT = { seconds: 1, minutes: 60, hours: 3_600, days: 86_400 } as const;
const TEMPORAL_TYPE = /^(date|timestamp|datetime)/i;

type Resolved = Relation;

function column(context: Resolved, name: string | undefined, role: string): string {
  return context.column(name, role);
}

function literal(context: Resolved, value: ClaimScalar): string {
  try {
    return context.syntax.literal(value);
  } catch (error) {
    throw new RelationShapeError((error as Error).message);
  }
}

export function conditionSql(context: Resolved, item: ClaimCondition): string {
  const target = column(context, item.column, 'condition column');
  switch (item.op) {
    case 'is_null':
      return `${target} IS NULL`;
    case 'not_null':
      return `${target} IS NOT NULL`;
    case 'contains':
      if (item.value === undefined) throw new RelationShapeError(`"contains" on "${item.column}" needs a value`);
      return context.syntax.containsWord(target, String(item.value));
    case 'in':
      if (!item.values || item.values.length === 0) throw new RelationShapeError(`"in" on "${item.column}" needs values`);
      return `${comparedOperand(context.syntax, target, item.values)} IN (${item.values.map((value) => literal(context, value)).join(', ')})`;
    default:
      if (item.value === undefined) throw new RelationShapeError(`condition on "${item.column}" with ${item.op} needs a value`);
      return `${comparedOperand(context.syntax, target, [item.value])} ${item.op === '!=' ? '<>' : item.op} ${literal(context, item.value)}`;
  }
}

/** The expression a group compares: the column, its calendar position, or its period. */
export function groupExpression(context: Resolved, group: Pick<ClaimGroup, 'column' | 'grain'>): { expression: string; temporal: boolean } {
  const id = column(context, group.column, 'group column');
  const temporal = TEMPORAL_TYPE.test(context.typeOf(group.column).trim());
  if (group.grain === 'hour_of_day' || group.grain === 'day_of_week' || group.grain === 'month_of_year')
    return { expression: temporal ? context.syntax.calendarPart(id, group.grain) : id, temporal: false };
  if (isPeriodGrain(group.grain)) return { expression: context.syntax.truncate(id, group.grain), temporal: true };
  return { expression: id, temporal };
}

export function groupValue(context: Resolved, value: ClaimScalar, temporal: boolean): string {
  return temporal && typeof value === 'string' ? context.syntax.timestamp(value) : literal(context, value);
}

export function groupSql(context: Resolved, group: ClaimGroup): string {
  if (group.missing) return `${column(context, group.column, 'group column')} IS NULL`;
  const grouped = groupExpression(context, group);
  const { temporal } = grouped;
  const compared = [group.value, group.from, group.to, ...(group.values ?? [])].filter(
    (value): value is ClaimScalar => value !== undefined,
  );
  const expression = temporal ? grouped.expression : comparedOperand(context.syntax, grouped.expression, compared);
  if (group.values) return `${expression} IN (${group.values.map((value) => groupValue(context, value, temporal)).join(', ')})`;
  if (group.value !== undefined) return `${expression} = ${groupValue(context, group.value, temporal)}`;
  const parts: string[] = [];
  if (group.from !== undefined) parts.push(`${expression} >= ${groupValue(context, group.from, temporal)}`);
  if (group.to !== undefined) parts.push(`${expression} < ${groupValue(context, group.to, temporal)}`);
  if (parts.length === 0) throw new RelationShapeError(`group on "${group.column}" names no value`);
  return parts.join(' AND ');
}

/** The per-row value a metric aggregates (undefined for counts and shares, which count rows). */
export function rowValue(context: Resolved, metric: ClaimMetric): string | undefined {
  const { syntax } = context;
  switch (metric.kind) {
    case 'count':
    case 'share':
      return undefined;
    case 'rate': {
      if (!metric.condition) throw new RelationShapeError('a rate needs the condition its rows must meet');
      const target = column(context, metric.condition.column, 'condition column');
      // a rate of (not) being null counts every row; other rates leave rows with no value out of the denominator
      if (metric.condition.op === 'is_null' || metric.condition.op === 'not_null')
        return `CASE WHEN ${conditionSql(context, metric.condition)} THEN 1.0 ELSE 0.0 END`;
      return `CASE WHEN ${conditionSql(context, metric.condition)} THEN 1.0 WHEN ${target} IS NOT NULL THEN 0.0 END`;
    }
    case 'duration_mean':
    case 'duration_median': {
      const start = column(context, metric.start_column, 'start_column');
      const end = column(context, metric.end_column, 'end_column');
      return `(${syntax.epochSeconds(end)} - ${syntax.epochSeconds(start)}) / ${SECONDS_PER_UNIT[metric.unit ?? 'days']}`;
    }
    default:
      return syntax.toDouble(column(context, metric.column, 'column'));
  }
}

const when = (predicate: string, value: string) => `CASE WHEN ${predicate} THEN ${value} END`;

/** Sufficient statistics of one side: rows, the value's count, mean, variance, sum, and (for medians) rows above the pooled median. */
function sideAggregates(context: Resolved, metric: ClaimMetric, predicate: string, prefix: string, median: boolean): string[] {
  const { syntax } = context;
  const value = rowValue(context, metric);
  const parts = [`count(${when(predicate, '1')}) AS ${prefix}_rows`];
  if (metric.kind === 'distinct_count') {
    parts.push(`count(DISTINCT ${when(predicate, column(context, metric.column, 'column'))}) AS ${prefix}_distinct`);
    return parts;
  }
  if (value === undefined) return parts;
  const inside = when(predicate, value);
  parts.push(
    `count(${inside}) AS ${prefix}_n`,
    `${syntax.toDouble(`avg(${inside})`)} AS ${prefix}_mean`,
    `${syntax.variance(inside)} AS ${prefix}_var`,
    `${syntax.toDouble(`sum(${inside})`)} AS ${prefix}_sum`,
  );
  // a difference of totals is tested on the totals, whose spread the values' squares give
  if (metric.kind === 'sum') parts.push(`${syntax.toDouble(`sum(${inside} * ${inside})`)} AS ${prefix}_squares`);
  if (median)
    parts.push(
      `${syntax.median(inside)} AS ${prefix}_median`,
      `count(${when(`${predicate} AND ${value} > pooled.m`, '1')}) AS ${prefix}_above`,
    );
  return parts;
}

export function filtersOf(context: Resolved, claim: Claim, extra: string[] = []): string[] {
  return [...claim.metric.filters.map((item) => conditionSql(context, item)), ...extra];
}

export function whereClause(conditions: readonly string[]): string {
  return conditions.length > 0 ? `WHERE ${conditions.map((condition) => `(${condition})`).join(' AND ')}` : '';
}

function sidesSql(context: Resolved, claim: Claim): string {
  const segment = claim.segment ? groupSql(context, claim.segment) : context.syntax.boolean(true);
  const comparison = claim.comparison;
  // "the rest" is every other row: rows with no value in the segment's column included (NOT would drop them)
  const other =
    !comparison || comparison.kind === 'rest' || comparison.kind === 'even'
      ? notTrue(context.syntax, segment)
      : comparison.kind === 'all'
        ? context.syntax.boolean(true)
        : groupSql(context, comparison.group);
  const median = claim.metric.kind === 'median' || claim.metric.kind === 'duration_median';
  const from = context.from;
  const filters = filtersOf(context, claim);
  const select = [
    ...sideAggregates(context, claim.metric, segment, 'segment', median),
    ...sideAggregates(context, claim.metric, other, 'comparison', median),
    'count(*) AS total_rows',
  ];
  if (claim.kind === 'share' && claim.metric.kind === 'sum') {
    const value = rowValue(context, claim.metric) as string;
    select.push(`${context.syntax.toDouble(`sum(${value})`)} AS total_sum`);
  }
  if (!median) return `SELECT ${select.join(',\n       ')}\nFROM ${from}\n${whereClause(filters)}`.trim();
  const value = rowValue(context, claim.metric) as string;
  return [
    `WITH pooled AS (SELECT ${context.syntax.median(value)} AS m FROM ${from} ${whereClause([...filters, `(${segment}) OR (${other})`])})`,
    `SELECT ${select.join(',\n       ')}`,
    `FROM ${from}\nCROSS JOIN pooled`,
    whereClause(filters),
  ]
    .join('\n')
    .trim();
}

/** The metric measured per period of the claim's series, in its range, on its segment. */
function seriesSql(context: Resolved, claim: Claim): string {
  const series = claim.series;
  if (!series) throw new RelationShapeError(`a ${claim.kind} claim needs a series`);
  const { syntax } = context;
  const axis = groupExpression(context, series);
  const range: string[] = [`${axis.expression} IS NOT NULL`];
  if (series.from !== undefined) range.push(`${axis.expression} >= ${groupValue(context, series.from, axis.temporal)}`);
  if (series.to !== undefined) range.push(`${axis.expression} < ${groupValue(context, series.to, axis.temporal)}`);
  const segment = claim.segment ? [groupSql(context, claim.segment)] : [];
  const value = rowValue(context, claim.metric);
  const aggregate = (() => {
    switch (claim.metric.kind) {
      case 'count':
        return 'count(*)';
      case 'sum':
        return syntax.toDouble(`sum(${value})`);
      case 'distinct_count':
        return `count(DISTINCT ${column(context, claim.metric.column, 'column')})`;
      case 'median':
      case 'duration_median':
        return syntax.median(value as string);
      case 'share':
        throw new RelationShapeError('a share per period is not a series metric');
      default:
        return syntax.toDouble(`avg(${value})`);
    }
  })();
  return [
    `SELECT ${axis.expression} AS p, ${aggregate} AS v, count(*) AS n`,
    `FROM ${context.from}`,
    whereClause([...filtersOf(context, claim), ...segment, ...range]),
    `GROUP BY ${axis.expression}`,
    'ORDER BY p',
  ].join('\n');
}

function correlationSql(context: Resolved, claim: Claim): string {
  const { syntax } = context;
  const y = rowValue(context, claim.metric);
  if (!y || !claim.x) throw new RelationShapeError('a correlation needs two measures');
  const x = syntax.toDouble(column(context, claim.x.column, 'x column'));
  const segment = claim.segment ? [groupSql(context, claim.segment)] : [];
  return [
    `SELECT ${syntax.correlation(y, x)} AS r, count(CASE WHEN ${y} IS NOT NULL AND ${x} IS NOT NULL THEN 1 END) AS n`,
    `FROM ${context.from}`,
    whereClause([...filtersOf(context, claim), ...segment]),
  ]
    .join('\n')
    .trim();
}

/** The series axis and the range condition of [from, to) on it. */
export function axisRange(context: Resolved, series: NonNullable<Claim['series']>, range: { from: ClaimScalar; to: ClaimScalar }): string {
  const axis = groupExpression(context, series);
  return `${axis.expression} >= ${groupValue(context, range.from, axis.temporal)} AND ${axis.expression} < ${groupValue(context, range.to, axis.temporal)}`;
}

/** Per period of the baseline and the window, per side (s = 1: the segment), rows and the value's count, sum, sum of squares. */
function contributionSql(context: Resolved, claim: Claim): string {
  const { series, window, baseline, segment } = claim;
  if (!series || !window || !baseline || !segment)
    throw new RelationShapeError('a contribution claim needs a series, a window, a baseline and a segment');
  if (series.grain !== undefined && !isPeriodGrain(series.grain))
    throw new RelationShapeError(`a contribution is measured along periods of time or a numeric axis, not along ${series.grain}`);
  const { syntax } = context;
  const axis = groupExpression(context, series);
  const side = `CASE WHEN ${groupSql(context, segment)} THEN 1 ELSE 0 END`;
  const value = claim.metric.kind === 'count' ? undefined : rowValue(context, claim.metric);
  const figures = value
    ? [`count(${value}) AS vn`, `${syntax.toDouble(`sum(${value})`)} AS vs`, `${syntax.toDouble(`sum((${value}) * (${value}))`)} AS vq`]
    : [];
  return [
    `SELECT ${axis.expression} AS p, ${side} AS s, count(*) AS nr${figures.length > 0 ? `, ${figures.join(', ')}` : ''}`,
    `FROM ${context.from}`,
    whereClause([
      ...filtersOf(context, claim),
      `${axis.expression} IS NOT NULL`,
      `(${axisRange(context, series, baseline)}) OR (${axisRange(context, series, window)})`,
    ]),
    `GROUP BY ${axis.expression}, ${side}`,
    'ORDER BY p, s',
  ].join('\n');
}

/** The measure's quartiles over every row, and the extreme rows (the segment) against the others. */
function outlierSql(context: Resolved, claim: Claim): string {
  const { syntax } = context;
  if (!claim.segment) throw new RelationShapeError('an outlier claim needs the threshold its rows pass');
  const value = rowValue(context, claim.metric) as string;
  const segment = groupSql(context, claim.segment);
  const other = notTrue(syntax, segment);
  return [
    `SELECT ${syntax.quantile(value, 0.25)} AS q1, ${syntax.median(value)} AS q2, ${syntax.quantile(value, 0.75)} AS q3,`,
    `       ${syntax.toDouble(`min(${value})`)} AS lo, count(${value}) AS vn, ${syntax.toDouble(`sum(${value})`)} AS vs,`,
    `       count(${when(segment, '1')}) AS segment_rows, ${syntax.toDouble(`avg(${when(segment, value)})`)} AS segment_mean,`,
    `       ${syntax.toDouble(`sum(${when(segment, value)})`)} AS segment_sum,`,
    `       count(${when(other, value)}) AS comparison_n, ${syntax.median(when(other, value))} AS comparison_median`,
    `FROM ${context.from}`,
    whereClause(filtersOf(context, claim)),
  ]
    .join('\n')
    .trim();
}

/** One statement that recounts the claim, or why it cannot be recounted. */
export function buildClaimSql(claim: Claim, tables: readonly TableSchema[], syntax: SqlSyntax): ClaimSql {
  try {
    const context: Resolved = buildRelation(syntax, claim.metric.table, claim.derived ?? [], tables);
    switch (claim.kind) {
      case 'difference':
      case 'share':
        if (!claim.segment) throw new RelationShapeError(`a ${claim.kind} claim needs a segment`);
        return { ok: true, sql: sidesSql(context, claim), shape: 'sides' };
      case 'trend':
      case 'shift':
        return { ok: true, sql: seriesSql(context, claim), shape: 'series' };
      case 'correlation':
        return { ok: true, sql: correlationSql(context, claim), shape: 'correlation' };
      case 'contribution':
        return { ok: true, sql: contributionSql(context, claim), shape: 'contribution' };
      case 'outlier':
        return { ok: true, sql: outlierSql(context, claim), shape: 'outlier' };
    }
  } catch (error) {
    if (error instanceof RelationShapeError || error instanceof RangeError) return { ok: false, reason: error.message };
    throw error;
  }
}
