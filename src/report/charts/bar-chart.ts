/** A horizontal bar chart as an SVG string: dimension labels on the left, value at each bar's end. */
import { formatCompact, formatNumber, truncate } from '../format.js';
import { html, type SafeHtml } from '../escape.js';
import { linearScale, niceTicks, svgNumber } from './axis.js';
import { BAR_LABEL_MAX_CHARS, chartTheme } from './chart-theme.js';
import type { BarChartSpec } from './chart-spec.js';
import { svgFrame } from './svg-frame.js';

const WIDTH = 560;
const LABEL_WIDTH = 150;
const VALUE_ROOM = 52;
const TOP = 10;
const ROW_HEIGHT = 26;
const BAR_THICKNESS = 16;
const BOTTOM = 42;

export function renderBarChart(spec: BarChartSpec): SafeHtml {
  const values = spec.bars.map((bar) => bar.value);
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), 4);
  const plotLeft = LABEL_WIDTH;
  const plotRight = WIDTH - VALUE_ROOM;
  const x = linearScale(ticks[0] ?? 0, ticks[ticks.length - 1] ?? 1, plotLeft, plotRight);
  const plotBottom = TOP + spec.bars.length * ROW_HEIGHT;
  const height = plotBottom + BOTTOM;
  const zero = x(0);

  const grid = ticks.map(
    (tick) =>
      html`<line x1="${svgNumber(x(tick))}" x2="${svgNumber(x(tick))}" y1="${TOP}" y2="${plotBottom}" stroke="${chartTheme.grid}"/><text x="${svgNumber(x(tick))}" y="${plotBottom + 15}" text-anchor="middle" fill="${chartTheme.mutedText}">${formatCompact(tick)}</text>`,
  );
  const bars = spec.bars.map((bar, index) => {
    const rowTop = TOP + index * ROW_HEIGHT;
    const barTop = rowTop + (ROW_HEIGHT - BAR_THICKNESS) / 2;
    const end = x(bar.value);
    const [left, right] = bar.value >= 0 ? [zero, end] : [end, zero];
    const labelY = svgNumber(rowTop + ROW_HEIGHT / 2 + 4);
    const valueX = bar.value >= 0 ? right + 5 : left - 5;
    return html`<g><title>${bar.label}: ${formatNumber(bar.value)}</title><text x="${LABEL_WIDTH - 10}" y="${labelY}" text-anchor="end">${truncate(bar.label, BAR_LABEL_MAX_CHARS)}</text><rect x="${svgNumber(left)}" y="${svgNumber(barTop)}" width="${svgNumber(Math.max(right - left, 1))}" height="${BAR_THICKNESS}" rx="2" fill="${bar.value >= 0 ? chartTheme.bar : chartTheme.negativeBar}"/><text x="${svgNumber(valueX)}" y="${labelY}" text-anchor="${bar.value >= 0 ? 'start' : 'end'}" font-weight="600">${formatCompact(bar.value)}</text></g>`;
  });
  const axes = html`<line x1="${svgNumber(zero)}" x2="${svgNumber(zero)}" y1="${TOP}" y2="${plotBottom}" stroke="${chartTheme.axis}"/><text x="${svgNumber((plotLeft + plotRight) / 2)}" y="${height - 8}" text-anchor="middle" fill="${chartTheme.mutedText}">${spec.metricLabel}</text>`;

  return svgFrame({
    width: WIDTH,
    height,
    title: `${spec.title}: ${spec.metricLabel} by ${spec.dimensionLabel}`,
    body: html`${grid}${bars}${axes}`,
  });
}
