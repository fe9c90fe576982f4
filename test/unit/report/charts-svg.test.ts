import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimSchema, type ClaimChart, type Insight, insightSchema } from '../../../src/domain/index.js';
import { niceTicks } from '../../../src/report/charts/axis.js';
import { renderBarChart } from '../../../src/report/charts/bar-chart.js';
import { orderBuckets } from '../../../src/report/charts/bucket-order.js';
import { type BarChartSpec, type LineChartSpec, chartForInsight } from '../../../src/report/charts/chart-spec.js';
import { renderLineChart } from '../../../src/report/charts/line-chart.js';

const rate = claimSchema.parse({
  kind: 'difference',
  metric: {
    kind: 'rate',
    table: 'main.sessions',
    condition: { column: 'abandoned', op: '=', value: true },
    label: 'checkout abandonment rate',
  },
  segment: { column: 'device_type', value: 'desktop', label: 'device' },
  comparison: { kind: 'rest' },
  value: 0.228,
  comparison_value: 0.613,
  direction: 'lower',
  noun: 'sessions',
});

function insightWith(claim: unknown, chart?: ClaimChart, extra: Record<string, unknown> = {}): Insight {
  return insightSchema.parse({
    id: 'conversion-1',
    analysis_area: 'conversion',
    name: 'Sessions whose device is desktop have a lower checkout abandonment rate',
    severity: 'high',
    discovered_at: '2026-01-01T00:00:00Z',
    claim,
    validation: {
      status: 'confirmed',
      verified_count: 0.228,
      original_count: 0.228,
      validated_at: '2026-01-01T00:00:00Z',
      claim_check: {
        value: 0.228,
        comparison_value: 0.613,
        direction_holds: true,
        relative_error: 0,
        segment_rows: 8701,
        sql: 'SELECT 1',
        ...(chart ? { chart } : {}),
        ...extra,
      },
    },
  });
}

const deviceChart: ClaimChart = {
  shape: 'bars',
  points: [
    { key: null, label: 'no device', value: 0.5, rows: 40, role: 'missing' },
    { key: 'mobile', label: 'mobile', value: 0.666, rows: 10_520, role: 'other' },
    { key: 'desktop', label: 'desktop', value: 0.228, rows: 8_701, role: 'segment' },
    { key: 'tablet', label: 'tablet', value: 0.404, rows: 2_695, role: 'other' },
  ],
  references: [{ label: 'the other sessions', value: 0.613 }],
};

function specOf(insight: Insight) {
  const chart = chartForInsight(insight);
  if (!chart.spec) throw new Error(chart.reason);
  return chart.spec;
}

describe('when an insight’s chart is built from its claim', () => {
  it('titles a rate by its grouping in words, with the axis in percent and the segment highlighted', () => {
    const spec = specOf(insightWith(rate, deviceChart)) as BarChartSpec;
    expect(spec.kind).toBe('bar');
    expect(spec.title).toBe('Checkout abandonment rate by device');
    expect(spec.valueAxis).toBe('checkout abandonment rate (%)');
    expect(spec.format.label(0.228)).toBe('22.8%');
    expect(spec.format.tick(0.25)).toBe('25%');
    expect(spec.captions).toEqual(['Dark blue: sessions whose device is desktop', 'Dashed: the other sessions, 61.3%']);
    // largest value first for a grouping with no order of its own; the missing group last
    expect(spec.bars.map((bar) => bar.label)).toEqual(['mobile', 'tablet', 'desktop', 'no device']);
  });

  it('plots money with its symbol and durations with their unit', () => {
    const money = { ...rate, metric: { kind: 'mean', table: 'main.orders', column: 'total', label: 'order total (USD)', filters: [] } };
    const spec = specOf(insightWith(money, deviceChart));
    expect(spec.valueAxis).toBe('average order total ($)');
    expect(spec.format.label(1234.5)).toBe('$1,235');
    expect(spec.format.tick(1500)).toBe('$1.5k');
    const duration = {
      ...rate,
      metric: {
        kind: 'duration_mean',
        table: 'main.orders',
        start_column: 'a',
        end_column: 'b',
        unit: 'days',
        label: 'time to deliver (days)',
        filters: [],
      },
    };
    const inside = { ...money, metric: { ...money.metric, kind: 'sum', label: 'total IAP revenue (USD) of purchases' } };
    expect(specOf(insightWith(inside, deviceChart)).title).toBe('Total IAP revenue of purchases by device');
    const durationSpec = specOf(insightWith(duration, deviceChart));
    expect(durationSpec.valueAxis).toBe('average time to deliver (days)');
    expect(durationSpec.format.label(7.44)).toBe('7.44 days');
  });

  it('draws a shift as a line per period, its window named in the caption', () => {
    const shift = claimSchema.parse({
      kind: 'shift',
      metric: { kind: 'count', table: 'main.orders' },
      series: { column: 'ordered_at', grain: 'month', label: 'order date' },
      window: { from: '2024-06-01', to: '2024-08-01' },
      value: 200,
      comparison_value: 100,
      direction: 'higher',
      noun: 'orders',
    });
    const chart: ClaimChart = {
      shape: 'line',
      points: ['May', 'Jun', 'Jul', 'Aug'].map((month, index) => ({
        key: `2024-0${index + 5}-01`,
        label: `${month} 2024`,
        value: index === 1 || index === 2 ? 200 : 100,
        rows: 100,
        role: index === 1 || index === 2 ? 'segment' : 'other',
        x: index,
        ...(index === 1 || index === 2 ? { span: 'window' as const } : {}),
      })),
      references: [],
    };
    const spec = specOf(insightWith(shift, chart)) as LineChartSpec;
    expect(spec.kind).toBe('line');
    expect(spec.title).toBe('Number of orders per month');
    expect(spec.groupAxis).toBe('order date (month)');
    expect(spec.captions).toContain('Shaded, the claimed window: Jun 2024 to Jul 2024');
    const svg = renderLineChart(spec).toString();
    expect(svg).toContain('class="span-window"');
    expect(svg).toContain('<title>Number of orders per month</title>');
  });

  it('says in one line why an insight has no chart', () => {
    expect(chartForInsight(insightWith(undefined)).reason).toBe('No chart: the insight states no claim the engine can measure.');
    expect(
      chartForInsight(insightWith(rate, undefined, { chart_unavailable: 'fewer than two periods have enough rows to draw a line' })).reason,
    ).toBe('No chart: fewer than two periods have enough rows to draw a line.');
    expect(chartForInsight(insightWith(rate)).reason).toBe('No chart: this insight was verified before the engine stored charts.');
  });

  it('never puts an internal marker or a raw column key in a title or an axis', () => {
    const spec = specOf(insightWith({ ...rate, segment: { column: 'device_type', value: 'desktop' } }, deviceChart));
    expect(spec.title).toBe('Checkout abandonment rate by device type');
    for (const text of [spec.title, spec.valueAxis, spec.groupAxis]) {
      expect(text).not.toMatch(/\[|_/);
    }
  });
});

describe('when bars are put in order', () => {
  const bars = (keys: Array<string | number>) =>
    keys.map((key, index) => ({ key, label: String(key), value: index, rows: 1, role: 'other' as const }));
  const order = (keys: Array<string | number>) => orderBuckets(bars(keys)).map((bar) => bar.key);

  it('follows known scales, weekdays, numbers, dates and numeric ranges', () => {
    expect(order(['hard', 'medium', 'easy'])).toEqual(['easy', 'medium', 'hard']);
    expect(order(['High', 'low', 'Medium'])).toEqual(['low', 'Medium', 'High']);
    expect(order(['Friday', 'Monday', 'Wednesday'])).toEqual(['Monday', 'Wednesday', 'Friday']);
    expect(order([12, 3, 7])).toEqual([3, 7, 12]);
    expect(order(['2024-03-01', '2024-01-01'])).toEqual(['2024-01-01', '2024-03-01']);
    expect(order(['65+', '25-34', '18–24', '35-44'])).toEqual(['18–24', '25-34', '35-44', '65+']);
  });

  it('ranks values with no order of their own by value, pooled and missing groups last', () => {
    const points = [
      { key: null, label: 'no device', value: 9, rows: 1, role: 'missing' as const },
      { key: null, label: '3 other values', value: 8, rows: 1, role: 'others' as const },
      { key: 'tablet', label: 'tablet', value: 1, rows: 1, role: 'other' as const },
      { key: 'mobile', label: 'mobile', value: 5, rows: 1, role: 'other' as const },
    ];
    expect(orderBuckets(points).map((point) => point.label)).toEqual(['mobile', 'tablet', '3 other values', 'no device']);
  });
});

describe('when a bar chart is rendered', () => {
  const spec = specOf(
    insightWith(rate, {
      ...deviceChart,
      points: [...deviceChart.points, { key: '<img src=x>', label: '<img src=x>', value: 0.1, rows: 3, role: 'other' }],
    }),
  ) as BarChartSpec;
  const svg = renderBarChart(spec).toString();

  it('escapes labels, writes values in the claim’s unit and dashes the comparison', () => {
    expect(svg).not.toContain('<img');
    expect(svg).toContain('&lt;img src=x&gt;');
    expect(svg).toContain('>22.8%</text>');
    expect(svg).toContain('stroke-dasharray="5 3"');
    expect(svg.match(/<rect /g)).toHaveLength(5);
    expect(svg).toContain('class="bar-segment"');
  });

  it('is byte-identical when rendered twice', () => {
    expect(renderBarChart(spec).toString()).toBe(svg);
  });
});

describe('when axis ticks are chosen', () => {
  it('covers the data with sorted, evenly spaced ticks', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.double({ min: 0, max: 1e9, noNaN: true }), (start, span) => {
        const ticks = niceTicks(start, start + span);
        const first = ticks[0] ?? Number.NaN;
        const last = ticks[ticks.length - 1] ?? Number.NaN;
        expect(first).toBeLessThanOrEqual(start);
        expect(last).toBeGreaterThanOrEqual(start + span);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(ticks.length).toBeLessThanOrEqual(12);
        for (let index = 1; index < ticks.length; index += 1) expect(ticks[index] ?? 0).toBeGreaterThan(ticks[index - 1] ?? 0);
      }),
    );
  });
});
