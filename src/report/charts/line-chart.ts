/** A time-series line chart as an SVG string: one series, value labels at the ends and extremes, gaps drawn dashed. */
import { formatCompact, formatNumber } from '../format.js';
import { html, type SafeHtml } from '../escape.js';
import { linearScale, niceTicks, svgNumber } from './axis.js';
import { chartTheme } from './chart-theme.js';
import type { LineChartSpec, LinePoint } from './chart-spec.js';
import { svgFrame } from './svg-frame.js';

const WIDTH = 560;
const HEIGHT = 250;
const MARGIN = { top: 24, right: 30, bottom: 48, left: 62 } as const;
/** Keeps x labels at least this far apart (a "YYYY-MM-DD" label is about 60 px wide). */
const MIN_X_LABEL_SPACING = 72;
/** A value label closer than this (px) to one already placed would overlap it. */
const LABEL_COLLISION = { x: 40, y: 14 } as const;

/** Start the axis at zero when the data sits not far above it, so small changes are not exaggerated. */
function valueDomain(points: readonly LinePoint[]): [number, number] {
  const values = points.map((point) => point.value);
  const min = Math.min(...values);
  const max = Math.max(...values);
  const includeZero = min >= 0 && min <= max * 0.5;
  return [includeZero ? 0 : min, max];
}

/** Points worth a value label, most important first: highest, lowest (placed below its point), first, last. */
function labelledPoints(points: readonly LinePoint[]): Array<{ index: number; below: boolean }> {
  let lowest = 0;
  let highest = 0;
  points.forEach((point, index) => {
    if (point.value < (points[lowest]?.value ?? point.value)) lowest = index;
    if (point.value > (points[highest]?.value ?? point.value)) highest = index;
  });
  return [...new Set([highest, lowest, 0, points.length - 1])].map((index) => ({ index, below: index === lowest && lowest !== highest }));
}

/** Points to label on the x axis, left to right and never closer than the minimum spacing; the last point is preferred over its neighbour. */
function xLabelIndices(positions: readonly number[]): number[] {
  const kept: number[] = [];
  const positionOf = (index: number | undefined): number => (index === undefined ? Number.NEGATIVE_INFINITY : (positions[index] ?? 0));
  positions.forEach((position, index) => {
    if (position - positionOf(kept[kept.length - 1]) >= MIN_X_LABEL_SPACING) kept.push(index);
  });
  const lastIndex = positions.length - 1;
  if (kept[kept.length - 1] !== lastIndex) {
    while (kept.length > 0 && positionOf(lastIndex) - positionOf(kept[kept.length - 1]) < MIN_X_LABEL_SPACING) kept.pop();
    kept.push(lastIndex);
  }
  return kept;
}

export function renderLineChart(spec: LineChartSpec): SafeHtml {
  const points = spec.segments.flat();
  const plotBottom = HEIGHT - MARGIN.bottom;
  const plotRight = WIDTH - MARGIN.right;
  const times = points.map((point) => point.time);
  const [minTime, maxTime] = [Math.min(...times), Math.max(...times)];
  const x = linearScale(minTime, maxTime === minTime ? minTime + 1 : maxTime, MARGIN.left, plotRight);
  const [low, high] = valueDomain(points);
  const ticks = niceTicks(low, high, 4);
  const y = linearScale(ticks[0] ?? low, ticks[ticks.length - 1] ?? high, plotBottom, MARGIN.top);

  const grid = ticks.map(
    (tick) =>
      html`<line x1="${MARGIN.left}" x2="${plotRight}" y1="${svgNumber(y(tick))}" y2="${svgNumber(y(tick))}" stroke="${chartTheme.grid}"/><text x="${MARGIN.left - 8}" y="${svgNumber(y(tick) + 4)}" text-anchor="end" fill="${chartTheme.mutedText}">${formatCompact(tick)}</text>`,
  );
  const xLabels = xLabelIndices(points.map((point) => x(point.time))).map((index) => {
    const point = points[index];
    if (!point) return '';
    // A label centred on the last point would run past the right edge.
    const anchor = x(point.time) > WIDTH - MIN_X_LABEL_SPACING / 2 - MARGIN.right ? 'end' : 'middle';
    return html`<text x="${svgNumber(x(point.time))}" y="${plotBottom + 16}" text-anchor="${anchor}" fill="${chartTheme.mutedText}">${point.label}</text>`;
  });
  const areas = spec.segments.map((segment) => {
    const first = segment[0];
    const last = segment[segment.length - 1];
    if (!first || !last) return '';
    const line = segment.map((point) => `${svgNumber(x(point.time))},${svgNumber(y(point.value))}`).join(' ');
    return html`<polygon points="${svgNumber(x(first.time))},${plotBottom} ${line} ${svgNumber(x(last.time))},${plotBottom}" fill="${chartTheme.seriesFill}" fill-opacity="0.55"/><polyline points="${line}" fill="none" stroke="${chartTheme.series}" stroke-width="2" stroke-linejoin="round"/>`;
  });
  const gaps = spec.segments.slice(1).map((segment, index) => {
    const before = spec.segments[index]?.at(-1);
    const after = segment[0];
    if (!before || !after) return '';
    const [x1, y1, x2, y2] = [x(before.time), y(before.value), x(after.time), y(after.value)];
    return html`<line x1="${svgNumber(x1)}" y1="${svgNumber(y1)}" x2="${svgNumber(x2)}" y2="${svgNumber(y2)}" stroke="${chartTheme.axis}" stroke-width="1.5" stroke-dasharray="4 4"/><text x="${svgNumber((x1 + x2) / 2)}" y="${svgNumber(Math.min(y1, y2) - 10)}" text-anchor="middle" fill="${chartTheme.mutedText}">${formatNumber(spec.omittedRows)} rows not in digest</text>`;
  });
  const dots = points.map(
    (point) =>
      html`<circle cx="${svgNumber(x(point.time))}" cy="${svgNumber(y(point.value))}" r="3" fill="#fff" stroke="${chartTheme.series}" stroke-width="1.5"><title>${point.label}: ${formatNumber(point.value)}</title></circle>`,
  );
  const placed: Array<{ x: number; y: number }> = [];
  const valueLabels = labelledPoints(points).map(({ index, below }) => {
    const point = points[index];
    if (!point) return '';
    const labelX = x(point.time);
    const labelY = below ? y(point.value) + 17 : y(point.value) - 9;
    if (placed.some((other) => Math.abs(other.x - labelX) < LABEL_COLLISION.x && Math.abs(other.y - labelY) < LABEL_COLLISION.y)) return '';
    placed.push({ x: labelX, y: labelY });
    const anchor = index === 0 ? 'start' : index === points.length - 1 ? 'end' : 'middle';
    return html`<text x="${svgNumber(labelX)}" y="${svgNumber(labelY)}" text-anchor="${anchor}" font-weight="600">${formatCompact(point.value)}</text>`;
  });
  const axes = html`<line x1="${MARGIN.left}" x2="${plotRight}" y1="${plotBottom}" y2="${plotBottom}" stroke="${chartTheme.axis}"/><text x="${svgNumber((MARGIN.left + plotRight) / 2)}" y="${HEIGHT - 8}" text-anchor="middle" fill="${chartTheme.mutedText}">${spec.timeColumn}</text><text transform="translate(14 ${svgNumber((MARGIN.top + plotBottom) / 2)}) rotate(-90)" text-anchor="middle" fill="${chartTheme.mutedText}">${spec.valueColumn}</text>`;

  return svgFrame({
    width: WIDTH,
    height: HEIGHT,
    title: `${spec.title}: ${spec.valueColumn} by ${spec.timeColumn}`,
    body: html`${grid}${axes}${areas}${gaps}${dots}${valueLabels}${xLabels}`,
  });
}
