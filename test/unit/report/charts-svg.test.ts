import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { niceTicks } from '../../../src/report/charts/axis.js';
import { renderBarChart } from '../../../src/report/charts/bar-chart.js';
import type { BarChartSpec, LineChartSpec } from '../../../src/report/charts/chart-spec.js';
import { renderLineChart } from '../../../src/report/charts/line-chart.js';

const lineSpec: LineChartSpec = {
  kind: 'line',
  step: 3,
  title: 'Orders <per> month',
  sourceNote: 'all 4 rows',
  timeColumn: 'month',
  valueColumn: 'orders',
  segments: [
    [
      { time: Date.UTC(2024, 0, 1), label: '2024-01', value: 1200 },
      { time: Date.UTC(2024, 1, 1), label: '2024-02', value: 800 },
    ],
    [
      { time: Date.UTC(2024, 8, 1), label: '2024-09', value: 2500 },
      { time: Date.UTC(2024, 9, 1), label: '2024-10', value: 2300 },
    ],
  ],
  omittedRows: 6,
};

const barSpec: BarChartSpec = {
  kind: 'bar',
  step: 4,
  title: 'Sessions by device',
  sourceNote: 'all 2 rows',
  dimensionLabel: 'device',
  metricLabel: 'sessions',
  bars: [
    { label: '<img src=x>', value: 97_410 },
    { label: 'desktop', value: -61 },
  ],
};

describe('when a line chart is rendered', () => {
  const svg = renderLineChart(lineSpec).markup;

  it('labels both axes, the extremes and the gap, with an escaped title', () => {
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('<title>Orders &lt;per&gt; month: orders by month</title>');
    expect(svg).toContain('>month</text>');
    expect(svg).toContain('>orders</text>');
    expect(svg).toContain('>2.5k</text>');
    expect(svg).toContain('>800</text>');
    expect(svg).toContain('6 rows not in digest');
    expect(svg.match(/<polyline/g)).toHaveLength(2);
  });

  it('is byte-identical when rendered twice', () => {
    expect(renderLineChart(lineSpec).markup).toBe(svg);
  });
});

describe('when a bar chart is rendered', () => {
  const svg = renderBarChart(barSpec).markup;

  it('escapes labels and draws one bar per value, negative bars included', () => {
    expect(svg).not.toContain('<img');
    expect(svg).toContain('&lt;img src=x&gt;');
    expect(svg.match(/<rect/g)).toHaveLength(2);
    expect(svg).toContain('>97.4k</text>');
    expect(svg).toContain('>-61</text>');
    expect(svg).toContain('>sessions</text>');
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
