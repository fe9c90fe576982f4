/**
 * The drivers of a change: how much of a metric's change between two windows of a series one segment
 * accounts for, and whether that part is out of proportion to the segment's size — the same function for
 * the miner, which reads the sums from its own grouped statement, and for the verifier, which recounts
 * them from a claim.
 *
 * The change splits exactly over the segments. For a count or a total the level of a window is its total
 * per period, and a segment's part is its own total per period; for an average (a mean, a rate, a mean
 * duration) the level is the window's mean over its rows, and a segment's part is its sum over all the
 * window's rows (its rows' share times its mean). Either way the parts of all segments add up to the
 * change of the whole, mix and level together.
 *
 * A segment accounts for the change in proportion to its size exactly when its share of the total (of
 * rows, or of the values' sum) is the same in both windows; so the test of a driver is the test that its
 * share moved. The whole's change is tested too: a driver of a change that is not there is no finding.
 */
import { type Moments, type TestResult, compoundPoissonZ, poissonRateTest, shareChangeZ, twoProportionZ, welchT } from './tests.js';
import { windowContrast } from './series.js';

/** What a grouped statement reads of one side in one period: its rows and the per-row values' count, sum and sum of squares. */
export interface PeriodSums {
  rows: number;
  /** Rows with a value (all rows for a count). */
  n: number;
  sum: number;
  squares: number;
}

export interface ChangePeriod {
  key: string | number;
  /** Every row of the period. */
  all: PeriodSums;
  /** The segment's rows of the period. */
  segment: PeriodSums;
}

/** How the metric aggregates its rows: additive metrics compare totals per period, averaged ones means over rows. */
export type ChangeMetric = 'count' | 'sum' | 'average';

export interface ChangeWindows {
  baseline: readonly ChangePeriod[];
  window: readonly ChangePeriod[];
  /** Periods each window spans on the calendar (periods with no row count as zeros for an additive metric). */
  baselinePeriods: number;
  windowPeriods: number;
}

export interface ChangeBreakdown {
  /** The metric's level in each window. */
  baselineLevel: number;
  windowLevel: number;
  /** The whole's change (window − baseline) and the segment's part of it. */
  change: number;
  contribution: number;
  /** The segment's share of the level in the baseline: its part of the change if it grew like the rest. */
  baselineShare: number;
  /** Rows of the segment and of the whole, both windows together. */
  segmentRows: number;
  rows: number;
  /** The whole's change tested; the segment's share of the total tested between the windows. */
  changeTest?: TestResult | undefined;
  shareTest?: TestResult | undefined;
}

const EMPTY: PeriodSums = { rows: 0, n: 0, sum: 0, squares: 0 };

function add(left: PeriodSums, right: PeriodSums): PeriodSums {
  return { rows: left.rows + right.rows, n: left.n + right.n, sum: left.sum + right.sum, squares: left.squares + right.squares };
}

function total(periods: readonly ChangePeriod[], side: 'all' | 'segment'): PeriodSums {
  return periods.reduce((sum, period) => add(sum, period[side]), EMPTY);
}

function rest(all: PeriodSums, segment: PeriodSums): PeriodSums {
  return { rows: all.rows - segment.rows, n: all.n - segment.n, sum: all.sum - segment.sum, squares: all.squares - segment.squares };
}

function moments(sums: PeriodSums): Moments {
  const mean = sums.n > 0 ? sums.sum / sums.n : Number.NaN;
  const variance = sums.n > 1 ? Math.max(0, (sums.squares - sums.n * mean * mean) / (sums.n - 1)) : 0;
  return { n: sums.n, mean, variance };
}

/** Below this many rows a period's mean is too thin to stand for the period (the series rule). */
export function averagedPeriodFloor(minSupport: number): number {
  return Math.max(3, Math.ceil(minSupport / 3));
}

/** The whole's value in each period of a window: its total (zeros for periods with no row), or its mean. */
function perPeriodValues(metric: ChangeMetric, periods: readonly ChangePeriod[], span: number, floor: number): number[] {
  if (metric === 'average') return periods.filter((period) => period.all.n >= floor).map((period) => period.all.sum / period.all.n);
  const values = periods.map((period) => period.all.sum);
  while (values.length < span) values.push(0);
  return values;
}

/** The segment's share of the total in each period that has a positive total. */
function perPeriodShares(periods: readonly ChangePeriod[]): number[] {
  return periods.filter((period) => period.all.sum > 0).map((period) => period.segment.sum / period.all.sum);
}

/** The test of the whole's change between two single windows, from the rows. */
function rowLevelChange(
  metric: ChangeMetric,
  before: PeriodSums,
  after: PeriodSums,
  spans: [number, number],
  rate: boolean,
): TestResult | undefined {
  const [baselineSpan, windowSpan] = spans;
  switch (metric) {
    case 'count':
      return poissonRateTest(after.rows, windowSpan, before.rows, baselineSpan);
    case 'sum':
      return compoundPoissonZ(
        { sum: after.sum / windowSpan, squares: after.squares / windowSpan ** 2 },
        { sum: before.sum / baselineSpan, squares: before.squares / baselineSpan ** 2 },
      );
    case 'average':
      return rate
        ? twoProportionZ(Math.round(after.sum), after.n, Math.round(before.sum), before.n)
        : welchT(moments(after), moments(before));
  }
}

/**
 * The segment's part of the change between the windows, and the two tests. With two or more baseline
 * periods both tests compare per-period values (the whole's level, the segment's share) with Welch's t —
 * a one-period window against the baseline's prediction interval — so period-to-period variation counts;
 * with one baseline period they compare the rows: a count by the Poisson rate test, a total by the z of two
 * compound sums, a mean by Welch's t, a rate by the two-proportion z, and the share by `shareChangeZ`.
 */
export function breakDownChange(
  metric: ChangeMetric,
  windows: ChangeWindows,
  options: { minSupport: number; rate?: boolean },
): ChangeBreakdown | undefined {
  const { baseline, window, baselinePeriods, windowPeriods } = windows;
  if (baselinePeriods < 1 || windowPeriods < 1) return undefined;
  const before = { all: total(baseline, 'all'), segment: total(baseline, 'segment') };
  const after = { all: total(window, 'all'), segment: total(window, 'segment') };
  if (before.all.n === 0 || after.all.n === 0) return undefined;
  const additive = metric !== 'average';
  const level = (sums: PeriodSums, span: number) => (additive ? sums.sum / span : sums.sum / sums.n);
  const part = (side: { all: PeriodSums; segment: PeriodSums }, span: number) =>
    additive ? side.segment.sum / span : side.segment.sum / side.all.n;
  const baselineLevel = level(before.all, baselinePeriods);
  const windowLevel = level(after.all, windowPeriods);
  const contribution = part(after, windowPeriods) - part(before, baselinePeriods);
  const floor = averagedPeriodFloor(options.minSupport);
  let changeTest: TestResult | undefined;
  let shareTest: TestResult | undefined;
  if (baselinePeriods >= 2) {
    changeTest = windowContrast(
      perPeriodValues(metric, window, windowPeriods, floor),
      perPeriodValues(metric, baseline, baselinePeriods, floor),
    )?.test;
    shareTest = windowContrast(perPeriodShares(window), perPeriodShares(baseline))?.test;
  } else {
    changeTest = rowLevelChange(metric, before.all, after.all, [baselinePeriods, windowPeriods], options.rate === true);
    shareTest = shareChangeZ(
      { segment: before.segment, rest: rest(before.all, before.segment) },
      { segment: after.segment, rest: rest(after.all, after.segment) },
    );
  }
  return {
    baselineLevel,
    windowLevel,
    change: windowLevel - baselineLevel,
    contribution,
    baselineShare: before.all.sum !== 0 ? before.segment.sum / before.all.sum : Number.NaN,
    segmentRows: before.segment.rows + after.segment.rows,
    rows: before.all.rows + after.all.rows,
    changeTest,
    shareTest,
  };
}

/** The change metric a claim's metric kind aggregates by. */
export function changeMetricOf(kind: string): ChangeMetric {
  if (kind === 'count') return 'count';
  if (kind === 'sum') return 'sum';
  return 'average';
}
