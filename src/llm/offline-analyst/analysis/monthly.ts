/**
 * Months, per segment and overall: a window of months far above a segment's median month (a spike:
 * robust z from the median absolute deviation, computed by the query), a duration or average that is
 * higher inside that window, a segment whose count or measure grows much more than the others' from
 * the first to the last months, and in an overall monthly series the months that spike and the month
 * where the level steps up or down for good.
 */
import type { Cell } from '../../../domain/index.js';
import type { DigestStep } from '../readers/digests.js';
import { DIMENSION_COLUMN, MONTHLY_SUMMARY, VALUE_COLUMN } from '../sql/pattern-queries.js';
import { formatCount, formatRatio, humanize, roundMetric, rowsNoun } from '../text.js';
import { confidenceOf, severityOf, type Finding } from './finding.js';
import { describeMeasure } from './measure-names.js';
import { numberOf, segmentLabel, shapeOf } from './result-shape.js';
import { NO_SEGMENT, minSegmentSize, showValue } from './segment-gaps.js';

/** A segment's last months must differ from its first by this factor to be a trend. */
const MIN_GROWTH = 1.5;
/** A spike window longer than this share of the series is a level, not a spike. */
const MAX_SPIKE_SHARE = 0.4;
/** The measure in the spike months must differ from the other months by this factor. */
const MIN_SPIKE_MEASURE_RATIO = 1.3;
/** Robust z-score a month must reach in an overall series to spike (Iglewicz–Hoaglin). */
const SERIES_SPIKE_Z = 3.5;
/** Months on each side of a step change, at least. */
const MIN_STEP_SIDE = 3;
/** Change in level across a step. */
const MIN_STEP_RATIO = 1.5;
/** t-statistic a step must reach. */
const MIN_STEP_T = 4;
/** Spike months must average this many times the median month: a robust z alone flags tiny moves of a steady series. */
const MIN_SPIKE_RATIO = 1.5;
/** Rows a value needs before its spike is reported. */
const MIN_SPIKE_VALUE_ROWS = 20;
/** A last month with fewer rows than this share of the median is still filling up. */
const PARTIAL_PERIOD_SHARE = 0.5;

/** `2023-06-01T00:00:00.000Z` → `2023-06`. */
export function monthOf(cell: Cell | undefined): string {
  return typeof cell === 'string' ? cell.slice(0, 7) : segmentLabel(cell);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Months from one `YYYY-MM` to another, both counted (null when either is not a month). */
function monthsSpanned(first: string, last: string): number | null {
  const parse = (text: string) => /^(\d{4})-(\d{2})/.exec(text);
  const from = parse(first);
  const to = parse(last);
  if (!from || !to) return null;
  return (Number(to[1]) - Number(from[1])) * 12 + Number(to[2]) - Number(from[2]) + 1;
}

/** `in 2023-07`, `from 2023-06 to 2023-08`, or `in 3 months between 2023-02 and 2023-08` when the months are not consecutive. */
function windowText(first: string, last: string, months?: number): string {
  if (first === last) return `in ${first}`;
  const spanned = monthsSpanned(first, last);
  if (months !== undefined && spanned !== null && months < spanned) return `in ${months} months between ${first} and ${last}`;
  return `from ${first} to ${last}`;
}

interface ValueRow {
  /** The column the value belongs to. */
  column: string;
  label: string;
  raw: Cell;
  rows: number;
  row: Record<string, Cell>;
}

function readValues(step: DigestStep, countColumn: string): ValueRow[] {
  return step.rows
    .map((row) => ({
      column: segmentLabel(row[DIMENSION_COLUMN]),
      label: segmentLabel(row[VALUE_COLUMN]),
      raw: row[VALUE_COLUMN] ?? null,
      rows: numberOf(row[countColumn]) ?? 0,
      row,
    }))
    .filter((value) => value.label !== NO_SEGMENT);
}

/** Where a finding on one value's months is recounted: the value's row of the summary. */
function where(value: ValueRow, countColumn: string): Record<string, string | number> {
  return {
    segment_column: VALUE_COLUMN,
    segment_value: typeof value.raw === 'number' ? value.raw : value.label,
    recount_where: JSON.stringify({ [DIMENSION_COLUMN]: value.column }),
    count_column: countColumn,
  };
}

function summaryShape(step: DigestStep, marker: string): { countColumn: string; measure: string | undefined } | undefined {
  if (!step.complete || step.rowColumns[0] !== DIMENSION_COLUMN || !step.rowColumns.includes(marker)) return undefined;
  const countColumn = step.rowColumns[2];
  if (!countColumn) return undefined;
  const measure = step.rowColumns
    .find((name) => /^(spike_months|first_months)_avg_/.test(name))
    ?.replace(/^(spike_months|first_months)_/, '');
  return { countColumn, measure };
}

/** Months far above a value's median month, and the measure inside those months against its other months. */
export function findSegmentSpikes(step: DigestStep): Finding[] {
  const shape = summaryShape(step, MONTHLY_SUMMARY.spikeMonths);
  if (!shape) return [];
  const { countColumn, measure } = shape;
  const m = MONTHLY_SUMMARY;
  const words = measure ? describeMeasure(measure, countColumn, step.sql) : undefined;
  const rowsName = rowsNoun(countColumn);
  const findings: Finding[] = [];
  const columns = new Set<string>();
  for (const value of readValues(step, countColumn)) {
    // the biggest spike of each column: the query lists them biggest first
    if (columns.has(value.column)) continue;
    const median = numberOf(value.row[m.medianMonthly]) ?? 0;
    const months = numberOf(value.row[m.spikeMonths]) ?? 0;
    const spikeRows = numberOf(value.row[m.spikeRows]) ?? 0;
    if (months < 1 || spikeRows <= 0 || value.rows < MIN_SPIKE_VALUE_ROWS) continue;
    columns.add(value.column);
    const first = segmentLabel(value.row[m.spikeFirst]);
    const last = segmentLabel(value.row[m.spikeLast]);
    const perMonth = spikeRows / months;
    const ratio = perMonth / Math.max(1, median);
    if (ratio < MIN_SPIKE_RATIO) continue;
    const window = windowText(first, last, months);
    const dimension = humanize(value.column);
    findings.push({
      kind: 'segment_spike',
      steps: [step.step],
      confidence: confidenceOf(spikeRows),
      strength: Math.log(Math.max(1.01, ratio)) * Math.min(1, Math.sqrt(spikeRows / 50)) * 1.1,
      name: `${value.label}: increased ${rowsName} ${window}, ${formatRatio(ratio)} its median month (${formatCount(perMonth)} vs ${formatCount(median)} per month)`,
      description: `Monthly ${rowsName} per ${dimension} (step ${step.step}): ${value.label} (${dimension}) has elevated ${rowsName} ${window} — ${formatCount(months)} month${months === 1 ? '' : 's'} with ${formatCount(spikeRows)} ${rowsName} (${formatCount(perMonth)} per month), against a median month of ${formatCount(median)} (${formatCount(value.rows)} ${rowsName} in all). A specific time window with a spike of ${value.label} ${rowsName}.`,
      severity: ratio >= 3 ? 'high' : 'medium',
      affectedCount: spikeRows,
      riskScore: roundMetric(Math.min(1, spikeRows / Math.max(1, value.rows))),
      metrics: {
        spike_rows: spikeRows,
        spike_months: months,
        spike_first_month: first,
        spike_last_month: last,
        median_monthly_rows: roundMetric(median),
        ratio: roundMetric(ratio),
        ...where(value, m.spikeRows),
        source_step: step.step,
      },
      indicators: [`${formatRatio(ratio)} the median month`, `${formatCount(months)} months ${window}`],
      targetSegment: `${value.label} ${rowsName} ${window}`,
      dedupeKey: `spike:${value.column}:${value.label}`,
    });
    const inside = measure ? numberOf(value.row[`spike_months_${measure}`]) : null;
    const outside = measure ? numberOf(value.row[`other_months_${measure}`]) : null;
    if (!measure || !words || inside === null || outside === null || outside <= 0) continue;
    const measureRatio = inside / outside;
    if (Math.max(measureRatio, 1 / measureRatio) < MIN_SPIKE_MEASURE_RATIO) continue;
    const higher = measureRatio > 1;
    findings.push({
      kind: 'segment_spike_measure',
      steps: [step.step],
      confidence: confidenceOf(spikeRows),
      strength: Math.abs(Math.log(measureRatio)) * Math.min(1, Math.sqrt(spikeRows / 50)),
      name: `${value.label}: ${words.phrase} ${higher ? 'increases' : 'decreases'} during its spike months ${window} (${showValue(inside, false, words)} vs ${showValue(outside, false, words)} in its other months)`,
      description: `In the months where ${value.label} ${rowsName} spike (${window}, step ${step.step}), the ${words.phrase} of ${value.label} (${dimension}) is ${showValue(inside, false, words)}, against ${showValue(outside, false, words)} in its other months (${formatRatio(Math.max(measureRatio, 1 / measureRatio))} ${higher ? 'higher' : 'lower'}). Measure: ${words.gloss}.`,
      severity: severityOf(Math.max(measureRatio, 1 / measureRatio), 0.2),
      affectedCount: spikeRows,
      riskScore: roundMetric(Math.min(1, Math.abs(measureRatio - 1) / 3)),
      metrics: {
        [`spike_months_${measure}`]: roundMetric(inside),
        [`other_months_${measure}`]: roundMetric(outside),
        ratio: roundMetric(measureRatio),
        ...where(value, m.spikeRows),
        source_step: step.step,
      },
      indicators: [`${words.phrase} ${formatRatio(measureRatio)} in the spike months`],
      targetSegment: `${value.label} ${rowsName} ${window}`,
      dedupeKey: `spike-measure:${value.column}:${value.label}:${measure}`,
    });
  }
  return findings;
}

/** A value whose monthly rows, or whose measure, move from the first to the last months much more than the other values of its column. */
export function findSegmentTrendsByMonth(step: DigestStep): Finding[] {
  const shape = summaryShape(step, MONTHLY_SUMMARY.firstMonthly);
  if (!shape) return [];
  const { countColumn, measure } = shape;
  const words = measure ? describeMeasure(measure, countColumn, step.sql) : undefined;
  const rowsName = rowsNoun(countColumn);
  const values = readValues(step, countColumn);
  const findings: Finding[] = [];
  for (const column of [...new Set(values.map((value) => value.column))]) {
    const group = values.filter((value) => value.column === column);
    const floor = minSegmentSize(group.reduce((sum, value) => sum + value.rows, 0));
    const usable = group.filter((value) => value.rows >= floor);
    const dimension = humanize(column);
    const edge = numberOf(usable[0]?.row[MONTHLY_SUMMARY.edgeMonths]) ?? 2;
    const counts = growthOf(usable, MONTHLY_SUMMARY.firstMonthly, MONTHLY_SUMMARY.lastMonthly);
    const countTop = counts[0];
    if (countTop && counts.length >= 2 && Math.max(countTop.growth, 1 / countTop.growth) >= MIN_GROWTH) {
      const othersGrowth = median(counts.slice(1).map((item) => item.growth));
      const rising = countTop.growth > 1;
      const together = othersGrowth > 1 === rising && Math.max(othersGrowth, 1 / othersGrowth) >= 1.2;
      findings.push({
        kind: 'segment_count_trend',
        steps: [step.step],
        confidence: confidenceOf(countTop.value.rows),
        strength: Math.abs(Math.log(countTop.growth)) * Math.min(1, Math.sqrt(countTop.value.rows / 200)) * 0.9,
        name: `${countTop.value.label}: monthly ${rowsName} ${rising ? 'increase' : 'decrease'} over time, from ${formatCount(countTop.first)} to ${formatCount(countTop.last)} per month (${formatRatio(countTop.growth)})${together ? `, more pronounced than the other ${dimension} values (${formatRatio(othersGrowth)})` : ''}`,
        description: `Monthly ${rowsName} per ${dimension} (step ${step.step}): ${countTop.value.label} went from ${formatCount(countTop.first)} per month in the first ${formatCount(edge)} months to ${formatCount(countTop.last)} in the last ${formatCount(edge)} (${formatRatio(countTop.growth)}); the other ${dimension} values changed ${formatRatio(othersGrowth)} (median). ${together ? `The ${rising ? 'increase' : 'decrease'} in the number of ${rowsName} over time is shared across ${dimension} values, but more pronounced in ${countTop.value.label}.` : `The number of ${rowsName} of the other ${dimension} values is more or less uniform over time.`}`,
        severity: severityOf(Math.max(countTop.growth, 1 / countTop.growth), 0.2),
        affectedCount: countTop.value.rows,
        riskScore: roundMetric(Math.min(1, Math.abs(countTop.growth - 1) / 4)),
        metrics: {
          first_months_rows: roundMetric(countTop.first),
          last_months_rows: roundMetric(countTop.last),
          ratio: roundMetric(countTop.growth),
          [`other_${column}_median_growth`]: roundMetric(othersGrowth),
          ...where(countTop.value, countColumn),
          source_step: step.step,
        },
        indicators: [`${formatRatio(countTop.growth)} from the first to the last months`, `others ${formatRatio(othersGrowth)}`],
        targetSegment: `${countTop.value.label} ${rowsName} (${dimension})`,
        dedupeKey: `count-trend:${column}:${countTop.value.label}`,
      });
    }
    if (!measure || !words) continue;
    const moved = growthOf(usable, `first_months_${measure}`, `last_months_${measure}`);
    const top = moved[0];
    if (!top || moved.length < 2) continue;
    const othersGrowth = median(moved.slice(1).map((item) => item.growth));
    const slope = numberOf(top.value.row[`monthly_change_${measure}`]);
    const consistent = slope !== null && Math.sign(slope) === Math.sign(top.growth - 1);
    const alone = Math.abs(Math.log(othersGrowth)) <= Math.abs(Math.log(top.growth)) / 2;
    if (Math.max(top.growth, 1 / top.growth) < MIN_GROWTH || !consistent || !alone) continue;
    const rising = top.growth > 1;
    const first = showValue(top.first, false, words);
    const last = showValue(top.last, false, words);
    findings.push({
      kind: 'segment_measure_trend',
      steps: [step.step],
      confidence: confidenceOf(top.value.rows),
      strength: Math.abs(Math.log(top.growth)) * Math.min(1, Math.sqrt(top.value.rows / 100)) * 1.1,
      name: `${top.value.label}: ${words.phrase} ${rising ? 'increases' : 'decreases'} over time, from ${first} to ${last} (${formatRatio(top.growth)}), while the other ${dimension} values stay uniform (${formatRatio(othersGrowth)})`,
      description: `By month and ${dimension} (step ${step.step}), the ${words.phrase} of ${top.value.label} went from ${first} in the first ${formatCount(edge)} months to ${last} in the last ${formatCount(edge)}${slope !== null ? ` (${slope >= 0 ? '+' : ''}${formatCount(slope)}${words.unit ? ` ${words.unit}` : ''} per month, a steady, linear ${rising ? 'increase' : 'decrease'})` : ''}, over ${formatCount(top.value.rows)} ${rowsName}; for the other ${dimension} values it changed ${formatRatio(othersGrowth)} (median), a uniform level over time. Measure: ${words.gloss}.`,
      severity: severityOf(Math.max(top.growth, 1 / top.growth), 0.2),
      affectedCount: top.value.rows,
      riskScore: roundMetric(Math.min(1, Math.abs(top.growth - 1) / 3)),
      metrics: {
        [`first_months_${measure}`]: roundMetric(top.first),
        [`last_months_${measure}`]: roundMetric(top.last),
        ratio: roundMetric(top.growth),
        [`other_${column}_median_growth`]: roundMetric(othersGrowth),
        ...where(top.value, countColumn),
        source_step: step.step,
      },
      indicators: [`${words.phrase} ${formatRatio(top.growth)} from the first to the last months`, `others ${formatRatio(othersGrowth)}`],
      targetSegment: `${top.value.label} ${rowsName} (${dimension})`,
      dedupeKey: `measure-trend:${column}:${top.value.label}:${measure}`,
    });
  }
  return findings;
}

/** Growth from the first to the last months per value, the largest change (either way) first. */
function growthOf(
  values: readonly ValueRow[],
  firstColumn: string,
  lastColumn: string,
): Array<{ value: ValueRow; first: number; last: number; growth: number }> {
  return values
    .map((value) => ({ value, first: numberOf(value.row[firstColumn]), last: numberOf(value.row[lastColumn]) }))
    .filter(
      (item): item is { value: ValueRow; first: number; last: number } =>
        item.first !== null && item.last !== null && item.first > 0 && item.last > 0,
    )
    .map((item) => ({ ...item, growth: item.last / item.first }))
    .sort(
      (left, right) =>
        Math.abs(Math.log(right.growth)) - Math.abs(Math.log(left.growth)) || (left.value.label < right.value.label ? -1 : 1),
    );
}

/** Robust z-scores of a series: distance from the median in units of the scaled median absolute deviation. */
function robustZ(values: readonly number[]): number[] {
  const center = median(values);
  const mad = median(values.map((value) => Math.abs(value - center))) * 1.4826;
  return values.map((value) => (value - center) / Math.max(mad, Math.abs(center) * 0.05, 1e-9));
}

/** The split of a series with the largest t-statistic between the means before and after it. */
function bestStep(values: readonly number[]): { at: number; before: number; after: number; t: number } | undefined {
  let best: { at: number; before: number; after: number; t: number } | undefined;
  for (let at = MIN_STEP_SIDE; at <= values.length - MIN_STEP_SIDE; at++) {
    const left = values.slice(0, at);
    const right = values.slice(at);
    const mean = (part: readonly number[]) => part.reduce((sum, value) => sum + value, 0) / part.length;
    const variance = (part: readonly number[], m: number) =>
      part.reduce((sum, value) => sum + (value - m) ** 2, 0) / Math.max(1, part.length - 1);
    const before = mean(left);
    const after = mean(right);
    const error = Math.sqrt(variance(left, before) / left.length + variance(right, after) / right.length);
    const t = error > 0 ? Math.abs(after - before) / error : 0;
    if (!best || t > best.t) best = { at, before, after, t };
  }
  return best;
}

/** In an overall monthly series: months that spike far above the median month, and a lasting step up or down. */
export function findSeriesChanges(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape?.timeSegment || !step.complete || shape.countColumns.length === 0 || /week/.test(shape.segmentColumn)) return [];
  const countColumn = shape.countColumns[0] as string;
  let rows = step.rows;
  const counts = rows.map((row) => numberOf(row[countColumn]) ?? 0);
  if ((counts.at(-1) ?? 0) < median(counts) * PARTIAL_PERIOD_SHARE) rows = rows.slice(0, -1);
  if (rows.length < MIN_STEP_SIDE * 2) return [];
  const rowsName = rowsNoun(countColumn);
  const findings: Finding[] = [];
  for (const measure of [countColumn, ...shape.averageColumns]) {
    const series = rows.map((row) => numberOf(row[measure]));
    if (series.some((value) => value === null)) continue;
    const values = series as number[];
    const words =
      measure === countColumn
        ? { phrase: `monthly ${rowsName}`, gloss: `number of ${rowsName} per month`, negative: false }
        : describeMeasure(measure, countColumn, step.sql);
    const months = rows.map((row) => monthOf(row[shape.segmentColumn]));
    const typical = median(values);
    const z = robustZ(values);
    // months far above the median month, by the robust z and by a clear factor
    const spiking = z
      .map((score, index) => ({ score, index }))
      .filter((item) => item.score >= SERIES_SPIKE_Z && (values[item.index] as number) >= typical * MIN_SPIKE_RATIO);
    if (spiking.length > 0 && spiking.length <= values.length * MAX_SPIKE_SHARE && typical > 0) {
      const first = spiking[0] as { index: number };
      const last = spiking.at(-1) as { index: number };
      const peak = spiking.reduce((top, item) => ((values[item.index] as number) > (values[top.index] as number) ? item : top));
      const ratio = (values[peak.index] as number) / typical;
      const window = windowText(months[first.index] as string, months[last.index] as string, spiking.length);
      const spikeRows = spiking.reduce((sum, item) => sum + (numberOf(rows[item.index]?.[countColumn]) ?? 0), 0);
      findings.push({
        kind: 'series_spike',
        steps: [step.step],
        strength: Math.log(Math.max(1.01, ratio)) * 1.1,
        name: `${words.phrase[0]?.toUpperCase() ?? ''}${words.phrase.slice(1)} spike ${window}: ${showValue(values[peak.index] as number, false, words)} in ${months[peak.index]}, ${formatRatio(ratio)} the median month (${showValue(typical, false, words)})`,
        description: `Monthly series (step ${step.step}): ${spiking.map((item) => `${months[item.index]} ${showValue(values[item.index] as number, false, words)}`).join(', ')} stand far above the median month of ${showValue(typical, false, words)} (robust z ≥ ${SERIES_SPIKE_Z}). Measure: ${words.gloss}.`,
        severity: ratio >= 3 ? 'high' : 'medium',
        affectedCount: spikeRows,
        confidence: confidenceOf(spikeRows),
        riskScore: roundMetric(Math.min(1, (ratio - 1) / 4)),
        metrics: {
          [`peak_${measure}`]: roundMetric(values[peak.index] as number),
          [`median_${measure}`]: roundMetric(typical),
          ratio: roundMetric(ratio),
          segment_column: shape.segmentColumn,
          segment_values: spiking.map((item) => String(rows[item.index]?.[shape.segmentColumn] ?? '').slice(0, 10)).join('|'),
          segment_kind: 'date',
          count_column: countColumn,
          source_step: step.step,
        },
        indicators: [`${formatRatio(ratio)} the median month`],
        targetSegment: `${rowsName} ${window}`,
        dedupeKey: `series-spike:${step.step}:${measure}`,
      });
    }
    const change = bestStep(values);
    if (change && change.before > 0 && change.t >= MIN_STEP_T) {
      const ratio = change.after / change.before;
      if (Math.max(ratio, 1 / ratio) >= MIN_STEP_RATIO) {
        const from = months[change.at] as string;
        const after = rows.slice(change.at);
        const affected = after.reduce((sum, row) => sum + (numberOf(row[countColumn]) ?? 0), 0);
        findings.push({
          kind: 'step_change',
          steps: [step.step],
          strength: Math.abs(Math.log(ratio)) * 1.1,
          name: `${words.phrase[0]?.toUpperCase() ?? ''}${words.phrase.slice(1)} ${ratio > 1 ? 'steps up' : 'steps down'} from ${from}: ${showValue(change.before, false, words)} per month before, ${showValue(change.after, false, words)} from then on (${formatRatio(ratio)})`,
          description: `Monthly series (step ${step.step}): the level of ${words.gloss} changes in ${from} — an average of ${showValue(change.before, false, words)} over the ${change.at} months before and ${showValue(change.after, false, words)} over the ${values.length - change.at} months from then on (t = ${change.t.toFixed(1)}), a change point rather than a gradual trend.`,
          severity: severityOf(Math.max(ratio, 1 / ratio), 1),
          affectedCount: affected,
          confidence: confidenceOf(affected),
          riskScore: roundMetric(Math.min(1, Math.abs(ratio - 1) / 4)),
          metrics: {
            [`before_${measure}`]: roundMetric(change.before),
            [`after_${measure}`]: roundMetric(change.after),
            ratio: roundMetric(ratio),
            segment_column: shape.segmentColumn,
            segment_values: after.map((row) => String(row[shape.segmentColumn] ?? '').slice(0, 10)).join('|'),
            segment_kind: 'date',
            count_column: countColumn,
            source_step: step.step,
          },
          indicators: [`${formatRatio(ratio)} from ${from}`, `t = ${change.t.toFixed(1)}`],
          targetSegment: `${rowsName} from ${from}`,
          dedupeKey: `step:${step.step}:${measure}`,
        });
      }
    }
  }
  return findings;
}
