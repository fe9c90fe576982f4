/**
 * Time: one grouped statement reads every metric per period of the table's time axis (rows, each
 * measure's mean, additive measures' totals, distinct entities), and one per grouping reads the same
 * per segment and period. Each series is tested for a trend (least-squares slope), a shift of level
 * (the best split, Bonferroni-corrected) and a window that stands out (a spike or a dip, corrected for
 * the windows tried). Partial first and last periods are left out, and the claim's series range says so.
 */
import type { Claim, ClaimGroup, ClaimMetric } from '../../../domain/index.js';
import type { Row } from '../../../warehouse/port.js';
import type { SqlSyntax } from '../../../warehouse/sql-syntax/index.js';
import { type PeriodGrain, nextPeriodStart, periodPosition, periodStart } from '../../statistics/periods.js';
import { type SeriesPoint, type WindowFinding, bestShift, bestWindow, trendOf } from '../../statistics/series.js';
import type { TestResult } from '../../statistics/index.js';
import { type Candidate, type FinderOutput, emptyOutput, recordTest, unit } from '../candidate.js';
import { type Grouping, groupExpression, groupingKey, segmentFor } from '../groupings.js';
import { type MeasureSpec, claimMetricOf, measureColumns, valueExpression } from '../measures.js';
import { type MiningTable, type TimeAxis, columnOf, columnsWithRole } from '../mining-table.js';
import type { MiningQueryRunner } from '../query-runner.js';

/** Fewer periods than this and a series has no trend or shift worth testing. */
export const MIN_SERIES_PERIODS = 6;
/** A first or last period with fewer rows than this share of the median period is partial: left out. */
const PARTIAL_PERIOD_SHARE = 0.5;
/** Segments followed over time per grouping (the largest). */
const SEGMENT_SERIES = 8;
/** Each side of a shift holds at least this share of the periods. */
const MIN_SHIFT_SIDE_SHARE = 0.15;
/** A window that stands out covers at most this share of the periods. */
const MAX_WINDOW_SHARE = 0.25;

/** A metric measured per period. */
interface SeriesMetric {
  key: string;
  metric: ClaimMetric;
  columns: string[];
  label: string;
  /** SQL aggregate over a period's rows. */
  aggregate: (syntax: SqlSyntax) => string;
  /** Totals and counts: partial periods distort them. */
  additive: boolean;
  /** SQL counting the rows an average is over (a rate on payers counts payers): what a period's support is. */
  counted?: (syntax: SqlSyntax) => string;
}

/** The select list of a series statement: each metric as `v{i}`, and the rows behind each average as `c{i}`. */
function seriesSelect(syntax: SqlSyntax, metrics: readonly SeriesMetric[]): string {
  return metrics
    .flatMap((metric, index) => [
      `${metric.aggregate(syntax)} AS v${index}`,
      ...(metric.counted ? [`${metric.counted(syntax)} AS c${index}`] : []),
    ])
    .join(', ');
}

/** A total's name: "total revenue", and a total already named so kept as it is. */
function totalOf(label: string): string {
  return /^total\b/i.test(label) ? label : `total ${label}`;
}

function metricsOf(table: MiningTable, measures: readonly MeasureSpec[], withEntities: boolean): SeriesMetric[] {
  const base = { table: table.qualified, filters: [] };
  const metrics: SeriesMetric[] = [
    {
      key: 'rows',
      metric: { ...base, kind: 'count', label: table.noun },
      columns: [],
      label: table.noun,
      aggregate: () => 'count(*)',
      additive: true,
    },
  ];
  if (withEntities) {
    const entity = columnsWithRole(table, 'entity').sort((left, right) => right.nonNull - left.nonNull)[0];
    if (entity)
      metrics.push({
        key: `distinct:${entity.name}`,
        metric: { ...base, kind: 'distinct_count', column: entity.name, label: `distinct ${entity.label}` },
        columns: [entity.name],
        label: `distinct ${entity.label}`,
        aggregate: () => `count(DISTINCT ${table.expr(entity.name)})`,
        additive: true,
      });
  }
  for (const measure of measures) {
    metrics.push({
      key: `mean:${measureColumns(measure).join(',')}`,
      metric: claimMetricOf(table, measure),
      columns: measureColumns(measure),
      label: measure.label,
      aggregate: (syntax) => syntax.toDouble(`avg(${valueExpression(syntax, table, measure)})`),
      counted: (syntax) => `count(${valueExpression(syntax, table, measure)})`,
      additive: false,
    });
    const column = measure.kind === 'mean' ? columnOf(table, measure.column) : undefined;
    if (measure.kind === 'mean' && column?.additive)
      metrics.push({
        key: `sum:${measure.column}`,
        metric: { ...base, kind: 'sum', column: measure.column, label: totalOf(measure.label) },
        columns: [measure.column],
        label: totalOf(measure.label),
        aggregate: (syntax) => syntax.toDouble(`sum(${table.expr(measure.column)})`),
        additive: true,
      });
  }
  return metrics;
}

function periodExpression(syntax: SqlSyntax, table: MiningTable, axis: TimeAxis): string {
  const id = table.expr(axis.column);
  return axis.grain ? syntax.truncate(id, axis.grain) : id;
}

function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

interface PeriodRow {
  start: string | number;
  x: number;
  rows: number;
  values: number[];
  /** Per metric, the rows its average is over (the period's rows where a metric has no count of its own). */
  counts: number[];
}

function readPeriods(rows: readonly Row[], axis: TimeAxis, metrics: readonly SeriesMetric[]): PeriodRow[] {
  const periods: PeriodRow[] = [];
  for (const row of rows) {
    if (row.p === null || row.p === undefined) continue;
    const grain = axis.grain as PeriodGrain | undefined;
    const start = grain ? periodStart(String(row.p), grain) : num(row.p);
    const x = grain ? periodPosition(String(row.p), grain) : num(row.p);
    if (typeof start === 'number' && !Number.isFinite(start)) continue;
    if (!Number.isFinite(x)) continue;
    const rowCount = num(row.n);
    periods.push({
      start,
      x,
      rows: rowCount,
      values: metrics.map((_, index) => num(row[`v${index}`])),
      counts: metrics.map((metric, index) => (metric.counted ? num(row[`c${index}`]) : rowCount)),
    });
  }
  return periods.sort((left, right) => left.x - right.x);
}

/** Leaves out a first or last period far smaller than the median one (the data starts or ends inside it). */
function trimPartial(periods: readonly PeriodRow[]): PeriodRow[] {
  if (periods.length < 3) return [...periods];
  const sorted = periods.map((period) => period.rows).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  let first = 0;
  let last = periods.length - 1;
  if ((periods[first]?.rows ?? 0) < PARTIAL_PERIOD_SHARE * median) first++;
  if ((periods[last]?.rows ?? 0) < PARTIAL_PERIOD_SHARE * median) last--;
  return periods.slice(first, last + 1);
}

function endOf(start: string | number, axis: TimeAxis): string | number {
  return typeof start === 'number' ? start + 1 : nextPeriodStart(start, axis.grain as PeriodGrain);
}

export interface TimeContext {
  syntax: SqlSyntax;
  runner: MiningQueryRunner;
  table: MiningTable;
  minSupport: number;
}

function testOf(result: TestResult): NonNullable<Claim['test']> {
  return { name: result.test, statistic: result.statistic, p_value: result.p_value, ...(result.df ? { df: result.df } : {}) };
}

/** Periods averaged at each end of a trend to state where it starts and ends. */
export function trendEndPeriods(periods: number): number {
  return Math.max(1, Math.min(6, Math.round(periods / 5)));
}

/** A trend's levels at its start and end: the mean of its first and last few periods (fitted lines can end below zero). */
function trendEnds(points: readonly SeriesPoint[]): { start: number; end: number } {
  const k = trendEndPeriods(points.length);
  const mean = (values: readonly SeriesPoint[]) => values.reduce((sum, point) => sum + point.value, 0) / values.length;
  return { start: mean(points.slice(0, k)), end: mean(points.slice(-k)) };
}

/** Trend, shift and window candidates of one series. */
function analyseSeries(
  output: FinderOutput,
  context: TimeContext,
  axis: TimeAxis,
  metric: SeriesMetric,
  periods: readonly PeriodRow[],
  index: number,
  segment: ClaimGroup | undefined,
  segmentLabel: string,
  coverage: number,
): void {
  const { table, minSupport } = context;
  // an average is over the rows it counts (payers, for a rate on payers): a period with too few is noise
  const kept = (
    metric.additive
      ? trimPartial(periods)
      : periods.filter((period) => (period.counts[index] ?? 0) >= Math.max(3, Math.ceil(minSupport / 3)))
  ).filter((period) => Number.isFinite(period.values[index]));
  const points: SeriesPoint[] = kept.map((period) => ({
    x: period.x,
    label: String(period.start),
    value: period.values[index] as number,
    rows: period.counts[index] ?? period.rows,
  }));
  if (points.length < MIN_SERIES_PERIODS) return;
  const first = kept[0] as PeriodRow;
  const last = kept.at(-1) as PeriodRow;
  const series = {
    column: axis.column,
    label: axis.label,
    ...(axis.grain ? { grain: axis.grain } : {}),
    from: first.start,
    to: endOf(last.start, axis),
  };
  const level = Math.max(1e-9, Math.abs(points.reduce((sum, point) => sum + point.value, 0) / points.length));
  const base = {
    metric: metric.metric,
    ...(segment ? { segment } : {}),
    series,
    ...(table.sampleRows ? { approximate: true } : {}),
  };
  const subject = `${metric.label} over ${axis.label}${segmentLabel ? ` for ${segmentLabel}` : ''}`;
  const columns = [axis.column, ...metric.columns, ...(segment ? [segment.column] : [])];
  const record = (test: TestResult) => recordTest(output, test.p_value, metric.columns.length > 0 ? metric.columns : [axis.column]);

  const fit = trendOf(points);
  if (fit) {
    const at = record(fit.test);
    const { start, end } = trendEnds(points);
    const change = (end - start) / level;
    const candidate: Candidate = {
      claim: {
        kind: 'trend',
        ...base,
        value: end,
        comparison_value: start,
        direction: fit.slope > 0 ? 'higher' : 'lower',
        test: testOf(fit.test),
        n: { segment: points.length },
        fit: {
          slope: fit.slope,
          r2: fit.r2,
          periods: points.length,
          first_period: String(first.start),
          last_period: String(last.start),
        },
      },
      effect: { name: 'relative_change', value: change },
      coverage,
      strength: unit(Math.abs(change) / 1.0) * Math.sqrt(fit.r2),
      columns,
      subject,
      test: at,
    };
    output.candidates.push(candidate);
  }

  // a reversal: from the series' lowest (highest) point, a trend the other way — a comeback after a low
  for (const turn of ['low', 'high'] as const) {
    const values = points.map((point) => point.value);
    const extreme = turn === 'low' ? Math.min(...values) : Math.max(...values);
    const at = values.indexOf(extreme);
    const tail = points.slice(at);
    if (at < MIN_SERIES_PERIODS / 2 || tail.length < MIN_SERIES_PERIODS) continue;
    const tailFit = trendOf(tail);
    if (!tailFit || (turn === 'low') !== tailFit.slope > 0) continue;
    // the turning point was chosen by looking: correct for every point it could have been
    const corrected = { ...tailFit.test, p_value: Math.min(1, tailFit.test.p_value * Math.max(1, points.length - MIN_SERIES_PERIODS)) };
    const testAt = record(corrected);
    const turnPeriod = kept[at] as PeriodRow;
    const { start, end } = trendEnds(tail);
    const change = (end - start) / level;
    output.candidates.push({
      claim: {
        kind: 'trend',
        ...base,
        series: { ...series, from: turnPeriod.start },
        value: end,
        comparison_value: start,
        direction: tailFit.slope > 0 ? 'higher' : 'lower',
        test: testOf(corrected),
        n: { segment: tail.length },
        fit: {
          slope: tailFit.slope,
          r2: tailFit.r2,
          periods: tail.length,
          first_period: String(turnPeriod.start),
          last_period: String(last.start),
        },
      },
      effect: { name: 'relative_change', value: change },
      coverage,
      strength: unit(Math.abs(change) / 1.0) * Math.sqrt(tailFit.r2),
      columns,
      subject: `${subject} since its ${turn}`,
      test: testAt,
    });
  }

  const describe = (found: WindowFinding, baseline: 'before' | 'rest'): Candidate | undefined => {
    const at = record(found.test);
    const windowFirst = kept[found.first] as PeriodRow;
    const windowLast = kept[found.last] as PeriodRow;
    // a window is reported only with enough rows inside it, as any segment
    const inside = points.slice(found.first, found.last + 1).reduce((sum, point) => sum + point.rows, 0);
    if (inside < minSupport) return undefined;
    const level = found.inside.mean;
    const outside = found.outside.mean;
    if (!(Number.isFinite(level) && Number.isFinite(outside)) || level === outside) return undefined;
    const ratio = outside !== 0 && Math.sign(level) === Math.sign(outside) ? level / outside : undefined;
    const change = (level - outside) / Math.max(Math.abs(outside), Math.abs(level), 1e-9);
    return {
      claim: {
        kind: 'shift',
        ...base,
        window: { from: windowFirst.start, to: endOf(windowLast.start, axis) },
        ...(baseline === 'before' ? { baseline: { from: first.start, to: windowFirst.start } } : {}),
        value: level,
        comparison_value: outside,
        direction: level > outside ? 'higher' : 'lower',
        test: testOf(found.test),
        n: { segment: found.inside.n, comparison: found.outside.n },
      },
      effect: ratio !== undefined && ratio > 0 ? { name: 'ratio', value: ratio } : { name: 'relative_change', value: change },
      coverage,
      strength: ratio !== undefined && ratio > 0 ? unit(Math.abs(Math.log(ratio)) / Math.log(3)) : unit(Math.abs(change)),
      columns,
      subject,
      test: at,
    };
  };
  // a side of a few periods at the very start or end is an edge, not a change of level
  const shift = bestShift(points, Math.max(3, Math.ceil(points.length * MIN_SHIFT_SIDE_SHARE)));
  if (shift) {
    const candidate = describe(shift, 'before');
    if (candidate) output.candidates.push(candidate);
  }
  const window = bestWindow(points, Math.max(1, Math.floor(points.length * MAX_WINDOW_SHARE)));
  // a window that touches an end of the series is a shift, already tested above
  if (window && window.first > 0 && window.last < points.length - 1) {
    const candidate = describe(window, 'rest');
    if (candidate) output.candidates.push(candidate);
  }
}

export async function mineTimeSeries(
  context: TimeContext,
  measures: readonly MeasureSpec[],
  groupings: readonly Grouping[],
): Promise<FinderOutput> {
  const { syntax, runner, table } = context;
  const output = emptyOutput();
  const axis = table.axis;
  if (!axis || axis.periods < MIN_SERIES_PERIODS) return output;
  const period = periodExpression(syntax, table, axis);
  const axisId = table.expr(axis.column);
  const from = table.from;

  const metrics = metricsOf(table, measures, true);
  const select = seriesSelect(syntax, metrics);
  const rows = await runner.run(
    `series ${table.qualified} by ${axis.column}`,
    `SELECT ${period} AS p, count(*) AS n, ${select} FROM ${from} WHERE ${axisId} IS NOT NULL GROUP BY ${period} ORDER BY p`,
  );
  if (rows) {
    const periods = readPeriods(rows, axis, metrics);
    for (const [index, metric] of metrics.entries()) analyseSeries(output, context, axis, metric, periods, index, undefined, '', 1);
  }

  // per segment: rows and every measure, for the largest values of each plain grouping
  const segmentMetrics = metricsOf(table, measures, false);
  const segmentSelect = seriesSelect(syntax, segmentMetrics);
  for (const grouping of groupings) {
    if (grouping.extracted || grouping.column === axis.column) continue;
    const values = (grouping.source.top ?? []).slice(0, SEGMENT_SERIES).filter((item) => item.count >= context.minSupport);
    if (values.length < 2) continue;
    const group = groupExpression(syntax, table, grouping);
    const list = values.map((item) => syntax.literal(item.value)).join(', ');
    const segmentRows = await runner.run(
      `series ${table.qualified} by ${axis.column} per ${groupingKey(grouping)}`,
      `SELECT ${group} AS g, ${period} AS p, count(*) AS n, ${segmentSelect} FROM ${from} WHERE ${axisId} IS NOT NULL AND ${group} IN (${list}) GROUP BY ${group}, ${period} ORDER BY g, p`,
    );
    if (!segmentRows) continue;
    for (const item of values) {
      const mine = segmentRows.filter((row) => row.g === item.value || String(row.g) === String(item.value));
      const periods = readPeriods(mine, axis, segmentMetrics);
      const segment = segmentFor(grouping, item.value);
      for (const [index, metric] of segmentMetrics.entries())
        analyseSeries(
          output,
          context,
          axis,
          metric,
          periods,
          index,
          segment,
          `${grouping.label} ${String(item.value)}`,
          unit(item.count / table.rows),
        );
    }
  }
  return output;
}
