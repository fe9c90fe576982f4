/**
 * Choosing a chart for one exploration step from its digest: a line chart for a time series,
 * else a bar chart of a dimension against a metric, else a bar chart of a column's most frequent
 * values. Pure data selection; the renderers turn a spec into SVG.
 */
import type { Cell, ExplorationStep, Row } from '../../domain/index.js';
import { formatNumber } from '../format.js';
import { columnNames } from '../row-columns.js';
import { evidenceRows, type EvidenceRows } from './evidence-rows.js';
import { timeLabels, timeValue } from './time-value.js';

/** Fewer points than this is not a trend. */
export const LINE_CHART_MIN_POINTS = 3;
/** More bars than this stop being readable at report width; the largest are kept. */
export const BAR_CHART_MAX_BARS = 12;
/** A bar chart of one bar says nothing a number would not. */
const BAR_CHART_MIN_BARS = 2;

export interface LinePoint {
  time: number;
  label: string;
  value: number;
}

interface ChartBase {
  step: number;
  title: string;
  /** Where the plotted rows come from, relative to the full result. */
  sourceNote: string;
}

export interface LineChartSpec extends ChartBase {
  kind: 'line';
  timeColumn: string;
  valueColumn: string;
  /** Runs of consecutive rows; a gap between segments stands for rows the digest did not keep. */
  segments: LinePoint[][];
  omittedRows: number;
}

export interface BarChartSpec extends ChartBase {
  kind: 'bar';
  dimensionLabel: string;
  metricLabel: string;
  bars: Array<{ label: string; value: number }>;
}

export type ChartSpec = LineChartSpec | BarChartSpec;

function valuesOf(rows: readonly Row[], column: string): Cell[] {
  return rows.map((row) => row[column] ?? null).filter((cell) => cell !== null);
}

function isNumericColumn(rows: readonly Row[], column: string): boolean {
  const values = valuesOf(rows, column);
  return values.length > 0 && values.every((cell) => typeof cell === 'number' && Number.isFinite(cell));
}

function isTimeColumn(rows: readonly Row[], column: string): boolean {
  const values = valuesOf(rows, column);
  return values.length > 0 && values.every((cell) => timeValue(cell) !== undefined);
}

function hasUniqueValues(rows: readonly Row[], column: string): boolean {
  const values = rows.map((row) => String(row[column] ?? null));
  return new Set(values).size === values.length;
}

/** Identifiers are numbers but not measures. */
function isIdentifierName(column: string): boolean {
  return /(^|_)id$/i.test(column);
}

/** Column-name words are matched on their first letters so "customers" meets "customer" and "converts" meets "conversion". */
const MATCH_PREFIX_CHARS = 5;

/** How many words of a column name occur in the text the chart illustrates (insight names, descriptions, indicators). */
function relevance(column: string, focusText: string): number {
  return column
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word.length >= 3)
    .filter((word) => focusText.includes(word.slice(0, MATCH_PREFIX_CHARS))).length;
}

/** The measure to plot: the numeric column the insights talk about most, else the first one. */
function metricColumn(rows: readonly Row[], exclude: string, focusText: string): string | undefined {
  const candidates = columnNames(rows).filter((name) => name !== exclude && !isIdentifierName(name) && isNumericColumn(rows, name));
  const focus = focusText.toLowerCase();
  let best: string | undefined;
  let bestScore = -1;
  for (const candidate of candidates) {
    const score = relevance(candidate, focus);
    if (score > bestScore) [best, bestScore] = [candidate, score];
  }
  return best;
}

function stepTitle(step: ExplorationStep): string {
  return step.query_purpose.trim() || `Step ${step.step}`;
}

function lineChart(step: ExplorationStep, evidence: EvidenceRows, focusText: string): LineChartSpec | undefined {
  const rows = evidence.segments.flat();
  if (rows.length < LINE_CHART_MIN_POINTS) return undefined;
  const timeColumn = columnNames(rows).find((name) => isTimeColumn(rows, name));
  if (!timeColumn || !hasUniqueValues(rows, timeColumn)) return undefined;
  const valueColumn = metricColumn(rows, timeColumn, focusText);
  if (!valueColumn) return undefined;
  const isPlottable = (row: Row): boolean => typeof row[valueColumn] === 'number' && timeValue(row[timeColumn]) !== undefined;
  const rawTimes = rows.filter(isPlottable).map((row) => String(row[timeColumn]));
  const labelByRaw = new Map(timeLabels(rawTimes).map((label, index) => [rawTimes[index] ?? '', label]));
  const segments = evidence.segments
    .map((segment) =>
      segment
        .filter(isPlottable)
        .map((row) => ({
          time: timeValue(row[timeColumn]) ?? 0,
          label: labelByRaw.get(String(row[timeColumn])) ?? '',
          value: Number(row[valueColumn]),
        }))
        .sort((left, right) => left.time - right.time),
    )
    .filter((segment) => segment.length > 0)
    .sort((left, right) => (left[0]?.time ?? 0) - (right[0]?.time ?? 0));
  if (segments.flat().length < LINE_CHART_MIN_POINTS) return undefined;
  return {
    kind: 'line',
    step: step.step,
    title: stepTitle(step),
    sourceNote: evidence.description,
    timeColumn,
    valueColumn,
    segments,
    omittedRows: evidence.segments.length > 1 ? evidence.omittedRows : 0,
  };
}

function dimensionBarChart(step: ExplorationStep, evidence: EvidenceRows, focusText: string): BarChartSpec | undefined {
  // Bars need rows in one run; with head and tail only, the head is the honest subset to show.
  const rows = evidence.segments[0] ?? [];
  const names = columnNames(rows);
  const dimension = names.find((name) => !isNumericColumn(rows, name) && hasUniqueValues(rows, name));
  if (!dimension) return undefined;
  const metric = metricColumn(rows, dimension, focusText);
  if (!metric) return undefined;
  const bars = rows
    .filter((row) => typeof row[metric] === 'number')
    .map((row) => ({
      label: row[dimension] === null || row[dimension] === undefined ? 'null' : String(row[dimension]),
      value: Number(row[metric]),
    }));
  if (bars.length < BAR_CHART_MIN_BARS) return undefined;
  const timeOrdered = isTimeColumn(rows, dimension);
  const ordered = timeOrdered ? bars : [...bars].sort((left, right) => right.value - left.value);
  const shown = ordered.slice(0, BAR_CHART_MAX_BARS);
  const rowsNote =
    evidence.segments.length > 1 ? `first ${formatNumber(rows.length)} of ${formatNumber(evidence.rowCount)} rows` : evidence.description;
  const truncationNote = shown.length < bars.length ? `; largest ${formatNumber(shown.length)} shown` : '';
  return {
    kind: 'bar',
    step: step.step,
    title: stepTitle(step),
    sourceNote: `${rowsNote}${truncationNote}`,
    dimensionLabel: dimension,
    metricLabel: metric,
    bars: shown,
  };
}

function topValuesBarChart(step: ExplorationStep): BarChartSpec | undefined {
  const compact = step.compact;
  // Top values only say something when values repeat; a column of distinct values would be bars of 1.
  const column = compact?.columns.find(
    (summary) =>
      (summary.kind === 'string' || summary.kind === 'boolean') &&
      (summary.top?.length ?? 0) >= BAR_CHART_MIN_BARS &&
      (summary.top?.[0]?.count ?? 0) > 1,
  );
  if (!compact || !column?.top) return undefined;
  return {
    kind: 'bar',
    step: step.step,
    title: stepTitle(step),
    sourceNote: `most frequent values of ${column.name} among ${formatNumber(compact.row_count)} result rows`,
    dimensionLabel: column.name,
    metricLabel: 'rows in result',
    bars: column.top.slice(0, BAR_CHART_MAX_BARS).map((entry) => ({ label: String(entry.value), value: entry.count })),
  };
}

/**
 * The chart a step's evidence supports, or undefined when it has nothing chartable.
 * `focusText` (what the chart is meant to illustrate) picks the measure when a result has several.
 */
export function chartForStep(step: ExplorationStep, focusText = ''): ChartSpec | undefined {
  if (step.action !== 'query' || step.error) return undefined;
  const evidence = evidenceRows(step);
  const fromRows = evidence ? (lineChart(step, evidence, focusText) ?? dimensionBarChart(step, evidence, focusText)) : undefined;
  return fromRows ?? topValuesBarChart(step);
}
