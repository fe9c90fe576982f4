/** Tests on a metric per period: the trend's fit, a window against the other periods, and the chosen split or window corrected for the choices tried. */
import { describe, expect, it } from 'vitest';
import { studentTwoSided, welchT, momentsOf } from '../../../../src/discovery/statistics/index.js';
import { type SeriesPoint, bestShift, bestWindow, trendOf, windowContrast } from '../../../../src/discovery/statistics/series.js';

const series = (values: readonly number[]): SeriesPoint[] =>
  values.map((value, index) => ({ x: index, label: String(index), value, rows: 100 }));

describe('trendOf', () => {
  it('fits the slope over the period positions, not over the list order', () => {
    const points: SeriesPoint[] = [
      { x: 0, label: 'a', value: 1, rows: 10 },
      { x: 2, label: 'c', value: 5, rows: 10 },
      { x: 3, label: 'd', value: 7, rows: 10 },
    ];
    expect(trendOf(points)?.slope).toBeCloseTo(2, 12);
  });
});

describe('windowContrast', () => {
  it('compares a window of several periods with Welch’s t (SciPy ttest_ind(equal_var=False))', () => {
    const result = windowContrast([20, 22, 21], [10, 12, 11, 13, 9, 10, 12]);
    expect(result?.test.statistic).toBeCloseTo(12.70977818604485, 9);
    expect(result?.test.p_value).toBeCloseTo(2.6153541761291934e-5, 12);
    expect(result?.test.df).toBeCloseTo(5.540983606557377, 9);
  });

  it('compares a single period with its prediction interval from the others (SciPy t.sf)', () => {
    const result = windowContrast([20], [10, 12, 11, 13, 9, 10, 12]);
    expect(result?.test.statistic).toBeCloseTo(5.952940449895328, 9);
    expect(result?.test.p_value).toBeCloseTo(0.001005180327545579, 12);
    expect(result?.test.df).toBe(6);
  });

  it('needs two other periods with some spread', () => {
    expect(windowContrast([5], [3])).toBeUndefined();
    expect(windowContrast([5], [3, 3, 3])).toBeUndefined();
    expect(windowContrast([], [1, 2, 3])).toBeUndefined();
  });
});

describe('bestShift', () => {
  it('finds the split where the level changes and multiplies its p-value by the splits tried', () => {
    const values = [10, 11, 9, 10, 12, 10, 30, 31, 29, 30, 32, 30];
    const found = bestShift(series(values), 3);
    expect(found?.first).toBe(6);
    expect(found?.last).toBe(11);
    const raw = welchT(momentsOf(values.slice(6)), momentsOf(values.slice(0, 6)));
    // splits 3 … 9: seven tried
    expect(found?.test.p_value).toBeCloseTo(Math.min(1, (raw?.p_value as number) * 7), 15);
  });

  it('keeps at least minSide periods on each side', () => {
    expect(bestShift(series([1, 2, 3, 4, 5]), 3)).toBeUndefined();
  });
});

describe('bestWindow', () => {
  it('finds the spike and corrects for every window tried', () => {
    const values = [10, 11, 9, 10, 40, 10, 11, 9, 10, 11];
    const found = bestWindow(series(values), 2);
    expect(found?.first).toBe(4);
    expect(found?.last).toBe(4);
    const others = values.filter((_, index) => index !== 4);
    const single = momentsOf(others);
    const t = (40 - single.mean) / Math.sqrt(single.variance * (1 + 1 / single.n));
    // windows of length 1 (10) and 2 (9), each leaving at least 3 other periods
    expect(found?.test.p_value).toBeCloseTo(Math.min(1, studentTwoSided(t, single.n - 1) * 19), 15);
  });
});
