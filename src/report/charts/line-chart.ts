/**
 * A line chart as an SVG string: the claim's metric along its series (periods, ordered steps, or bins of
 * a measure), the claimed window shaded and a baseline banded, a contribution's segment as a second line,
 * value labels at the ends and extremes in the claim's unit.
 */
import { html, type SafeHtml } from '../escape.js';
import { formatCompact, formatNumber } from '../format.js';
import { linearScale, niceTicks, svgNumber } from './axis.js';
import type { LineChartSpec } from './chart-spec.js';
import { chartTheme } from './chart-theme.js';
import { svgFrame } from './svg-frame.js';

const WIDTH = 560;
const HEIGHT = 250;
const MARGIN = { top: 24, right: 30, bottom: 48, left: 62 } as const;
/** Keeps x labels at least this far apart (a "YYYY-MM-DD" label is about 60 px wide). */
const MIN_X_LABEL_SPACING = 72;
/** A value label closer than this (px) to one already placed would overlap it. */
const LABEL_COLLISION = { x: 40, y: 14 } as const;

type Point = LineChartSpec['points'][number];

/** Start the axis at zero when the data sits not far above it, so small changes are not exaggerated. */
function valueDomain(values: readonly number[]): [number, number] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  const includeZero = min >= 0 && min <= max * 0.5;
  return [includeZero ? 0 : min, max];
}

/** Points worth a value label, most important first: highest, lowest (placed below its point), first, last. */
function labelledPoints(points: readonly Point[]): Array<{ index: number; below: boolean }> {
  let lowest = 0;
  let highest = 0;
  points.forEach((point, index) => {
    if ((point.value ?? 0) < (points[lowest]?.value ?? 0)) lowest = index;
    if ((point.value ?? 0) > (points[highest]?.value ?? 0)) highest = index;
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
    // the last label may be anchored at its end, reaching a whole label's width to the left
    const room = MIN_X_LABEL_SPACING * 1.5;
    while (kept.length > 0 && positionOf(lastIndex) - positionOf(kept[kept.length - 1]) < room) kept.pop();
    kept.push(lastIndex);
  }
  return kept;
}

/** Runs of consecutive points that have a value: a missing value breaks the line. */
function runs(points: readonly Point[], pick: (point: Point) => number | null | undefined): Array<Array<{ x: number; y: number }>> {
  const result: Array<Array<{ x: number; y: number }>> = [];
  let current: Array<{ x: number; y: number }> = [];
  for (const point of points) {
    const value = pick(point);
    if (typeof value === 'number') current.push({ x: point.x, y: value });
    else if (current.length > 0) {
      result.push(current);
      current = [];
    }
  }
  if (current.length > 0) result.push(current);
  return result;
}

export function renderLineChart(spec: LineChartSpec): SafeHtml {
  const { points, format } = spec;
  const plotBottom = HEIGHT - MARGIN.bottom;
  const plotRight = WIDTH - MARGIN.right;
  const xs = points.map((point) => point.x);
  const [minX, maxX] = [Math.min(...xs), Math.max(...xs)];
  const step = points.length > 1 ? (maxX - minX) / (points.length - 1) : 1;
  // half a step of room at each end, so a shaded first or last period is visible
  const x = linearScale(minX - step / 2, maxX + step / 2, MARGIN.left, plotRight);
  const values = [
    ...points.flatMap((point) => [point.value, point.segment_value]).filter((value): value is number => typeof value === 'number'),
    ...spec.references.map((reference) => reference.value),
  ];
  const [low, high] = valueDomain(values.length > 0 ? values : [0]);
  const ticks = niceTicks(low, high, 4);
  const y = linearScale(ticks[0] ?? low, ticks[ticks.length - 1] ?? high, plotBottom, MARGIN.top);

  const bands = (['baseline', 'window'] as const).map((span) => {
    const inside = points.filter((point) => point.span === span);
    const first = inside[0];
    const last = inside.at(-1);
    if (!first || !last) return '';
    const left = Math.max(MARGIN.left, x(first.x - step / 2));
    const right = Math.min(plotRight, x(last.x + step / 2));
    const fill = span === 'window' ? chartTheme.windowFill : chartTheme.baselineFill;
    return html`<rect class="span-${span}" x="${svgNumber(left)}" y="${MARGIN.top}" width="${svgNumber(Math.max(right - left, 1))}" height="${plotBottom - MARGIN.top}" fill="${fill}" fill-opacity="0.6"><title>${span === 'window' ? 'claimed window' : 'baseline'}: ${first.label === last.label ? first.label : `${first.label} to ${last.label}`}</title></rect>`;
  });
  const grid = ticks.map(
    (tick) =>
      html`<line x1="${MARGIN.left}" x2="${plotRight}" y1="${svgNumber(y(tick))}" y2="${svgNumber(y(tick))}" stroke="${chartTheme.grid}"/><text x="${MARGIN.left - 8}" y="${svgNumber(y(tick) + 4)}" text-anchor="end" fill="${chartTheme.mutedText}">${format.tick(tick)}</text>`,
  );
  const xLabels = spec.numericAxis
    ? niceTicks(minX, maxX, 5)
        .filter((tick) => tick >= minX - step / 2 && tick <= maxX + step / 2)
        .map(
          (tick) =>
            html`<text x="${svgNumber(x(tick))}" y="${plotBottom + 16}" text-anchor="middle" fill="${chartTheme.mutedText}">${formatCompact(tick)}</text>`,
        )
    : xLabelIndices(points.map((point) => x(point.x))).map((index) => {
        const point = points[index];
        if (!point) return '';
        // a label centred on the last point would run past the right edge
        const anchor = x(point.x) > WIDTH - MIN_X_LABEL_SPACING / 2 - MARGIN.right ? 'end' : 'middle';
        return html`<text x="${svgNumber(x(point.x))}" y="${plotBottom + 16}" text-anchor="${anchor}" fill="${chartTheme.mutedText}">${point.label}</text>`;
      });
  const line = (pick: (point: Point) => number | null | undefined, colour: string) =>
    runs(points, pick).map(
      (run) =>
        html`<polyline points="${run.map((point) => `${svgNumber(x(point.x))},${svgNumber(y(point.y))}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="2" stroke-linejoin="round"/>`,
    );
  const dots = (pick: (point: Point) => number | null | undefined, colour: string, name: string) =>
    points.map((point) => {
      const value = pick(point);
      if (typeof value !== 'number') return '';
      return html`<circle cx="${svgNumber(x(point.x))}" cy="${svgNumber(y(value))}" r="3" fill="#fff" stroke="${colour}" stroke-width="1.5"><title>${name}${point.label}: ${format.label(value)} (${formatNumber(point.rows)} rows)</title></circle>`;
    });
  const references = spec.references.map(
    (reference) =>
      html`<g class="reference"><title>${reference.label}: ${format.label(reference.value)}</title><line x1="${MARGIN.left}" x2="${plotRight}" y1="${svgNumber(y(reference.value))}" y2="${svgNumber(y(reference.value))}" stroke="${chartTheme.reference}" stroke-dasharray="5 3"/></g>`,
  );
  const placed: Array<{ x: number; y: number }> = [];
  const valueLabels = labelledPoints(points).map(({ index, below }) => {
    const point = points[index];
    if (!point || point.value === null) return '';
    const labelX = x(point.x);
    const labelY = below ? y(point.value) + 17 : y(point.value) - 9;
    if (placed.some((other) => Math.abs(other.x - labelX) < LABEL_COLLISION.x && Math.abs(other.y - labelY) < LABEL_COLLISION.y)) return '';
    placed.push({ x: labelX, y: labelY });
    const anchor = index === 0 ? 'start' : index === points.length - 1 ? 'end' : 'middle';
    return html`<text x="${svgNumber(labelX)}" y="${svgNumber(labelY)}" text-anchor="${anchor}" font-weight="600">${format.label(point.value)}</text>`;
  });
  const axes = html`<line x1="${MARGIN.left}" x2="${plotRight}" y1="${plotBottom}" y2="${plotBottom}" stroke="${chartTheme.axis}"/><text x="${svgNumber((MARGIN.left + plotRight) / 2)}" y="${HEIGHT - 8}" text-anchor="middle" fill="${chartTheme.mutedText}">${spec.groupAxis}</text><text transform="translate(14 ${svgNumber((MARGIN.top + plotBottom) / 2)}) rotate(-90)" text-anchor="middle" fill="${chartTheme.mutedText}">${spec.valueAxis}</text>`;
  const segmentName = spec.segmentLine ? `${spec.segmentLine}, ` : '';

  return svgFrame({
    width: WIDTH,
    height: HEIGHT,
    title: spec.title,
    body: html`${bands}${grid}${references}${axes}${line((point) => point.value, chartTheme.series)}${spec.segmentLine ? line((point) => point.segment_value, chartTheme.segmentSeries) : ''}${dots((point) => point.value, chartTheme.series, '')}${spec.segmentLine ? dots((point) => point.segment_value, chartTheme.segmentSeries, segmentName) : ''}${valueLabels}${xLabels}`,
  });
}
