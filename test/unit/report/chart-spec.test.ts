import { describe, expect, it } from 'vitest';
import { explorationStepSchema, type ExplorationStep, type Row } from '../../../src/domain/index.js';
import { BAR_CHART_MAX_BARS, chartForStep } from '../../../src/report/charts/chart-spec.js';
import { digestOf } from '../../fixtures/report/digest.js';

function queryStep(rows: Row[], overrides: Record<string, unknown> = {}): ExplorationStep {
  return explorationStepSchema.parse({
    run_id: 'run-1',
    step: 7,
    action: 'query',
    timestamp: '2025-01-01T00:00:00Z',
    query_purpose: 'Purpose of step 7',
    query: 'SELECT 1',
    row_count: rows.length,
    compact: digestOf(rows),
    ...overrides,
  });
}

const monthly = (count: number): Row[] =>
  Array.from({ length: count }, (_, index) => ({
    month: `2024-${String(index + 1).padStart(2, '0')}-01`,
    orders: 100 + index * 10,
    revenue: 1000 + index,
  }));

describe('when a step returns a time column and a numeric column', () => {
  it('charts a line over every row and labels months compactly', () => {
    const spec = chartForStep(queryStep(monthly(6)));
    expect(spec?.kind).toBe('line');
    if (spec?.kind !== 'line') return;
    expect(spec.timeColumn).toBe('month');
    expect(spec.valueColumn).toBe('orders');
    expect(spec.segments).toHaveLength(1);
    expect(spec.segments[0]?.map((point) => point.label)).toEqual(['2024-01', '2024-02', '2024-03', '2024-04', '2024-05', '2024-06']);
    expect(spec.sourceNote).toBe('all 6 rows');
    expect(spec.title).toBe('Purpose of step 7');
  });

  it('plots the measure the insight talks about when there are several', () => {
    const spec = chartForStep(queryStep(monthly(6)), 'Revenue per month stalled');
    expect(spec?.kind === 'line' && spec.valueColumn).toBe('revenue');
  });

  it('splits head and tail rows into two segments and says how many rows are missing', () => {
    const spec = chartForStep(
      queryStep(Array.from({ length: 30 }, (_, index) => ({ day: `2024-01-${String(index + 1).padStart(2, '0')}`, visits: index }))),
    );
    expect(spec?.kind).toBe('line');
    if (spec?.kind !== 'line') return;
    expect(spec.segments.map((segment) => segment.length)).toEqual([5, 5]);
    expect(spec.omittedRows).toBe(20);
    expect(spec.sourceNote).toBe('first 5 and last 5 of 30 rows');
  });

  it('does not draw a line through fewer than three points', () => {
    expect(chartForStep(queryStep(monthly(2)))?.kind).toBe('bar');
  });

  it('does not draw a line when a time value repeats (several series mixed in one result)', () => {
    const rows: Row[] = ['2024-01-01', '2024-01-01', '2024-02-01', '2024-02-01'].map((month, index) => ({
      month,
      device: index % 2 ? 'app' : 'web',
      orders: index,
    }));
    expect(chartForStep(queryStep(rows))?.kind).not.toBe('line');
  });
});

describe('when a step returns a dimension and a metric', () => {
  const devices: Row[] = [
    { device: 'mobile', sessions: 90 },
    { device: 'desktop', sessions: 60 },
    { device: 'app', sessions: 120 },
  ];

  it('charts bars sorted by value, largest first', () => {
    const spec = chartForStep(queryStep(devices));
    expect(spec?.kind).toBe('bar');
    if (spec?.kind !== 'bar') return;
    expect(spec.bars.map((bar) => bar.label)).toEqual(['app', 'mobile', 'desktop']);
    expect(spec.dimensionLabel).toBe('device');
    expect(spec.metricLabel).toBe('sessions');
  });

  it('keeps only the largest bars and says so', () => {
    const rows = Array.from({ length: 16 }, (_, index) => ({ country: `C${index}`, customers: index }));
    const spec = chartForStep(queryStep(rows));
    expect(spec?.kind === 'bar' && spec.bars.length).toBe(BAR_CHART_MAX_BARS);
    expect(spec?.sourceNote).toBe(`all 16 rows; largest ${BAR_CHART_MAX_BARS} shown`);
  });

  it('never uses an identifier column as the metric', () => {
    expect(
      chartForStep(
        queryStep([
          { name: 'a', user_id: 4 },
          { name: 'b', user_id: 9 },
        ]),
      ),
    ).toBeUndefined();
  });
});

describe('when a step has no chartable rows', () => {
  it('falls back to the most frequent values of a low-cardinality column', () => {
    const rows: Row[] = Array.from({ length: 30 }, (_, index) => ({ order_id: index, reason: index % 3 === 0 ? 'late' : 'damaged' }));
    const spec = chartForStep(queryStep(rows));
    expect(spec?.kind).toBe('bar');
    if (spec?.kind !== 'bar') return;
    expect(spec.bars).toEqual([
      { label: 'damaged', value: 20 },
      { label: 'late', value: 10 },
    ]);
    expect(spec.sourceNote).toContain('most frequent values of reason');
  });

  it('returns nothing for a single-row scalar result', () => {
    expect(chartForStep(queryStep([{ discounted_orders: 4, total_orders: 10 }]))).toBeUndefined();
  });

  it('returns nothing for failed queries and non-query steps', () => {
    expect(chartForStep(queryStep(monthly(6), { error: 'Binder Error' }))).toBeUndefined();
    expect(chartForStep(queryStep(monthly(6), { action: 'lookup_schema' }))).toBeUndefined();
  });
});
