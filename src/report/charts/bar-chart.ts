/**
 * A horizontal bar chart as an SVG string: the grouping's values on the left in the spec's order, the
 * value at each bar's end in the claim's unit, the claimed segment in a strong colour, the pooled and
 * missing groups in grey, and reference lines (the comparison, a median, a fence) dashed across.
 */
import { html, type SafeHtml } from '../escape.js';
import { formatNumber, truncate } from '../format.js';
import { linearScale, niceTicks, svgNumber } from './axis.js';
import { BAR_LABEL_MAX_CHARS, chartTheme } from './chart-theme.js';
import type { BarChartSpec } from './chart-spec.js';
import { svgFrame } from './svg-frame.js';

const WIDTH = 560;
const LABEL_WIDTH = 150;
const VALUE_ROOM = 60;
const TOP = 26;
const ROW_HEIGHT = 26;
const BAR_THICKNESS = 16;
const BOTTOM = 42;

export function renderBarChart(spec: BarChartSpec): SafeHtml {
  const values = [...spec.bars.map((bar) => bar.value ?? 0), ...spec.references.map((reference) => reference.value)];
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), 4);
  const plotLeft = LABEL_WIDTH;
  const plotRight = WIDTH - VALUE_ROOM;
  const x = linearScale(ticks[0] ?? 0, ticks[ticks.length - 1] ?? 1, plotLeft, plotRight);
  const plotBottom = TOP + spec.bars.length * ROW_HEIGHT;
  const height = plotBottom + BOTTOM;
  const zero = x(0);
  const { format } = spec;

  const grid = ticks.map(
    (tick) =>
      html`<line x1="${svgNumber(x(tick))}" x2="${svgNumber(x(tick))}" y1="${TOP}" y2="${plotBottom}" stroke="${chartTheme.grid}"/><text x="${svgNumber(x(tick))}" y="${plotBottom + 15}" text-anchor="middle" fill="${chartTheme.mutedText}">${format.tick(tick)}</text>`,
  );
  const bars = spec.bars.map((bar, index) => {
    const rowTop = TOP + index * ROW_HEIGHT;
    const barTop = rowTop + (ROW_HEIGHT - BAR_THICKNESS) / 2;
    const labelY = svgNumber(rowTop + ROW_HEIGHT / 2 + 4);
    const strong = bar.role === 'segment' || bar.role === 'comparison';
    const label = html`<text x="${LABEL_WIDTH - 10}" y="${labelY}" text-anchor="end"${strong ? html` font-weight="700"` : ''}>${truncate(bar.label, BAR_LABEL_MAX_CHARS)}</text>`;
    const rows = `${formatNumber(bar.rows)} rows`;
    if (bar.value === null)
      return html`<g><title>${bar.label}: nothing to measure (${rows})</title>${label}<text x="${svgNumber(zero + 5)}" y="${labelY}" fill="${chartTheme.mutedText}">no value</text></g>`;
    const end = x(bar.value);
    const [left, right] = bar.value >= 0 ? [zero, end] : [end, zero];
    const valueX = bar.value >= 0 ? right + 5 : left - 5;
    return html`<g class="bar-${bar.role}"><title>${bar.label}: ${format.label(bar.value)} (${rows})</title>${label}<rect x="${svgNumber(left)}" y="${svgNumber(barTop)}" width="${svgNumber(Math.max(right - left, 1))}" height="${BAR_THICKNESS}" rx="2" fill="${chartTheme.bar[bar.role]}"/><text x="${svgNumber(valueX)}" y="${labelY}" text-anchor="${bar.value >= 0 ? 'start' : 'end'}" font-weight="${strong ? '700' : '500'}">${format.label(bar.value)}</text></g>`;
  });
  const references = spec.references.map(
    (reference) =>
      html`<g class="reference"><title>${reference.label}: ${format.label(reference.value)}</title><line x1="${svgNumber(x(reference.value))}" x2="${svgNumber(x(reference.value))}" y1="${TOP - 6}" y2="${plotBottom}" stroke="${chartTheme.reference}" stroke-width="1.5" stroke-dasharray="5 3"/></g>`,
  );
  const axes = html`<line x1="${svgNumber(zero)}" x2="${svgNumber(zero)}" y1="${TOP}" y2="${plotBottom}" stroke="${chartTheme.axis}"/><text x="${LABEL_WIDTH - 10}" y="${TOP - 10}" text-anchor="end" fill="${chartTheme.mutedText}">${truncate(spec.groupAxis, BAR_LABEL_MAX_CHARS)}</text><text x="${svgNumber((plotLeft + plotRight) / 2)}" y="${height - 8}" text-anchor="middle" fill="${chartTheme.mutedText}">${spec.valueAxis}</text>`;

  return svgFrame({
    width: WIDTH,
    height,
    title: spec.title,
    body: html`${grid}${bars}${references}${axes}`,
  });
}
