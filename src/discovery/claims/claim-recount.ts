/**
 * A claim recounted: the rows of the verifier's statement (claim-sql.ts) turned into the claim's two
 * values, the support behind them, and the kind's test recomputed from scratch — the same statistics
 * functions the miner uses, fed only with what the verifier counted.
 */
import type { Claim, ClaimFit, ClaimScalar } from '../../domain/index.js';
import type { Row } from '../../warehouse/port.js';
import { type TestResult, binomialTest, compoundPoissonZ, moodMedian, pearsonT, twoProportionZ, welchT } from '../statistics/index.js';
import { type ChangePeriod, type PeriodSums, breakDownChange, changeMetricOf } from '../statistics/change.js';
import { type OutlierSide, type Quartiles, farOutFences, outlierTailTest } from '../statistics/outliers.js';
import { isPeriodGrain, periodPosition, periodStart, periodStartsBetween } from '../statistics/periods.js';
import { type SeriesPoint, trendOf, windowContrast } from '../statistics/series.js';
import type { RecountShape } from './claim-sql.js';

export interface ClaimRecount {
  value: number | null;
  comparisonValue: number | null;
  /** Rows behind the segment's value (periods for a trend, pairs for a correlation). */
  segmentRows: number;
  /** For a series: the rows inside the segment's periods (a shift's support). */
  segmentRecords?: number;
  comparisonRows: number;
  /** The kind's test on the recount; absent when none applies (then the claim cannot be confirmed). */
  test?: TestResult | undefined;
  fit?: ClaimFit | undefined;
  /** `contribution`: the test of the whole's change between the windows (both tests must hold). */
  changeTest?: TestResult | undefined;
  /** `outlier`: the extreme rows' share of the total (null when the total is not positive). */
  shareOfTotal?: number | null | undefined;
  /** `outlier`: the far-out fence on the claim's side, from the recounted quartiles (undefined without spread). */
  fence?: number | undefined;
  /** `outlier`: which side of the bulk the claim's threshold names. */
  side?: OutlierSide | undefined;
}

export function num(value: unknown): number | null {
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'bigint' ? Number(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : null;
}

/** Periods averaged at each end of a trend (the miner's rule, so both state the same levels). */
export function trendEndPeriods(periods: number): number {
  return Math.max(1, Math.min(6, Math.round(periods / 5)));
}

function sides(claim: Claim, row: Row): ClaimRecount {
  const get = (side: 'segment' | 'comparison', what: string) => num(row[`${side}_${what}`]);
  const segmentRows = get('segment', 'rows') ?? 0;
  const comparisonRows = get('comparison', 'rows') ?? 0;
  const totalRows = num(row.total_rows) ?? 0;
  const moments = (side: 'segment' | 'comparison') => ({
    n: get(side, 'n') ?? 0,
    mean: get(side, 'mean') ?? Number.NaN,
    variance: get(side, 'var') ?? 0,
  });
  const { metric } = claim;

  if (claim.kind === 'share') {
    if (metric.kind === 'sum') {
      const totalSum = num(row.total_sum);
      const segmentSum = get('segment', 'sum');
      const value = totalSum && segmentSum !== null ? segmentSum / totalSum : null;
      return {
        value,
        comparisonValue: totalRows > 0 ? segmentRows / totalRows : null,
        segmentRows,
        comparisonRows,
        test: welchT(moments('segment'), moments('comparison')),
      };
    }
    const groups = claim.comparison?.kind === 'even' ? claim.comparison.groups : undefined;
    if (groups)
      return {
        value: totalRows > 0 ? segmentRows / totalRows : null,
        comparisonValue: 1 / groups,
        segmentRows,
        comparisonRows,
        test: binomialTest(segmentRows, totalRows, 1 / groups),
      };
    const both = segmentRows + comparisonRows;
    return {
      value: totalRows > 0 ? segmentRows / totalRows : null,
      comparisonValue: totalRows > 0 ? comparisonRows / totalRows : null,
      segmentRows,
      comparisonRows,
      test: both > 0 ? binomialTest(segmentRows, both, 0.5) : undefined,
    };
  }

  // difference
  switch (metric.kind) {
    case 'count':
    case 'share': {
      const both = segmentRows + comparisonRows;
      const denominator = metric.kind === 'share' ? totalRows : 1;
      return {
        value: denominator > 0 ? segmentRows / denominator : null,
        comparisonValue: denominator > 0 ? comparisonRows / denominator : null,
        segmentRows,
        comparisonRows,
        test: both > 0 ? binomialTest(segmentRows, both, 0.5) : undefined,
      };
    }
    case 'distinct_count':
      return { value: get('segment', 'distinct'), comparisonValue: get('comparison', 'distinct'), segmentRows, comparisonRows };
    case 'rate': {
      const a = moments('segment');
      const b = moments('comparison');
      return {
        value: a.n > 0 ? a.mean : null,
        comparisonValue: b.n > 0 ? b.mean : null,
        segmentRows: a.n,
        comparisonRows: b.n,
        test: twoProportionZ(Math.round(a.mean * a.n), a.n, Math.round(b.mean * b.n), b.n),
      };
    }
    case 'median':
    case 'duration_median': {
      const a = moments('segment');
      const b = moments('comparison');
      return {
        value: get('segment', 'median'),
        comparisonValue: get('comparison', 'median'),
        segmentRows: a.n,
        comparisonRows: b.n,
        test: moodMedian(get('segment', 'above') ?? 0, a.n, get('comparison', 'above') ?? 0, b.n),
      };
    }
    case 'sum': {
      const a = moments('segment');
      const b = moments('comparison');
      const total = (side: 'segment' | 'comparison') => ({ sum: get(side, 'sum') ?? 0, squares: get(side, 'squares') ?? 0 });
      const test = compoundPoissonZ(total('segment'), total('comparison'));
      return { value: get('segment', 'sum'), comparisonValue: get('comparison', 'sum'), segmentRows: a.n, comparisonRows: b.n, test };
    }
    default: {
      const a = moments('segment');
      const b = moments('comparison');
      return {
        value: a.n > 0 ? a.mean : null,
        comparisonValue: b.n > 0 ? b.mean : null,
        segmentRows: a.n,
        comparisonRows: b.n,
        test: welchT(a, b),
      };
    }
  }
}

function positionOf(claim: Claim, period: unknown): number | null {
  const grain = claim.series?.grain;
  if (isPeriodGrain(grain)) return typeof period === 'string' ? periodPosition(period, grain) : null;
  return num(period);
}

export function periodKey(claim: Claim, period: unknown): string | number {
  const grain = claim.series?.grain;
  if (isPeriodGrain(grain) && typeof period === 'string') return periodStart(period, grain);
  return num(period) ?? String(period);
}

export function inWindow(key: string | number, window: { from: ClaimScalar; to: ClaimScalar }): boolean {
  if (typeof key === 'number') return key >= Number(window.from) && key < Number(window.to);
  return key >= String(window.from) && key < String(window.to);
}

/** The series points of the recount; `minRows` leaves out periods too thin to average (the miner's rule). */
export function seriesPoints(claim: Claim, rows: readonly Row[], minRows: number): Array<SeriesPoint & { key: string | number }> {
  const points: Array<SeriesPoint & { key: string | number }> = [];
  for (const row of rows) {
    const x = positionOf(claim, row.p);
    const value = num(row.v);
    const n = num(row.n) ?? 0;
    if (x === null || value === null || n < minRows) continue;
    points.push({ x, label: String(row.p), value, rows: n, key: periodKey(claim, row.p) });
  }
  return points.sort((left, right) => left.x - right.x);
}

/** Rows a period needs to be a point of the series: an average over fewer is noise (the miner's rule). */
export function seriesMinRows(claim: Claim, minSupport: number): number {
  const averaged = !['count', 'sum', 'distinct_count'].includes(claim.metric.kind);
  // a gradient over groups (levels, hours) keeps groups with enough rows, as the miner did; periods keep the miner's thinner floor
  const gradient = claim.kind === 'trend' && !isPeriodGrain(claim.series?.grain);
  return averaged ? (gradient ? minSupport : Math.max(3, Math.ceil(minSupport / 3))) : 1;
}

function series(claim: Claim, rows: readonly Row[], minSupport: number): ClaimRecount {
  const points = seriesPoints(claim, rows, seriesMinRows(claim, minSupport));
  if (claim.kind === 'trend') {
    const fit = trendOf(points);
    const k = trendEndPeriods(points.length);
    const mean = (slice: readonly SeriesPoint[]) =>
      slice.length > 0 ? slice.reduce((sum, point) => sum + point.value, 0) / slice.length : null;
    const first = points[0];
    const last = points.at(-1);
    return {
      value: mean(points.slice(-k)),
      comparisonValue: mean(points.slice(0, k)),
      segmentRows: points.length,
      comparisonRows: 0,
      test: fit?.test,
      ...(fit && first && last
        ? { fit: { slope: fit.slope, r2: fit.r2, periods: points.length, first_period: String(first.key), last_period: String(last.key) } }
        : {}),
    };
  }
  const window = claim.window;
  if (!window) return { value: null, comparisonValue: null, segmentRows: 0, comparisonRows: 0 };
  const inside = points.filter((point) => inWindow(point.key, window));
  const outside = points.filter((point) => !inWindow(point.key, window) && (!claim.baseline || inWindow(point.key, claim.baseline)));
  const contrast = windowContrast(
    inside.map((point) => point.value),
    outside.map((point) => point.value),
  );
  const mean = (slice: readonly SeriesPoint[]) =>
    slice.length > 0 ? slice.reduce((sum, point) => sum + point.value, 0) / slice.length : null;
  return {
    value: mean(inside),
    comparisonValue: mean(outside),
    segmentRows: inside.length,
    comparisonRows: outside.length,
    segmentRecords: inside.reduce((sum, point) => sum + point.rows, 0),
    test: contrast?.test,
  };
}

/** Periods a window spans: calendar periods on a time axis, steps on a numeric one; undefined when it cannot be counted. */
function spanOf(claim: Claim, range: { from: ClaimScalar; to: ClaimScalar }): number | undefined {
  const grain = claim.series?.grain;
  if (isPeriodGrain(grain)) return periodStartsBetween(String(range.from), String(range.to), grain)?.length;
  const from = Number(range.from);
  const to = Number(range.to);
  return Number.isFinite(from) && Number.isFinite(to) ? Math.max(0, Math.ceil(to - from)) : undefined;
}

function contribution(claim: Claim, rows: readonly Row[], minSupport: number): ClaimRecount {
  const empty: ClaimRecount = { value: null, comparisonValue: null, segmentRows: 0, comparisonRows: 0 };
  const { window, baseline } = claim;
  if (!window || !baseline) return empty;
  const count = claim.metric.kind === 'count';
  const periods = new Map<string | number, ChangePeriod>();
  for (const row of rows) {
    if (row.p === null || row.p === undefined) continue;
    const key = periodKey(claim, row.p);
    const records = num(row.nr) ?? 0;
    const sums: PeriodSums = count
      ? { rows: records, n: records, sum: records, squares: records }
      : { rows: records, n: num(row.vn) ?? 0, sum: num(row.vs) ?? 0, squares: num(row.vq) ?? 0 };
    const period = periods.get(key) ?? { key, all: { rows: 0, n: 0, sum: 0, squares: 0 }, segment: { rows: 0, n: 0, sum: 0, squares: 0 } };
    period.all = {
      rows: period.all.rows + sums.rows,
      n: period.all.n + sums.n,
      sum: period.all.sum + sums.sum,
      squares: period.all.squares + sums.squares,
    };
    if (num(row.s) === 1) period.segment = sums;
    periods.set(key, period);
  }
  const listed = [...periods.values()];
  const baselineSpan = spanOf(claim, baseline);
  const windowSpan = spanOf(claim, window);
  if (!baselineSpan || !windowSpan) return empty;
  const breakdown = breakDownChange(
    changeMetricOf(claim.metric.kind),
    {
      baseline: listed.filter((period) => inWindow(period.key, baseline)),
      window: listed.filter((period) => inWindow(period.key, window)),
      baselinePeriods: baselineSpan,
      windowPeriods: windowSpan,
    },
    { minSupport, rate: claim.metric.kind === 'rate' },
  );
  if (!breakdown) return empty;
  return {
    value: breakdown.contribution,
    comparisonValue: breakdown.change,
    segmentRows: breakdown.segmentRows,
    comparisonRows: breakdown.rows - breakdown.segmentRows,
    test: breakdown.shareTest,
    changeTest: breakdown.changeTest,
  };
}

function outlier(claim: Claim, row: Row): ClaimRecount {
  const quartiles: Quartiles = {
    q1: num(row.q1) ?? Number.NaN,
    median: num(row.q2) ?? Number.NaN,
    q3: num(row.q3) ?? Number.NaN,
    min: num(row.lo) ?? Number.NaN,
    n: num(row.vn) ?? 0,
  };
  const side: OutlierSide = claim.segment?.from !== undefined ? 'high' : 'low';
  const threshold = Number(side === 'high' ? claim.segment?.from : claim.segment?.to);
  const segmentRows = num(row.segment_rows) ?? 0;
  const total = num(row.vs);
  const segmentSum = num(row.segment_sum);
  const fences = farOutFences(quartiles);
  return {
    value: segmentRows > 0 ? num(row.segment_mean) : null,
    comparisonValue: num(row.comparison_median),
    segmentRows,
    comparisonRows: num(row.comparison_n) ?? 0,
    test: Number.isFinite(threshold) ? outlierTailTest(quartiles, threshold, side, segmentRows) : undefined,
    shareOfTotal: total !== null && total > 0 && segmentSum !== null ? segmentSum / total : null,
    fence: fences ? (side === 'high' ? fences.high : fences.low) : undefined,
    side,
  };
}

function correlation(row: Row): ClaimRecount {
  const r = num(row.r);
  const n = num(row.n) ?? 0;
  return { value: r, comparisonValue: 0, segmentRows: n, comparisonRows: 0, test: r === null ? undefined : pearsonT(r, n) };
}

export function recountFromRows(claim: Claim, shape: RecountShape, rows: readonly Row[], minSupport: number): ClaimRecount {
  switch (shape) {
    case 'sides':
      return rows[0] ? sides(claim, rows[0]) : { value: null, comparisonValue: null, segmentRows: 0, comparisonRows: 0 };
    case 'series':
      return series(claim, rows, minSupport);
    case 'correlation':
      return rows[0] ? correlation(rows[0]) : { value: null, comparisonValue: null, segmentRows: 0, comparisonRows: 0 };
    case 'contribution':
      return contribution(claim, rows, minSupport);
    case 'outlier':
      return rows[0] ? outlier(claim, rows[0]) : { value: null, comparisonValue: null, segmentRows: 0, comparisonRows: 0 };
  }
}
