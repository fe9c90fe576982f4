/**
 * An insight's chart, from its own claim and the series the verifier stored for it
 * (`validation.claim_check.chart`, docs/claims.md): titled with what it plots in the pack's nouns, the
 * value axis in the claim's unit, one grouping per axis, bars in natural order, series as lines with the
 * claimed window marked. Pure data selection; the renderers turn a spec into SVG. An insight with
 * nothing to draw gets the one-line reason instead.
 */
import { claimNoun, groupColumnWords, groupPhrase, metricPhrase } from '../../discovery/claims/claim-text.js';
import type { Claim, ClaimChart, ClaimChartPoint, ClaimChartReference, Insight } from '../../domain/index.js';
import { formatNumber } from '../format.js';
import { orderBuckets } from './bucket-order.js';
import { type ValueFormat, valueFormatFor } from './value-format.js';

interface ChartBase {
  /** What is plotted, in words: "Checkout abandonment rate by device". */
  title: string;
  /** The value axis: the measure and its unit, "checkout abandonment rate (%)". */
  valueAxis: string;
  /** The other axis: the grouping, "device", "order date (week)". */
  groupAxis: string;
  format: ValueFormat;
  references: ClaimChartReference[];
  /** Lines under the title: what is highlighted, what was pooled or left out. */
  captions: string[];
}

export interface BarChartSpec extends ChartBase {
  kind: 'bar';
  bars: ClaimChartPoint[];
}

export interface LineChartSpec extends ChartBase {
  kind: 'line';
  /** Points in axis order, each with its position. */
  points: Array<ClaimChartPoint & { x: number }>;
  /** A numeric axis (bins of a measure) gets numeric ticks; a time or ordered axis gets the points' labels. */
  numericAxis: boolean;
  /** The contribution's second line: the segment, named. */
  segmentLine?: string;
}

export type ChartSpec = BarChartSpec | LineChartSpec;

export type InsightChart = { spec: ChartSpec; reason?: undefined } | { spec?: undefined; reason: string };

function capitalise(text: string): string {
  return text.length === 0 ? text : `${text[0]?.toUpperCase()}${text.slice(1)}`;
}

/** What the value axis measures, in words, as the claim plots it (a share claim plots shares); a bracketed unit inside the label is left to the axis. */
function measureWords(claim: Claim): string {
  return plottedMeasure(claim).replace(/\s*\((USD|EUR|GBP|%)\)/g, '');
}

function plottedMeasure(claim: Claim): string {
  if (claim.kind === 'share') {
    const phrase = metricPhrase(claim);
    return claim.metric.kind === 'sum' ? `share of ${phrase.replace(/^total /, 'the total ')}` : `share of ${claimNoun(claim)}`;
  }
  return metricPhrase(claim);
}

const CALENDAR_AXIS: Record<string, string> = {
  hour_of_day: 'hour of the day',
  day_of_week: 'day of the week',
  month_of_year: 'month of the year',
};

/** The series axis in words: "order date (week)", "hour of the day", "player level". */
function seriesAxis(claim: Claim): string {
  return claim.series ? groupingWords(claim.series) : 'period';
}

/** A grouping column in words, with its calendar position or period when it has a grain: "device", "month of the year", "signup date (week)". */
function groupingWords(group: { column: string; label?: string | undefined; grain?: string | undefined }): string {
  const calendar = CALENDAR_AXIS[group.grain ?? ''];
  if (calendar) return calendar;
  const words = groupColumnWords(group);
  return group.grain ? `${words} (${group.grain})` : words;
}

function seriesTitle(claim: Claim): string {
  const series = claim.series;
  const measure = capitalise(measureWords(claim));
  const calendar = CALENDAR_AXIS[series?.grain ?? ''];
  if (calendar) return `${measure} by ${calendar}`;
  if (series?.grain) return `${measure} per ${series.grain}`;
  return `${measure} by ${series ? groupColumnWords(series) : 'period'}`;
}

function axisTitle(words: string, format: ValueFormat): string {
  return format.unit ? `${words} (${format.unit})` : words;
}

function referenceCaption(references: readonly ClaimChartReference[], format: ValueFormat): string | undefined {
  if (references.length === 0) return undefined;
  return `Dashed: ${references.map((reference) => `${reference.label}, ${format.label(reference.value)}`).join(' · ')}`;
}

function barsSpec(claim: Claim, chart: ClaimChart, format: ValueFormat): BarChartSpec {
  const segment = claim.segment;
  const nounText = claimNoun(claim);
  const bars = orderBuckets(chart.points);
  const comparison = claim.comparison?.kind === 'group' ? claim.comparison.group : undefined;
  const captions = [
    segment ? `Dark blue: ${groupPhrase(segment, nounText)}` : '',
    comparison && bars.some((bar) => bar.role === 'comparison') ? `Orange: ${groupPhrase(comparison, nounText)}` : '',
    referenceCaption(chart.references, format) ?? '',
    chart.note ?? '',
  ].filter((caption) => caption !== '');
  return {
    kind: 'bar',
    title: `${capitalise(measureWords(claim))} by ${segment ? groupingWords(segment) : 'group'}`,
    valueAxis: axisTitle(measureWords(claim), format),
    groupAxis: segment ? groupingWords(segment) : 'group',
    format,
    references: chart.references,
    captions,
    bars,
  };
}

function windowCaption(points: readonly ClaimChartPoint[], span: 'window' | 'baseline', name: string): string {
  const inside = points.filter((point) => point.span === span);
  const first = inside[0];
  const last = inside.at(-1);
  if (!first || !last) return '';
  return `${name}: ${first.label === last.label ? first.label : `${first.label} to ${last.label}`}`;
}

function lineSpec(claim: Claim, chart: ClaimChart, format: ValueFormat): LineChartSpec {
  const points = chart.points.map((point, index) => ({ ...point, x: point.x ?? index })).sort((left, right) => left.x - right.x);
  const nounText = claimNoun(claim);
  const contribution = claim.kind === 'contribution' && claim.segment ? groupPhrase(claim.segment, nounText) : undefined;
  const population = claim.kind !== 'contribution' && claim.segment ? groupPhrase(claim.segment, nounText) : undefined;
  const captions = [
    population ? `Only ${population}` : '',
    contribution ? `Blue: all ${nounText} · orange: ${contribution}` : '',
    windowCaption(points, 'window', claim.kind === 'contribution' ? 'Shaded, the window' : 'Shaded, the claimed window'),
    windowCaption(points, 'baseline', 'Light band, the baseline'),
    chart.note ?? '',
  ].filter((caption) => caption !== '');
  return {
    kind: 'line',
    title: contribution ? `${seriesTitle(claim)}: all ${nounText} and ${contribution}` : seriesTitle(claim),
    valueAxis: axisTitle(measureWords(claim), format),
    groupAxis: seriesAxis(claim),
    format,
    references: chart.references,
    captions,
    points,
    numericAxis: false,
    ...(contribution ? { segmentLine: contribution } : {}),
  };
}

function binnedSpec(claim: Claim, chart: ClaimChart, format: ValueFormat): LineChartSpec {
  const x = claim.x ? (claim.x.label || claim.x.column).replace(/_/g, ' ') : 'the other measure';
  const population = claim.segment ? `Only ${groupPhrase(claim.segment, claimNoun(claim))}` : '';
  const rows = chart.points.reduce((sum, point) => sum + point.rows, 0);
  return {
    kind: 'line',
    title: `${capitalise(measureWords(claim))} by ${x}`,
    valueAxis: axisTitle(measureWords(claim), format),
    groupAxis: `${x} (bins of equal width)`,
    format,
    references: chart.references,
    captions: [population, `Each point: the ${claimNoun(claim)} in one bin of ${x}, ${formatNumber(rows)} in all`, chart.note ?? ''].filter(
      (caption) => caption !== '',
    ),
    points: chart.points.map((point, index) => ({ ...point, x: point.x ?? index })),
    numericAxis: true,
  };
}

function outlierSpec(claim: Claim, chart: ClaimChart, format: ValueFormat): BarChartSpec {
  const words = (claim.metric.label || claim.metric.column || 'value').replace(/\s*\([^()]*\)\s*$/, '');
  const high = claim.segment?.from !== undefined;
  const nounText = claimNoun(claim);
  return {
    kind: 'bar',
    title: `${capitalise(words)} of the flagged ${nounText}, against the others' median`,
    valueAxis: axisTitle(words, format),
    groupAxis: `flagged ${nounText}, ${high ? 'largest' : 'smallest'} first`,
    format,
    references: chart.references,
    captions: [referenceCaption(chart.references, format) ?? '', chart.note ?? ''].filter((caption) => caption !== ''),
    bars: chart.points,
  };
}

/** The chart an insight's claim supports, or the one-line reason it has none. */
export function chartForInsight(insight: Insight): InsightChart {
  const claim = insight.claim;
  if (!claim) return { reason: 'No chart: the insight states no claim the engine can measure.' };
  const check = insight.validation?.claim_check;
  if (!check) {
    if (insight.validation?.status === 'error')
      return { reason: 'No chart: the verification query failed, so nothing was measured to draw.' };
    if (insight.validation?.status === 'rejected' && insight.validation.claim_check === undefined)
      return { reason: 'No chart: the claim names data the warehouse does not have.' };
    return { reason: 'No chart: this insight was verified before the engine stored charts.' };
  }
  if (!check.chart)
    return {
      reason: check.chart_unavailable
        ? `No chart: ${check.chart_unavailable}.`
        : 'No chart: this insight was verified before the engine stored charts.',
    };
  const format = valueFormatFor(claim);
  switch (check.chart.shape) {
    case 'bars':
      return { spec: barsSpec(claim, check.chart, format) };
    case 'line':
      return { spec: lineSpec(claim, check.chart, format) };
    case 'binned':
      return { spec: binnedSpec(claim, check.chart, format) };
    case 'outlier':
      return { spec: outlierSpec(claim, check.chart, format) };
  }
}
