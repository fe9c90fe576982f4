/**
 * A claim recounted: the rows of the verifier's statement (claim-sql.ts) turned into the claim's two
 * values, the support behind them, and the kind's test recomputed from scratch — the same statistics
 * functions the miner uses, fed only with what the verifier counted.
 */
import type { Claim, ClaimFit } from '../../domain/index.js';
import type { Row } from '../../warehouse/port.js';
import { type TestResult, binomialTest, compoundPoissonZ, moodMedian, pearsonT, twoProportionZ, welchT } from '../statistics/index.js';
import { isPeriodGrain, periodPosition, periodStart } from '../statistics/periods.js';
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
}

function num(value: unknown): number | null {
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

function periodKey(claim: Claim, period: unknown): string | number {
  const grain = claim.series?.grain;
  if (isPeriodGrain(grain) && typeof period === 'string') return periodStart(period, grain);
  return num(period) ?? String(period);
}

function inWindow(key: string | number, window: { from: string | number | boolean; to: string | number | boolean }): boolean {
  if (typeof key === 'number') return key >= Number(window.from) && key < Number(window.to);
  return key >= String(window.from) && key < String(window.to);
}

/** The series points of the recount; `minRows` leaves out periods too thin to average (the miner's rule). */
function seriesPoints(claim: Claim, rows: readonly Row[], minRows: number): Array<SeriesPoint & { key: string | number }> {
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

function series(claim: Claim, rows: readonly Row[], minSupport: number): ClaimRecount {
  const averaged = !['count', 'sum', 'distinct_count'].includes(claim.metric.kind);
  // a gradient over groups (levels, hours) keeps groups with enough rows, as the miner did; periods keep the miner's thinner floor
  const gradient = claim.kind === 'trend' && !isPeriodGrain(claim.series?.grain);
  const minRows = averaged ? (gradient ? minSupport : Math.max(3, Math.ceil(minSupport / 3))) : 1;
  const points = seriesPoints(claim, rows, minRows);
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
  }
}
