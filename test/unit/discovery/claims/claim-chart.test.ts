import { describe, expect, it } from 'vitest';
import {
  chartFromBins,
  chartFromContribution,
  chartFromExtremes,
  chartFromGroups,
  chartFromRanges,
  chartFromSeries,
  keyInGroup,
  poolSeries,
} from '../../../../src/discovery/claims/claim-chart.js';
import type { ClaimRecount } from '../../../../src/discovery/claims/claim-recount.js';
import { CHART_MAX_POINTS, type Claim, type ClaimChartPoint, claimChartSchema, claimSchema } from '../../../../src/domain/index.js';

const recount: ClaimRecount = { value: 0.2, comparisonValue: 0.6, segmentRows: 100, comparisonRows: 300 };

function claim(overrides: Record<string, unknown>): Claim {
  return claimSchema.parse({
    kind: 'difference',
    metric: { kind: 'rate', table: 'main.sessions', condition: { column: 'abandoned', op: '=', value: true }, label: 'abandonment rate' },
    segment: { column: 'device', value: 'desktop', label: 'device' },
    comparison: { kind: 'rest' },
    value: 0.2,
    comparison_value: 0.6,
    direction: 'lower',
    noun: 'sessions',
    ...overrides,
  });
}

function chartOf(outcome: ReturnType<typeof chartFromGroups>) {
  if (!outcome.chart) throw new Error(`no chart: ${outcome.unavailable}`);
  return claimChartSchema.parse(outcome.chart);
}

describe('when a difference is charted by the values of its segment column', () => {
  it('measures the claim’s metric per value and marks the claimed segment', () => {
    const rows = [
      { g: 'mobile', n: 500, vn: 500, vs: 300 },
      { g: 'desktop', n: 400, vn: 400, vs: 80 },
    ];
    const chart = chartOf(chartFromGroups(claim({}), rows, false, recount));
    expect(chart.shape).toBe('bars');
    expect(chart.points.map((point) => [point.label, point.value, point.role])).toEqual([
      ['mobile', 0.6, 'other'],
      ['desktop', 0.2, 'segment'],
    ]);
    expect(chart.references).toEqual([{ label: 'the other sessions', value: 0.6 }]);
  });

  it('pools the smallest values into one bar, keeps the segment however small, and shows missing values on their own', () => {
    const rows = [
      ...Array.from({ length: 40 }, (_, index) => ({ g: `city ${index}`, n: 1_000 - index, vn: 1_000 - index, vs: 100 })),
      { g: 'desktop', n: 3, vn: 3, vs: 3 },
      { g: null, n: 50, vn: 50, vs: 25 },
    ];
    const chart = chartOf(chartFromGroups(claim({}), rows, false, recount));
    expect(chart.points).toHaveLength(CHART_MAX_POINTS);
    expect(chart.points.find((point) => point.role === 'segment')?.label).toBe('desktop');
    const missing = chart.points.filter((point) => point.role === 'missing');
    expect(missing).toEqual([expect.objectContaining({ label: 'no device', rows: 50, value: 0.5 })]);
    const others = chart.points.filter((point) => point.role === 'others');
    expect(others).toHaveLength(1);
    const pooledGroups = chart.pooled_groups ?? 0;
    expect(others[0]?.label).toBe(`${pooledGroups} other values`);
    // every row is in exactly one bar
    const total = rows.reduce((sum, row) => sum + row.n, 0);
    expect(chart.points.reduce((sum, point) => sum + point.rows, 0)).toBe(total);
    // the pooled rate is the pooled successes over the pooled rows, not a mean of rates
    const kept = new Set(chart.points.map((point) => point.key));
    const pooled = rows.filter((row) => row.g !== null && !kept.has(row.g));
    expect(others[0]?.value).toBeCloseTo(pooled.reduce((s, r) => s + r.vs, 0) / pooled.reduce((s, r) => s + r.vn, 0), 12);
  });

  it('marks a comparison group on the same column instead of drawing a line for it', () => {
    const compared = claim({ comparison: { kind: 'group', group: { column: 'device', value: 'tablet' } } });
    const rows = [
      { g: 'desktop', n: 10, vn: 10, vs: 2 },
      { g: 'tablet', n: 10, vn: 10, vs: 6 },
      { g: 'mobile', n: 10, vn: 10, vs: 5 },
    ];
    const chart = chartOf(chartFromGroups(compared, rows, false, recount));
    expect(chart.points.map((point) => point.role)).toEqual(['segment', 'comparison', 'other']);
    expect(chart.references).toEqual([]);
  });

  it('leaves a median’s smaller values out with a note, since medians do not pool', () => {
    const median = claim({ metric: { kind: 'median', table: 'main.orders', column: 'total', label: 'order total (USD)' } });
    const rows = Array.from({ length: 30 }, (_, index) => ({ g: index === 0 ? 'desktop' : `v${index}`, n: 100 - index, vm: index }));
    const chart = chartOf(chartFromGroups(median, rows, false, recount));
    expect(chart.points.some((point) => point.role === 'others')).toBe(false);
    expect(chart.note).toMatch(/^7 smaller values \(.*\) not drawn: a median does not pool$/);
  });

  it('refuses a column with more values than the statement returned', () => {
    const outcome = chartFromGroups(claim({}), [{ g: 'a', n: 1 }], true, recount);
    expect(outcome.chart).toBeUndefined();
    expect(outcome.unavailable).toMatch(/more values than a chart can group/);
  });

  it('plots a share claim as each value’s share of the rows, against an even split', () => {
    const share = claim({
      kind: 'share',
      metric: { kind: 'count', table: 'main.sessions', label: '' },
      comparison: { kind: 'even', groups: 4 },
      value: 0.5,
      comparison_value: 0.25,
      direction: 'higher',
    });
    const rows = [
      { g: 'desktop', n: 50 },
      { g: 'mobile', n: 30 },
      { g: 'tablet', n: 20 },
    ];
    const chart = chartOf(chartFromGroups(share, rows, false, recount));
    expect(chart.points.map((point) => point.value)).toEqual([0.5, 0.3, 0.2]);
    expect(chart.references).toEqual([{ label: 'an even split', value: 0.25 }]);
  });
});

describe('when a segment is a range of a plain column', () => {
  it('draws the rows below, in and above the range and the missing ones, in that order', () => {
    const ranged = claim({ segment: { column: 'age', from: 30, to: 40, label: 'age' } });
    const rows = [
      { g: 'above', n: 100, vn: 100, vs: 50 },
      { g: 'missing', n: 5, vn: 5, vs: 1 },
      { g: 'segment', n: 40, vn: 40, vs: 4 },
      { g: 'below', n: 60, vn: 60, vs: 30 },
    ];
    const chart = chartOf(chartFromRanges(ranged, rows, recount));
    expect(chart.points.map((point) => [point.label, point.role])).toEqual([
      ['under 30', 'other'],
      ['30 to under 40', 'segment'],
      ['40 or more', 'other'],
      ['no age', 'missing'],
    ]);
  });
});

describe('a group’s membership', () => {
  it('matches values across the forms a warehouse returns them in', () => {
    expect(keyInGroup({ column: 'flag', value: true }, true)).toBe(true);
    expect(keyInGroup({ column: 'flag', value: 'true' }, true)).toBe(true);
    expect(keyInGroup({ column: 'amount', value: 7.95 }, 7.95)).toBe(true);
    expect(keyInGroup({ column: 'month', value: '2024-03-01', grain: 'month' }, '2024-03-01 00:00:00')).toBe(true);
    expect(keyInGroup({ column: 'hour', from: 20, to: 24, grain: 'hour_of_day' }, 21)).toBe(true);
    expect(keyInGroup({ column: 'hour', from: 20, to: 24, grain: 'hour_of_day' }, 19)).toBe(false);
    expect(keyInGroup({ column: 'code', missing: true }, null)).toBe(true);
    expect(keyInGroup({ column: 'code', value: 'A' }, null)).toBe(false);
  });
});

const monthly = (overrides: Record<string, unknown>) =>
  claim({
    kind: 'shift',
    metric: { kind: 'count', table: 'main.orders', label: '' },
    segment: undefined,
    comparison: undefined,
    series: { column: 'ordered_at', grain: 'month', label: 'order date' },
    window: { from: '2024-06-01', to: '2024-08-01' },
    value: 200,
    comparison_value: 100,
    direction: 'higher',
    noun: 'orders',
    ...overrides,
  });

function monthRows(count: number) {
  return Array.from({ length: count }, (_, index) => {
    const date = new Date(Date.UTC(2023, index, 1));
    return { p: date.toISOString().slice(0, 10), v: 100 + index, n: 100 + index };
  });
}

describe('when a shift is charted', () => {
  it('draws the recounted periods as a line with the claimed window marked', () => {
    const outcome = chartFromSeries(monthly({}), monthRows(20), 10);
    const chart = chartOf(outcome);
    expect(chart.shape).toBe('line');
    expect(chart.points).toHaveLength(20);
    const window = chart.points.filter((point) => point.span === 'window').map((point) => point.label);
    expect(window).toEqual(['Jun 2024', 'Jul 2024']);
    expect(chart.points[0]?.label).toBe('Jan 2023');
  });

  it('averages consecutive periods of a long series into at most the chart’s points, never across the window’s edge', () => {
    const outcome = chartFromSeries(monthly({ window: { from: '2025-01-01', to: '2025-04-01' } }), monthRows(60), 10);
    const chart = chartOf(outcome);
    expect(chart.points.length).toBeLessThanOrEqual(CHART_MAX_POINTS);
    expect(chart.periods_per_point).toBe(3);
    expect(chart.note).toBe('each point averages 3 consecutive months and is labelled by the first');
    const window = chart.points.filter((point) => point.span === 'window');
    expect(window).toEqual([expect.objectContaining({ label: 'Jan 2025', value: (124 + 125 + 126) / 3 })]);
  });
});

describe('pooling a series', () => {
  it('weights averaged metrics by rows', () => {
    const points: ClaimChartPoint[] = Array.from({ length: 26 }, (_, index) => ({
      key: index,
      label: String(index),
      value: index % 2 === 0 ? 0 : 1,
      rows: index % 2 === 0 ? 1 : 3,
      role: 'other',
      x: index,
    }));
    const pooled = poolSeries(points, true);
    expect(pooled.size).toBe(2);
    expect(pooled.points[0]?.value).toBeCloseTo(0.75, 12);
    expect(poolSeries(points, false).points[0]?.value).toBeCloseTo(0.5, 12);
  });
});

describe('when a contribution is charted', () => {
  it('draws the whole and the segment per period across both windows, each window marked', () => {
    const contribution = claim({
      kind: 'contribution',
      metric: { kind: 'count', table: 'main.orders', label: '' },
      segment: { column: 'region', value: 'West' },
      comparison: undefined,
      series: { column: 'ordered_at', grain: 'quarter' },
      baseline: { from: '2024-01-01', to: '2024-04-01' },
      window: { from: '2024-04-01', to: '2024-07-01' },
      value: 50,
      comparison_value: 60,
      direction: 'higher',
    });
    const rows = [
      { p: '2024-04-01', v: 160, sv: 90, n: 160, sn: 90 },
      { p: '2024-01-01', v: 100, sv: 40, n: 100, sn: 40 },
    ];
    const chart = chartOf(chartFromContribution(contribution, rows));
    expect(chart.points.map((point) => [point.label, point.value, point.segment_value, point.span])).toEqual([
      ['2024-Q1', 100, 40, 'baseline'],
      ['2024-Q2', 160, 90, 'window'],
    ]);
  });
});

describe('when a correlation is charted', () => {
  it('plots the mean of the measure per bin of the other, leaving out bins with too few pairs', () => {
    const rows = [
      { b: 0, n: 20, ys: 40, xs: 20, xlo: 0, xhi: 2 },
      { b: 5, n: 3, ys: 30, xs: 15, xlo: 5, xhi: 5 },
      { b: 11, n: 10, ys: 100, xs: 110, xlo: 10, xhi: 12 },
      // the largest x lands on the upper edge, bin 12: it belongs to the last bin
      { b: 12, n: 10, ys: 120, xs: 120, xlo: 12, xhi: 12 },
    ];
    const chart = chartOf(chartFromBins(rows, 10));
    expect(chart.shape).toBe('binned');
    expect(chart.points.map((point) => [point.label, point.value, point.x])).toEqual([
      ['0–2', 2, 1],
      ['10–12', 11, 11.5],
    ]);
    expect(chart.note).toBe('1 of 3 bins hold fewer than 10 pairs and are not drawn');
  });
});

describe('when an outlier is charted', () => {
  it('draws each flagged row largest first against the others’ median and the fence', () => {
    const outlier = claim({
      kind: 'outlier',
      metric: { kind: 'mean', table: 'main.orders', column: 'total', label: 'order total (USD)' },
      segment: { column: 'total', from: 5_000 },
      comparison: { kind: 'rest' },
      value: 9_000,
      comparison_value: 80,
      direction: 'higher',
      noun: 'orders',
    });
    const chart = chartOf(
      chartFromExtremes(outlier, [{ v: 12_000 }, { v: 8_000 }], true, {
        value: 9_000,
        comparisonValue: 80,
        segmentRows: 25,
        comparisonRows: 1_000,
        fence: 900,
      }),
    );
    expect(chart.points.map((point) => [point.label, point.value])).toEqual([
      ['1st largest', 12_000],
      ['2nd largest', 8_000],
    ]);
    expect(chart.references).toEqual([
      { label: 'median of the other orders', value: 80 },
      { label: 'far-out fence', value: 900 },
    ]);
    expect(chart.note).toBe('the 2 most extreme of 25 flagged orders');
  });
});
