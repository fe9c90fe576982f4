/**
 * Where things pile up: one segment carrying most of a total (a product with most of the revenue),
 * the position on a scale where most people stop (furthest level reached), the worst position on a
 * scale against its mean (a level cliff), and how soon after their start people first act
 * (first purchase within 3 days of install).
 */
import type { DigestStep } from '../readers/digests.js';
import { formatCount, formatPercent, formatRatio, humanize, roundMetric, singular } from '../text.js';
import { confidenceOf, severityOf, type Finding } from './finding.js';
import { describeMeasure, ordinalName } from './measure-names.js';
import { numberOf, segmentLabel, shapeOf } from './result-shape.js';
import { MIN_SEGMENT_SIZE, NO_SEGMENT } from './segment-gaps.js';

/** A segment with this share of a total, over at least four segments, dominates it. */
const DOMINANT_SHARE = 0.4;
/** A position holding this many times the median share is where people stop. */
const STOP_RATIO = 3;
/** A position whose rate is below this fraction of the mean is a cliff. */
const CLIFF_RATIO = 0.75;
/** First action within this many days counts as early (buckets 0, 1, 2). */
const EARLY_DAYS = 3;
/** Early share that makes a finding. */
const EARLY_SHARE = 0.5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? 0
    : sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function findConcentration(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !step.complete || shape.timeSegment || step.rows.length < 4) return [];
  const findings: Finding[] = [];
  for (const shareColumn of shape.shareColumns.filter((name) => /^share_of_total_/.test(name))) {
    const metric = shareColumn.replace(/^share_of_total_/, '');
    const rows = step.rows
      .map((row) => ({
        label: segmentLabel(row[shape.segmentColumn]),
        share: numberOf(row[shareColumn]) ?? 0,
        count: numberOf(row[shape.countColumns[0] ?? '']) ?? 0,
        total: numberOf(row[`total_${metric}`]),
      }))
      .sort((left, right) => right.share - left.share || (left.label < right.label ? -1 : 1));
    const [top, second] = rows.filter((row) => row.label !== NO_SEGMENT);
    if (!top || !second || top.share < DOMINANT_SHARE || top.share < second.share * 2) continue;
    const countColumn = shape.countColumns[0] ?? '';
    const dimension = humanize(shape.segmentColumn);
    findings.push({
      kind: 'concentration',
      steps: [step.step],
      strength: top.share * 2,
      name: `${top.label} brings ${formatPercent(top.share)} of all ${humanize(metric)} (${dimension})`,
      description: `By ${dimension} (step ${step.step}), ${top.label} accounts for ${formatPercent(top.share)} of total ${humanize(metric)}${top.total !== null ? ` (${formatCount(top.total)})` : ''} from ${formatCount(top.count)} ${humanize(countColumn)}; the next, ${second.label}, for ${formatPercent(second.share)}. The total depends on one ${dimension} value. Shares: ${rows
        .slice(0, 6)
        .map((row) => `${row.label} ${formatPercent(row.share)}`)
        .join(', ')}.`,
      severity: top.share >= 0.6 ? 'high' : 'medium',
      affectedCount: top.count,
      confidence: confidenceOf(top.count),
      riskScore: roundMetric(top.share * 0.8),
      metrics: {
        [shareColumn]: roundMetric(top.share),
        [`next_${shareColumn}`]: roundMetric(second.share),
        segment_column: shape.segmentColumn,
        segment_value: top.label,
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatRatio(top.share / second.share)} the next ${dimension}`],
      targetSegment: `${humanize(countColumn)} of ${top.label}`,
      dedupeKey: `${step.step}:${top.label}:share`,
    });
  }
  return findings;
}

export function findStoppingPoint(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !/^furthest_/.test(shape.segmentColumn) || shape.countColumns.length === 0) return [];
  const countColumn = shape.countColumns[0] as string;
  const rows = step.rows.map((row) => ({ position: row[shape.segmentColumn], count: numberOf(row[countColumn]) ?? 0 }));
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  const [top, ...rest] = [...rows].sort((left, right) => right.count - left.count);
  const typical = median(rest.map((row) => row.count));
  if (!top || typical <= 0 || top.count / typical < STOP_RATIO || top.count < MIN_SEGMENT_SIZE) return [];
  const scale = ordinalName(shape.segmentColumn);
  const position = `${scale} ${segmentLabel(top.position)}`;
  const people = humanize(countColumn);
  const shareText = step.complete ? `${formatPercent(top.count / total)} of the ${people} shown` : `${formatCount(top.count)} ${people}`;
  return [
    {
      kind: 'stopping_point',
      steps: [step.step],
      strength: Math.log(top.count / typical) * 1.5,
      name: `Progression drop at ${position}: ${formatCount(top.count)} ${people} stop there, ${formatRatio(top.count / typical)} the typical ${scale}`,
      description: `Furthest ${scale} reached per ${singular(people)} (step ${step.step}): ${position} is where ${shareText} stop progressing — ${formatRatio(top.count / typical)} the median count of the other ${scale}s (${formatCount(typical)}). This is where progression along the scale stops most often: ${rows
        .slice(0, 5)
        .map((row) => `${scale} ${segmentLabel(row.position)}: ${formatCount(row.count)}`)
        .join(', ')}.`,
      severity: top.count / typical >= 5 ? 'critical' : 'high',
      affectedCount: top.count,
      confidence: confidenceOf(top.count),
      riskScore: roundMetric(Math.min(1, top.count / Math.max(1, total))),
      metrics: {
        [countColumn]: top.count,
        [`median_${countColumn}_other_positions`]: roundMetric(typical),
        segment_column: shape.segmentColumn,
        segment_value: typeof top.position === 'number' ? top.position : segmentLabel(top.position),
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatRatio(top.count / typical)} the typical ${scale}`],
      targetSegment: `${people} whose furthest ${scale} is ${segmentLabel(top.position)}`,
      dedupeKey: `${step.step}:stop`,
    },
  ];
}

export function findCliff(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  const meanColumn = step.rowColumns.find((name) => /^mean_.+_across_/.test(name));
  if (!shape || !meanColumn || shape.countColumns.length === 0) return [];
  const rateColumn = shape.rateColumns.find((name) => meanColumn.startsWith(`mean_${name}_across_`));
  if (!rateColumn) return [];
  const countColumn = shape.countColumns[0] as string;
  const words = describeMeasure(rateColumn, countColumn, step.sql);
  const meanValue = numberOf(step.rows[0]?.[meanColumn]);
  if (meanValue === null || meanValue <= 0) return [];
  const rows = step.rows
    .map((row) => ({ position: row[shape.segmentColumn], rate: numberOf(row[rateColumn]), count: numberOf(row[countColumn]) ?? 0 }))
    .filter((row): row is typeof row & { rate: number } => row.rate !== null && row.count >= MIN_SEGMENT_SIZE);
  const worst = [...rows].sort((left, right) => (words.negative ? right.rate - left.rate : left.rate - right.rate))[0];
  if (!worst) return [];
  const ratio = words.negative ? meanValue / worst.rate : worst.rate / meanValue;
  if (ratio > CLIFF_RATIO) return [];
  const scale = ordinalName(shape.segmentColumn);
  const position = `${scale} ${segmentLabel(worst.position)}`;
  return [
    {
      kind: 'cliff',
      steps: [step.step],
      strength: Math.abs(Math.log(ratio)) * 2,
      name: `Progression cliff at ${position}: ${words.phrase} drops to ${formatPercent(worst.rate)} against a ${formatPercent(meanValue)} mean across ${scale}s`,
      description: `Per ${scale} (step ${step.step}), ${position} has a ${words.phrase} of ${formatPercent(worst.rate)} over ${formatCount(worst.count)} ${humanize(countColumn)} rows, while the mean over all ${scale}s is ${formatPercent(meanValue)}; the next worst: ${rows
        .filter((row) => row !== worst)
        .slice(0, 3)
        .map((row) => `${scale} ${segmentLabel(row.position)} ${formatPercent(row.rate)}`)
        .join(
          ', ',
        )}. Rows at this position succeed far less often than along the rest of the scale: a cliff in progression, where entities drop out.`,
      severity: severityOf(1 / ratio, 0.2),
      affectedCount: worst.count,
      confidence: confidenceOf(worst.count),
      riskScore: roundMetric(Math.min(1, 1 - ratio)),
      metrics: {
        [rateColumn]: roundMetric(worst.rate),
        [meanColumn]: roundMetric(meanValue),
        segment_column: shape.segmentColumn,
        segment_value: typeof worst.position === 'number' ? worst.position : segmentLabel(worst.position),
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatRatio(1 / ratio)} below the mean ${scale}`],
      targetSegment: `${humanize(countColumn)} rows at ${position}`,
      dedupeKey: `${step.step}:cliff`,
    },
  ];
}

/** `installed` → `install`, `registered` → `register`, `created` → `create`: the event, not the participle. */
function eventNoun(words: string): string {
  return words.replace(/(ll|er)ed$/, '$1').replace(/ted$/, 'te');
}

export function findEarlyFirstAction(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !/^days_to_first_/.test(shape.segmentColumn) || shape.countColumns.length === 0 || !step.complete) return [];
  const countColumn = shape.countColumns[0] as string;
  const early = step.rows.filter((row) => {
    const days = Number(segmentLabel(row[shape.segmentColumn]));
    return Number.isInteger(days) && days < EARLY_DAYS;
  });
  const total = step.rows.reduce((sum, row) => sum + (numberOf(row[countColumn]) ?? 0), 0);
  const earlyCount = early.reduce((sum, row) => sum + (numberOf(row[countColumn]) ?? 0), 0);
  if (total < MIN_SEGMENT_SIZE || earlyCount / total < EARLY_SHARE) return [];
  const action = humanize(shape.segmentColumn.replace(/^days_to_/, ''));
  const start = eventNoun(humanize(/CAST\(t\.(\w+) AS TIMESTAMP\)/.exec(step.sql)?.[1]?.replace(/_(at|on|date|time|ts)$/, '') ?? 'start'));
  const child = shape.segmentColumn.replace(/^days_to_first_/, '');
  const payers = /(purchase|payment|transaction|iap|order)/.test(child) ? 'payers' : `${humanize(countColumn)}`;
  const share = earlyCount / total;
  const labels = early.map((row) => segmentLabel(row[shape.segmentColumn]));
  return [
    {
      kind: 'early_first_action',
      steps: [step.step],
      strength: share * 1.5,
      name: `${formatPercent(share)} of ${payers} make their ${action} within ${EARLY_DAYS} days of ${start} (payer conversion is early)`,
      description: `Days from ${start} to the ${action} (step ${step.step}): ${formatCount(earlyCount)} of ${formatCount(total)} ${humanize(countColumn)} (${formatPercent(share)}) did it on day 0-${EARLY_DAYS - 1}; later days add few: ${step.rows.map((row) => `day ${segmentLabel(row[shape.segmentColumn])}: ${formatCount(numberOf(row[countColumn]) ?? 0)}`).join(', ')}. Conversion to a first ${singular(child.replace(/_/g, ' '))} happens in the first days or rarely at all.`,
      severity: share >= 0.7 ? 'high' : 'medium',
      affectedCount: earlyCount,
      confidence: confidenceOf(total),
      riskScore: roundMetric(Math.min(1, share * 0.6)),
      metrics: {
        [`share_within_${EARLY_DAYS}_days`]: roundMetric(share),
        [countColumn]: total,
        segment_column: shape.segmentColumn,
        segment_values: labels.join('|'),
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatPercent(share)} within ${EARLY_DAYS} days`],
      targetSegment: `${humanize(countColumn)} in their first ${EARLY_DAYS} days after ${start}`,
      dedupeKey: `${step.step}:early`,
    },
  ];
}
