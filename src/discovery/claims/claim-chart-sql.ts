/**
 * The verifier's SQL for a claim's chart (src/domain/claim-chart.ts), built from the claim like its
 * recount (claim-sql.ts): the same relation, filters and per-row values, spelled by the warehouse's
 * `SqlSyntax`. One bounded statement per claim:
 *
 * - `groups` (`difference`, `share`): per value of the segment's column (its period or calendar
 *   position with a grain), the rows and the per-row values' count and sum (a median per group, distinct
 *   values per group), largest groups first;
 * - `ranges` (a segment that is a numeric or date range): the same per side of the range — below it, in
 *   it, above it — and for rows with no value;
 * - `contribution`: per period from the baseline's start to the window's end, the metric on every row
 *   and on the segment;
 * - `bins` (`correlation`): the measure's sum per twelfth of the other measure's range;
 * - `extremes` (`outlier`): the flagged rows' values, most extreme first.
 *
 * A `trend` or `shift` needs no statement of its own: its recount already holds the metric per period.
 */
import type { Claim, ClaimGroup, ClaimScalar } from '../../domain/index.js';
import type { TableSchema } from '../../warehouse/port.js';
import type { SqlSyntax } from '../../warehouse/sql-syntax/index.js';
import { isPeriodGrain } from '../statistics/periods.js';
import { filtersOf, groupExpression, groupSql, groupValue, rowValue, whereClause } from './claim-sql.js';
import { type Relation, RelationShapeError, buildRelation } from './relation.js';

export type ChartSqlShape = 'groups' | 'ranges' | 'contribution' | 'bins' | 'extremes';

export type ClaimChartSql = { ok: true; sql: string; shape: ChartSqlShape } | { ok: false; reason: string };

/** Equal-width bins of a correlation's x: enough to show a shape, few enough to read. */
export const CORRELATION_BINS = 12;
/** Flagged rows an outlier chart draws, most extreme first. */
export const OUTLIER_ROWS_SHOWN = 20;
/** Groups a chart statement may return; a column with more values is too fine to chart by value. */
export const CHART_MAX_GROUPS = 5_000;

/** The aggregates of one group of rows: rows, and what the metric needs to be measured and pooled. */
function groupAggregates(context: Relation, claim: Claim, predicate?: string): string[] {
  const { syntax } = context;
  const only = (value: string) => (predicate ? `CASE WHEN ${predicate} THEN ${value} END` : value);
  const parts = [predicate ? `count(${only('1')}) AS n` : 'count(*) AS n'];
  const metric = claim.metric;
  if (metric.kind === 'distinct_count') {
    parts.push(`count(DISTINCT ${only(context.column(metric.column, 'column'))}) AS vd`);
    return parts;
  }
  const value = rowValue(context, metric);
  if (value === undefined) return parts;
  parts.push(`count(${only(value)}) AS vn`, `${syntax.toDouble(`sum(${only(value)})`)} AS vs`);
  if (metric.kind === 'median' || metric.kind === 'duration_median') parts.push(`${syntax.median(only(value))} AS vm`);
  return parts;
}

function isRange(group: ClaimGroup): boolean {
  return group.value === undefined && group.values === undefined && group.missing !== true;
}

function groupsSql(context: Relation, claim: Claim, segment: ClaimGroup): string {
  const { expression } = groupExpression(context, segment);
  return [
    `SELECT ${expression} AS g, ${groupAggregates(context, claim).join(', ')}`,
    `FROM ${context.from}`,
    whereClause(filtersOf(context, claim)),
    `GROUP BY ${expression}`,
    'ORDER BY n DESC, g',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** A range segment on a plain column: the rows below it, in it, above it, and with no value. */
function rangesSql(context: Relation, claim: Claim, segment: ClaimGroup): string {
  const { expression, temporal } = groupExpression(context, segment);
  const value = (scalar: ClaimScalar) => groupValue(context, scalar, temporal);
  const side = [
    'CASE',
    `WHEN ${expression} IS NULL THEN 'missing'`,
    `WHEN ${groupSql(context, segment)} THEN 'segment'`,
    segment.from !== undefined ? `WHEN ${expression} < ${value(segment.from)} THEN 'below'` : '',
    "ELSE 'above' END",
  ]
    .filter((part) => part !== '')
    .join(' ');
  return [
    `SELECT ${side} AS g, ${groupAggregates(context, claim).join(', ')}`,
    `FROM ${context.from}`,
    whereClause(filtersOf(context, claim)),
    `GROUP BY ${side}`,
  ]
    .filter((line) => line !== '')
    .join('\n');
}

function earlier(left: ClaimScalar, right: ClaimScalar): ClaimScalar {
  return typeof left === 'number' && typeof right === 'number' ? Math.min(left, right) : String(left) <= String(right) ? left : right;
}

function later(left: ClaimScalar, right: ClaimScalar): ClaimScalar {
  return typeof left === 'number' && typeof right === 'number' ? Math.max(left, right) : String(left) >= String(right) ? left : right;
}

/** Per period across both windows: the metric on every row (v) and on the segment (sv), with their rows. */
function contributionSql(context: Relation, claim: Claim): string {
  const { series, window, baseline, segment } = claim;
  if (!series || !window || !baseline || !segment)
    throw new RelationShapeError('a contribution claim needs a series, a window, a baseline and a segment');
  const { syntax } = context;
  const axis = groupExpression(context, series);
  const inSegment = groupSql(context, segment);
  const value = rowValue(context, claim.metric);
  const aggregate = (predicate?: string) => {
    const only = (expression: string) => (predicate ? `CASE WHEN ${predicate} THEN ${expression} END` : expression);
    if (claim.metric.kind === 'count') return predicate ? `count(${only('1')})` : 'count(*)';
    if (value === undefined) throw new RelationShapeError(`a contribution of ${claim.metric.kind} has no per-row value`);
    return syntax.toDouble(`${claim.metric.kind === 'sum' ? 'sum' : 'avg'}(${only(value)})`);
  };
  const from = earlier(baseline.from, window.from);
  const to = later(baseline.to, window.to);
  return [
    `SELECT ${axis.expression} AS p, ${aggregate()} AS v, ${aggregate(inSegment)} AS sv, count(*) AS n, count(CASE WHEN ${inSegment} THEN 1 END) AS sn`,
    `FROM ${context.from}`,
    whereClause([
      ...filtersOf(context, claim),
      `${axis.expression} IS NOT NULL`,
      `${axis.expression} >= ${groupValue(context, from, axis.temporal)}`,
      `${axis.expression} < ${groupValue(context, to, axis.temporal)}`,
    ]),
    `GROUP BY ${axis.expression}`,
    'ORDER BY p',
  ].join('\n');
}

/** The measure (y) summed per twelfth of x's range, with each bin's x sum, on the claim's rows. */
function binsSql(context: Relation, claim: Claim): string {
  const { syntax } = context;
  const y = rowValue(context, claim.metric);
  if (!y || !claim.x) throw new RelationShapeError('a correlation needs two measures');
  const x = syntax.toDouble(context.column(claim.x.column, 'x column'));
  const conditions = [...filtersOf(context, claim), ...(claim.segment ? [groupSql(context, claim.segment)] : [])];
  const pairs = [...conditions, `${y} IS NOT NULL`, `${x} IS NOT NULL`];
  const bin = `CASE WHEN bounds.hi > bounds.lo THEN floor((${x} - bounds.lo) / (bounds.hi - bounds.lo) * ${CORRELATION_BINS}) ELSE 0 END`;
  return [
    `WITH bounds AS (SELECT ${syntax.toDouble(`min(${x})`)} AS lo, ${syntax.toDouble(`max(${x})`)} AS hi FROM ${context.from} ${whereClause(pairs)})`,
    `SELECT ${bin} AS b, count(*) AS n, ${syntax.toDouble(`sum(${y})`)} AS ys, ${syntax.toDouble(`sum(${x})`)} AS xs, ${syntax.toDouble(`min(${x})`)} AS xlo, ${syntax.toDouble(`max(${x})`)} AS xhi`,
    `FROM ${context.from}`,
    'CROSS JOIN bounds',
    whereClause(pairs),
    `GROUP BY ${bin}`,
    'ORDER BY b',
  ].join('\n');
}

/** The flagged rows' values, most extreme first (the caller fetches only the first few). */
function extremesSql(context: Relation, claim: Claim): string {
  const segment = claim.segment;
  const value = rowValue(context, claim.metric);
  if (!segment || !value) throw new RelationShapeError('an outlier claim needs the threshold its rows pass');
  const high = segment.from !== undefined;
  return [
    `SELECT ${value} AS v`,
    `FROM ${context.from}`,
    whereClause([...filtersOf(context, claim), groupSql(context, segment), `${value} IS NOT NULL`]),
    `ORDER BY v ${high ? 'DESC' : 'ASC'}`,
  ].join('\n');
}

/** The chart's statement for a claim, `undefined` when its recount's rows already are the chart (a trend, a shift), or why there is none. */
export function buildClaimChartSql(claim: Claim, tables: readonly TableSchema[], syntax: SqlSyntax): ClaimChartSql | undefined {
  if (claim.kind === 'trend' || claim.kind === 'shift') return undefined;
  try {
    const context = buildRelation(syntax, claim.metric.table, claim.derived ?? [], tables);
    switch (claim.kind) {
      case 'difference':
      case 'share': {
        const segment = claim.segment;
        if (!segment) return { ok: false, reason: `a ${claim.kind} claim names no segment to group by` };
        const plainRange = isRange(segment) && segment.grain === undefined;
        return plainRange
          ? { ok: true, sql: rangesSql(context, claim, segment), shape: 'ranges' }
          : { ok: true, sql: groupsSql(context, claim, segment), shape: 'groups' };
      }
      case 'contribution':
        if (claim.series?.grain !== undefined && !isPeriodGrain(claim.series.grain))
          return { ok: false, reason: `a contribution along ${claim.series.grain} has no periods to draw` };
        return { ok: true, sql: contributionSql(context, claim), shape: 'contribution' };
      case 'correlation':
        return { ok: true, sql: binsSql(context, claim), shape: 'bins' };
      case 'outlier':
        return { ok: true, sql: extremesSql(context, claim), shape: 'extremes' };
    }
  } catch (error) {
    if (error instanceof RelationShapeError || error instanceof RangeError) return { ok: false, reason: error.message };
    throw error;
  }
}
