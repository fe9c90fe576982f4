/**
 * Change over time: a monthly series that moves steadily (first vs last months, share of steps in
 * one direction), a segment whose rate climbs while the others stay flat (Electronics refunds), and
 * a week far above the median week (a sign-up spike).
 */
import type { Cell } from '../../../domain/index.js';
import type { DigestStep } from '../readers/digests.js';
import { formatCount, formatMeasure, formatPercent, formatRatio, humanize, roundMetric } from '../text.js';
import { confidenceOf, severityOf, type Finding } from './finding.js';
import { describeMeasure } from './measure-names.js';
import { MIN_SEGMENT_SIZE } from './segment-gaps.js';
import { numberOf, segmentLabel, shapeOf } from './result-shape.js';

/** Periods a series needs before it can trend. */
const MIN_PERIODS = 5;
/** Periods averaged at each end. */
const EDGE_PERIODS = 3;
/** Change (either way) between the ends that counts as a trend. */
const MIN_TREND_RATIO = 1.5;
/** Share of period-to-period moves that must go the trend's way. */
const MIN_CONSISTENCY = 0.65;
/** A last period with fewer rows than this share of the median is still filling up: left out. */
const PARTIAL_PERIOD_SHARE = 0.5;
/** A week this many times the median week is a spike. */
const MIN_SPIKE_RATIO = 2;
/** A segment's rate must grow this much from the first to the last months while the rest stay within half of it. */
const MIN_SEGMENT_GROWTH = 2;
/** Rows a segment needs before its monthly rates are trusted. */
const MIN_TREND_SEGMENT_SIZE = 1_000;

function dateOf(cell: Cell | undefined): string {
  return typeof cell === 'string' ? cell.slice(0, 10) : segmentLabel(cell);
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function findMonthlyTrends(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape?.timeSegment || !step.complete || shape.countColumns.length === 0 || /^week$/.test(shape.segmentColumn)) return [];
  const countColumn = shape.countColumns[0] as string;
  const counts = step.rows.map((row) => numberOf(row[countColumn]) ?? 0);
  const typical = median(counts);
  let rows = step.rows;
  if ((counts.at(-1) ?? 0) < typical * PARTIAL_PERIOD_SHARE) rows = rows.slice(0, -1);
  if ((counts[0] ?? 0) < typical * PARTIAL_PERIOD_SHARE) rows = rows.slice(1);
  if (rows.length < MIN_PERIODS) return [];
  const findings: Finding[] = [];
  const allRows = rows;
  for (const measure of [countColumn, ...shape.rateColumns, ...shape.averageColumns]) {
    // a month without a value for the measure (no row has it yet) is a gap in the series, not its end
    rows = allRows.filter((row) => numberOf(row[measure]) !== null);
    if (rows.length < MIN_PERIODS) continue;
    const values = rows.map((row) => numberOf(row[measure]) as number);
    const first = mean(values.slice(0, EDGE_PERIODS));
    const last = mean(values.slice(-EDGE_PERIODS));
    if (first <= 0 || last <= 0) continue;
    const ratio = last / first;
    const magnitude = Math.max(ratio, 1 / ratio);
    if (magnitude < MIN_TREND_RATIO) continue;
    const moves = values.slice(1).map((value, index) => value - (values[index] as number));
    const consistent = moves.filter((move) => (ratio > 1 ? move > 0 : move < 0)).length / Math.max(1, moves.length);
    if (consistent < MIN_CONSISTENCY) continue;
    const isRate = shape.rateColumns.includes(measure);
    const words =
      measure === countColumn
        ? {
            phrase: `${humanize(countColumn)} per ${humanize(shape.segmentColumn)}`,
            gloss: `number of ${humanize(countColumn)}`,
            negative: false,
          }
        : describeMeasure(measure, countColumn, step.sql);
    const rising = ratio > 1;
    const lastRows = rows.slice(-EDGE_PERIODS);
    const affected = lastRows.reduce((sum, row) => sum + (numberOf(row[countColumn]) ?? 0), 0);
    const from = dateOf(rows[0]?.[shape.segmentColumn]);
    const to = dateOf(rows.at(-1)?.[shape.segmentColumn]);
    findings.push({
      kind: 'monthly_trend',
      steps: [step.step],
      strength: Math.abs(Math.log(ratio)) * consistent,
      name: `${words.phrase[0]?.toUpperCase() ?? ''}${words.phrase.slice(1)} ${rising ? 'rising' : 'falling'} ${humanize(shape.segmentColumn)} over ${humanize(shape.segmentColumn)}: ${formatMeasure(first, isRate)} → ${formatMeasure(last, isRate)} (${formatRatio(magnitude)})`,
      description: `From ${from} to ${to} (step ${step.step}), ${words.gloss} went from an average of ${formatMeasure(first, isRate)} in the first ${EDGE_PERIODS} periods to ${formatMeasure(last, isRate)} in the last ${EDGE_PERIODS}; ${formatPercent(consistent)} of period-to-period moves went the same way. Series: ${rows.map((row) => `${dateOf(row[shape.segmentColumn])} ${formatMeasure(numberOf(row[measure]) ?? 0, isRate)}`).join(', ')}.`,
      severity: severityOf(magnitude, 1),
      affectedCount: affected,
      confidence: confidenceOf(affected),
      riskScore: roundMetric(Math.min(1, (magnitude - 1) / 4)),
      metrics: {
        [`first_${EDGE_PERIODS}_${measure}`]: roundMetric(first),
        [`last_${EDGE_PERIODS}_${measure}`]: roundMetric(last),
        ratio: roundMetric(ratio),
        segment_column: shape.segmentColumn,
        segment_values: lastRows.map((row) => dateOf(row[shape.segmentColumn])).join('|'),
        segment_kind: 'date',
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatPercent(consistent)} of moves in one direction`, `${rows.length} periods`],
      targetSegment: `${humanize(countColumn)} in the last ${EDGE_PERIODS} ${humanize(shape.segmentColumn)}s`,
      dedupeKey: `${step.step}:${measure}`,
    });
  }
  return findings;
}

export function findSegmentTrends(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !step.complete || shape.countColumns.length === 0) return [];
  const firstColumn = step.rowColumns.find((name) => /^first_\d+_months_.+_rate$/.test(name));
  const lastColumn = step.rowColumns.find((name) => /^last_\d+_months_.+_rate$/.test(name));
  const slopeColumn = step.rowColumns.find((name) => /^monthly_change_.+_rate$/.test(name));
  if (!firstColumn || !lastColumn) return [];
  const measure = firstColumn.replace(/^first_\d+_months_/, '');
  const countColumn = shape.countColumns[0] as string;
  const rows = step.rows
    .map((row) => ({
      label: segmentLabel(row[shape.segmentColumn]),
      first: numberOf(row[firstColumn]),
      last: numberOf(row[lastColumn]),
      slope: slopeColumn ? numberOf(row[slopeColumn]) : null,
      count: numberOf(row[countColumn]) ?? 0,
      overall: numberOf(row[measure]),
    }))
    .filter(
      (row): row is typeof row & { first: number; last: number } =>
        row.first !== null && row.last !== null && row.first > 0 && row.count >= MIN_TREND_SEGMENT_SIZE,
    );
  if (rows.length < 2) return [];
  const growth = (row: { first: number; last: number }) => row.last / row.first;
  const ranked = [...rows].sort((left, right) => growth(right) - growth(left) || (left.label < right.label ? -1 : 1));
  const top = ranked[0] as (typeof rows)[number];
  const others = rows.filter((row) => row !== top);
  const otherGrowth = median(others.map(growth));
  if (growth(top) < MIN_SEGMENT_GROWTH || otherGrowth > growth(top) / 2 || top.last - top.first < 0.02) return [];
  const words = describeMeasure(measure, countColumn, step.sql);
  const dimension = humanize(shape.segmentColumn);
  const othersLast = median(others.map((row) => row.last));
  const months = firstColumn.match(/^first_(\d+)_months_/)?.[1] ?? '3';
  return [
    {
      kind: 'segment_trend',
      steps: [step.step],
      strength: Math.log(growth(top)) * 1.5,
      name: `${top.label}: ${words.phrase} rising month over month: ${formatPercent(top.first)} → ${formatPercent(top.last)} while other ${dimension} values stay flat`,
      description: `Per ${dimension} by month (step ${step.step}): for ${top.label} the ${words.phrase} climbed from ${formatPercent(top.first)} in the first ${months} months to ${formatPercent(top.last)} in the last ${months} months${top.slope !== null ? ` (about ${top.slope >= 0 ? '+' : ''}${(top.slope * 100).toFixed(1)} points per month)` : ''}, over ${formatCount(top.count)} ${humanize(countColumn)}. The other ${dimension} values moved ${formatRatio(otherGrowth)} and end near ${formatPercent(othersLast)}. Measure: ${words.gloss}.`,
      severity: severityOf(growth(top), 0.2),
      affectedCount: top.count,
      confidence: confidenceOf(top.count),
      riskScore: roundMetric(Math.min(1, top.last * 2)),
      metrics: {
        [firstColumn]: roundMetric(top.first),
        [lastColumn]: roundMetric(top.last),
        ...(top.slope !== null && slopeColumn ? { [slopeColumn]: roundMetric(top.slope) } : {}),
        [`other_${shape.segmentColumn}_median_growth`]: roundMetric(otherGrowth),
        segment_column: shape.segmentColumn,
        segment_value: top.label,
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [
        `${words.phrase} ${formatRatio(growth(top))} from first to last months`,
        `other ${dimension} values ${formatRatio(otherGrowth)}`,
      ],
      targetSegment: `${humanize(countColumn)} in ${dimension} ${top.label}`,
      dedupeKey: `${step.step}:${top.label}:trend`,
    },
  ];
}

export function findWeeklySpike(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  const medianColumn = step.rowColumns.find((name) => /^median_weekly_/.test(name));
  if (!shape || !medianColumn || shape.countColumns.length === 0) return [];
  const countColumn = shape.countColumns[0] as string;
  const rows = step.rows.map((row) => ({ week: dateOf(row[shape.segmentColumn]), count: numberOf(row[countColumn]) ?? 0, row }));
  const typical = numberOf(step.rows[0]?.[medianColumn]);
  const top = [...rows].sort((left, right) => right.count - left.count || (left.week < right.week ? -1 : 1))[0];
  if (!top || typical === null || typical <= 0 || top.count / typical < MIN_SPIKE_RATIO || top.count < MIN_SEGMENT_SIZE) return [];
  const ratio = top.count / typical;
  const extras = shape.countColumns.slice(1).filter((name) => /^with_/.test(name));
  const extraText = extras
    .map((name) => ({ name, value: numberOf(top.row[name]) ?? 0 }))
    .filter((extra) => extra.value > 0)
    .map((extra) => `${formatCount(extra.value)} of them (${formatPercent(extra.value / top.count)}) came ${humanize(extra.name)}`);
  const people = humanize(countColumn);
  return [
    {
      kind: 'weekly_spike',
      steps: [step.step],
      strength: Math.log(ratio) * 1.5,
      name: `Signup spike: the week of ${top.week} brought ${formatCount(top.count)} new ${people}, ${formatRatio(ratio)} the median week`,
      description: `Weekly new ${people} (step ${step.step}) peak in the week of ${top.week} at ${formatCount(top.count)} against a median week of ${formatCount(typical)} — a growth spike in sign-ups.${extraText.length > 0 ? ` ${extraText.join('; ')}.` : ''} Next busiest weeks: ${rows
        .filter((row) => row !== top)
        .slice(0, 3)
        .map((row) => `${row.week} (${formatCount(row.count)})`)
        .join(', ')}.`,
      severity: ratio >= 3 ? 'high' : 'medium',
      affectedCount: top.count,
      confidence: confidenceOf(top.count),
      riskScore: 0.3,
      metrics: {
        [countColumn]: top.count,
        [medianColumn]: roundMetric(typical),
        ratio: roundMetric(ratio),
        ...Object.fromEntries(extras.map((name) => [name, numberOf(top.row[name]) ?? 0])),
        segment_column: shape.segmentColumn,
        segment_values: top.week,
        segment_kind: 'date',
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatRatio(ratio)} the median week`],
      targetSegment: `${people} who signed up in the week of ${top.week}`,
      dedupeKey: `${step.step}:spike`,
    },
  ];
}
