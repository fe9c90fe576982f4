/**
 * The drivers of a change: which value of a grouping accounts for most of a metric's rise or fall
 * between the last complete period of the table's time axis and the period before it. One statement per
 * grouping reads, per period and group, the rows and every measure's count, sum and sum of squares; the
 * whole is the sum over groups (rows with no value included). For each metric — rows, additive totals,
 * rates and means — each group's part of the change is measured (`breakDownChange`), and a group is a
 * driver when the whole changed (its own test), its share of the total moved the same way (a rise: its
 * share grew, so its part of the rise is larger than its size would give; the share-change z), and its
 * part is at least a quarter of the change. Both tests must hold: the p-value recorded for the run's
 * correction is the larger of the two (an intersection–union test).
 */
import type { Claim, ClaimMetric, ClaimScalar } from '../../../domain/index.js';
import type { Row } from '../../../warehouse/port.js';
import type { SqlSyntax } from '../../../warehouse/sql-syntax/index.js';
import { type ChangeMetric, type ChangePeriod, type PeriodSums, breakDownChange } from '../../statistics/change.js';
import { type PeriodGrain, isPeriodGrain, nextPeriodStart, periodStart, previousPeriodStart } from '../../statistics/periods.js';
import { type FinderOutput, emptyOutput, recordTest, unit } from '../candidate.js';
import { isBinningOf } from './segments.js';
import { type Grouping, groupExpression, groupingKey, segmentFor } from '../groupings.js';
import { type MeasureSpec, claimMetricOf, measureColumns, valueExpression } from '../measures.js';
import { type MiningTable, columnOf } from '../mining-table.js';
import type { MiningQueryRunner } from '../query-runner.js';

/** Periods the axis needs: a last period, the one before, and enough history to tell a partial last period. */
const MIN_DRIVER_PERIODS = 3;
/** A last period with fewer rows than this share of the median period is partial: the one before is compared instead. */
const PARTIAL_PERIOD_SHARE = 0.5;
/**
 * A driver accounts for at least this share of the change, and at most all of it: a group "behind 213% of
 * the fall" says the others moved the other way — offsetting moves, not one driver.
 */
const MIN_SHARE_OF_CHANGE = 0.25;
const MAX_SHARE_OF_CHANGE = 1;
/** The whole must change by at least this share of its level to have drivers worth naming. */
const MIN_RELATIVE_CHANGE = 0.02;
/** Periods the reporting grain should give at least: the last, the one before, and history to tell a partial last one. */
const MIN_REPORTING_PERIODS = 4;
/** Approximate days per period of each grain, coarsest first. */
const GRAIN_DAYS: ReadonlyArray<[PeriodGrain, number]> = [
  ['year', 365.25],
  ['quarter', 91.31],
  ['month', 30.44],
  ['week', 7],
  ['day', 1],
  ['hour', 1 / 24],
];

/**
 * The grain changes are reported at: the coarsest calendar grain that still gives a few periods over the
 * axis' span (months over half a year of weeks, years over a decade of days) — what a person compares
 * ("June against May"), not the finest cut the time-series finder tests.
 */
export function reportingGrain(grain: PeriodGrain, periods: number): PeriodGrain {
  const days = periods * (GRAIN_DAYS.find(([name]) => name === grain)?.[1] ?? 1);
  const finest = GRAIN_DAYS.findIndex(([name]) => name === grain);
  for (const [index, [name, length]] of GRAIN_DAYS.entries()) if (index <= finest && days / length >= MIN_REPORTING_PERIODS) return name;
  return grain;
}

/** Measures read per grouping statement (count included apart). */
const MAX_DRIVER_MEASURES = 6;

export interface DriverContext {
  syntax: SqlSyntax;
  runner: MiningQueryRunner;
  table: MiningTable;
  minSupport: number;
}

interface DriverMetric {
  metric: ClaimMetric;
  change: ChangeMetric;
  rate: boolean;
  columns: string[];
  label: string;
  /** Index of its value in the statement (undefined: the row count). */
  index?: number | undefined;
}

function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

function metricsOf(table: MiningTable, measures: readonly MeasureSpec[]): DriverMetric[] {
  const metrics: DriverMetric[] = [
    {
      metric: { table: table.qualified, filters: [], kind: 'count', label: table.noun },
      change: 'count',
      rate: false,
      columns: [],
      label: table.noun,
    },
  ];
  measures.slice(0, MAX_DRIVER_MEASURES).forEach((measure, index) => {
    const columns = measureColumns(measure);
    const additive = measure.kind === 'mean' && columnOf(table, measure.column)?.additive === true;
    if (additive)
      metrics.push({
        metric: { table: table.qualified, filters: [], kind: 'sum', column: measure.column, label: `total ${measure.label}` },
        change: 'sum',
        rate: false,
        columns,
        label: `total ${measure.label}`,
        index,
      });
    else
      metrics.push({
        metric: claimMetricOf(table, measure),
        change: 'average',
        rate: measure.kind === 'rate',
        columns,
        label: measure.label,
        index,
      });
  });
  return metrics;
}

function sumsOf(row: Row, metric: DriverMetric): PeriodSums {
  const rows = num(row.nr);
  if (metric.index === undefined) return { rows, n: rows, sum: rows, squares: rows };
  const at = metric.index;
  const value = (key: string) => {
    const read = num(row[`${key}${at}`]);
    return Number.isFinite(read) ? read : 0;
  };
  return { rows, n: value('vn'), sum: value('vs'), squares: value('vq') };
}

function add(left: PeriodSums, right: PeriodSums): PeriodSums {
  return { rows: left.rows + right.rows, n: left.n + right.n, sum: left.sum + right.sum, squares: left.squares + right.squares };
}

const ZERO: PeriodSums = { rows: 0, n: 0, sum: 0, squares: 0 };

/** The two periods compared, as keys and as the claim's windows; undefined when they are not adjacent periods. */
function windowsOf(
  periods: ReadonlyMap<string | number, number>,
  grain: PeriodGrain | undefined,
):
  | {
      window: { from: ClaimScalar; to: ClaimScalar };
      baseline: { from: ClaimScalar; to: ClaimScalar };
      keys: [string | number, string | number];
    }
  | undefined {
  const keys = [...periods.keys()].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  if (keys.length < MIN_DRIVER_PERIODS) return undefined;
  const counts = keys.map((key) => periods.get(key) ?? 0).sort((a, b) => a - b);
  const median = counts[Math.floor(counts.length / 2)] as number;
  let last = keys.length - 1;
  if ((periods.get(keys[last] as string | number) ?? 0) < PARTIAL_PERIOD_SHARE * median) last--;
  if (last < 1) return undefined;
  const after = keys[last] as string | number;
  const before = keys[last - 1] as string | number;
  if (grain) {
    if (typeof after !== 'string' || previousPeriodStart(after, grain) !== before) return undefined;
    return { window: { from: after, to: nextPeriodStart(after, grain) }, baseline: { from: before, to: after }, keys: [before, after] };
  }
  if (typeof after !== 'number' || before !== after - 1) return undefined;
  return { window: { from: after, to: after + 1 }, baseline: { from: before, to: after }, keys: [before, after] };
}

/** A group's values of one measure over every period read: how many, the smallest and the largest. */
function rangeOf(rows: readonly Row[], value: unknown, index: number): { n: number; min?: number; max?: number } {
  let n = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    if (!(row.g === value || String(row.g) === String(value))) continue;
    const count = num(row[`vn${index}`]);
    if (!(count > 0)) continue;
    n += count;
    min = Math.min(min, num(row[`vlo${index}`]));
    max = Math.max(max, num(row[`vhi${index}`]));
  }
  return n > 0 && Number.isFinite(min) && Number.isFinite(max) ? { n, min, max } : { n };
}

export async function mineDrivers(
  context: DriverContext,
  measures: readonly MeasureSpec[],
  groupings: readonly Grouping[],
): Promise<FinderOutput> {
  const { syntax, runner, table, minSupport } = context;
  const output = emptyOutput();
  const axis = table.axis;
  if (!axis || axis.periods < MIN_DRIVER_PERIODS) return output;
  if (axis.grain !== undefined && !isPeriodGrain(axis.grain)) return output;
  const grain = axis.grain ? reportingGrain(axis.grain as PeriodGrain, axis.periods) : undefined;
  const axisId = table.expr(axis.column);
  const period = grain ? syntax.truncate(axisId, grain) : axisId;
  // a count or a total read on a sample is the sample's, not the table's: only averages are compared there
  const metrics = metricsOf(table, measures).filter((metric) => !table.sampleRows || metric.change === 'average');
  const figures = metrics.flatMap((metric) => {
    if (metric.index === undefined) return [];
    const value = valueExpression(syntax, table, measures[metric.index] as MeasureSpec);
    const at = metric.index;
    return [
      `count(${value}) AS vn${at}`,
      `${syntax.toDouble(`sum(${value})`)} AS vs${at}`,
      `${syntax.toDouble(`sum((${value}) * (${value}))`)} AS vq${at}`,
      `${syntax.toDouble(`min(${value})`)} AS vlo${at}`,
      `${syntax.toDouble(`max(${value})`)} AS vhi${at}`,
    ];
  });
  for (const grouping of groupings) {
    // calendar positions (a month of the year, an hour) cut every period alike: they are no group of the records
    if (grouping.extracted || grouping.calendar !== undefined || grouping.column === axis.column) continue;
    const values = (grouping.source.top ?? []).filter((item) => item.value !== null);
    if (values.length < 2) continue;
    const group = groupExpression(syntax, table, grouping);
    const rows = await runner.run(
      `drivers ${table.qualified} by ${axis.column} per ${groupingKey(grouping)}`,
      `SELECT ${period} AS p, ${group} AS g, count(*) AS nr${figures.length > 0 ? `, ${figures.join(', ')}` : ''} FROM ${table.from} WHERE ${axisId} IS NOT NULL GROUP BY ${period}, ${group} ORDER BY p, g`,
    );
    if (!rows) continue;
    const keyOf = (value: unknown): string | number | undefined => {
      if (value === null || value === undefined) return undefined;
      if (grain) return periodStart(String(value), grain);
      const read = num(value);
      return Number.isFinite(read) ? read : undefined;
    };
    const perPeriod = new Map<string | number, number>();
    for (const row of rows) {
      const key = keyOf(row.p);
      if (key !== undefined) perPeriod.set(key, (perPeriod.get(key) ?? 0) + num(row.nr));
    }
    const windows = windowsOf(perPeriod, grain);
    if (!windows) continue;
    const [beforeKey, afterKey] = windows.keys;
    const inPeriod = (key: string | number) => rows.filter((row) => keyOf(row.p) === key);
    const before = inPeriod(beforeKey);
    const after = inPeriod(afterKey);
    for (const metric of metrics) {
      // a measure that is its own grouping, or a grouping that is a binning of it (status "hurricane" is wind ≥ 64 kt), says nothing
      if (metric.columns.includes(grouping.column)) continue;
      if (metric.index !== undefined && isBinningOf(values.map((item) => rangeOf(rows, item.value, metric.index as number)))) continue;
      const whole = (periodRows: readonly Row[]) => periodRows.reduce((sum, row) => add(sum, sumsOf(row, metric)), ZERO);
      for (const item of values) {
        const mine = (periodRows: readonly Row[]) =>
          periodRows
            .filter((row) => row.g === item.value || String(row.g) === String(item.value))
            .reduce((sum, row) => add(sum, sumsOf(row, metric)), ZERO);
        const baselinePeriod: ChangePeriod = { key: beforeKey, all: whole(before), segment: mine(before) };
        const windowPeriod: ChangePeriod = { key: afterKey, all: whole(after), segment: mine(after) };
        const breakdown = breakDownChange(
          metric.change,
          { baseline: [baselinePeriod], window: [windowPeriod], baselinePeriods: 1, windowPeriods: 1 },
          { minSupport, rate: metric.rate },
        );
        if (!breakdown?.shareTest || !breakdown.changeTest) continue;
        const columns = [grouping.column, ...metric.columns];
        const at = recordTest(output, Math.max(breakdown.shareTest.p_value, breakdown.changeTest.p_value), columns);
        const { change, contribution, baselineLevel } = breakdown;
        const direction = Math.sign(change);
        if (direction === 0 || Math.sign(contribution) !== direction || Math.sign(breakdown.shareTest.statistic) !== direction) continue;
        if (breakdown.segmentRows < minSupport) continue;
        const shareOfChange = contribution / change;
        const relative = baselineLevel !== 0 ? Math.abs(change / baselineLevel) : Number.POSITIVE_INFINITY;
        if (shareOfChange < MIN_SHARE_OF_CHANGE || shareOfChange > MAX_SHARE_OF_CHANGE || relative < MIN_RELATIVE_CHANGE) continue;
        // how much more of the change the group carries than its size would give
        const excess = shareOfChange - (Number.isFinite(breakdown.baselineShare) ? breakdown.baselineShare : 0);
        const claim: Claim = {
          kind: 'contribution',
          metric: metric.metric,
          segment: segmentFor(grouping, item.value),
          comparison: { kind: 'rest' },
          series: { column: axis.column, label: axis.label, ...(grain ? { grain } : {}) },
          window: windows.window,
          baseline: windows.baseline,
          value: contribution,
          comparison_value: change,
          direction: direction > 0 ? 'higher' : 'lower',
          test: {
            name: 'share_change_z',
            statistic: breakdown.shareTest.statistic,
            p_value: breakdown.shareTest.p_value,
          },
          n: { segment: breakdown.segmentRows, comparison: breakdown.rows - breakdown.segmentRows },
          ...(table.sampleRows ? { approximate: true } : {}),
        } as Claim;
        output.candidates.push({
          claim,
          effect: { name: 'share_of_change', value: shareOfChange },
          coverage: unit(breakdown.segmentRows / Math.max(1, breakdown.rows)),
          strength: unit(excess / 0.6) * unit(0.5 + relative),
          columns,
          subject: `${grouping.label} ${String(item.value)} ${metric.label} change`,
          test: at,
        });
      }
    }
  }
  return output;
}
