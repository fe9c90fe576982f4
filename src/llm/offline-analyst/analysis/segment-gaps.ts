/**
 * Segment gaps: in a per-segment result, the segment whose rate or average is furthest from the
 * weighted rest (mobile checkout abandonment 2.9× the other devices). Rates must also pass a
 * two-proportion z-test, so small segments with noisy rates do not make findings.
 */
import { formatCount, formatMeasure, formatPercent, formatRatio, humanize, roundMetric } from '../text.js';
import type { DigestStep } from '../readers/digests.js';
import { confidenceOf, severityOf, type Finding } from './finding.js';
import { describeMeasure, ordinalName } from './measure-names.js';
import { baseCountFor, numberOf, segmentLabel, shapeOf } from './result-shape.js';

/** Rows (entities, sessions …) a segment needs before its rate or average is compared. */
export const MIN_SEGMENT_SIZE = 50;
/** A segment must differ from the rest by at least this factor (either way). */
export const MIN_GAP_RATIO = 1.4;
/** … and, for rates, by at least this many points. */
const MIN_RATE_GAP = 0.02;
/** Two-proportion z-score a rate gap must reach. */
const MIN_Z_SCORE = 3;
/** How much more a gap in the bad direction counts when choosing the segment to report. */
const BAD_DIRECTION_WEIGHT = 1.3;
/** The label of rows without a segment value (a missed join): never the headline. */
export const NO_SEGMENT = '(none)';
/** Segments listed in a description. */
const LISTED_SEGMENTS = 8;

interface Candidate {
  label: string;
  value: number;
  base: number;
  rest: number;
  restBase: number;
  ratio: number;
}

function zScore(candidate: Candidate): number {
  const pooled = (candidate.value * candidate.base + candidate.rest * candidate.restBase) / (candidate.base + candidate.restBase);
  const spread = Math.sqrt(pooled * (1 - pooled) * (1 / candidate.base + 1 / candidate.restBase));
  return spread > 0 ? Math.abs(candidate.value - candidate.rest) / spread : 0;
}

function segmentPhrase(column: string, label: string, ordinal: boolean): string {
  return ordinal ? `${ordinalName(column)} ${label}` : label;
}

export function findSegmentGaps(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !step.complete || shape.timeSegment || step.rows.length < 2) return [];
  const ordinal = step.rows.every((row) => numberOf(row[shape.segmentColumn]) !== null);
  const findings: Finding[] = [];
  const dimension = ordinal ? ordinalName(shape.segmentColumn) : humanize(shape.segmentColumn);
  for (const measure of [...shape.rateColumns, ...shape.averageColumns]) {
    const isRate = shape.rateColumns.includes(measure);
    const baseColumn = baseCountFor(measure, shape);
    if (!baseColumn) continue;
    const rows = step.rows
      .map((row) => ({
        label: segmentLabel(row[shape.segmentColumn]),
        value: numberOf(row[measure]),
        base: numberOf(row[baseColumn]),
        raw: row[shape.segmentColumn],
      }))
      .filter(
        (row): row is { label: string; value: number; base: number; raw: typeof row.raw } =>
          row.value !== null && row.base !== null && row.base >= MIN_SEGMENT_SIZE,
      );
    if (rows.length < 2) continue;
    const totalBase = rows.reduce((sum, row) => sum + row.base, 0);
    const candidates: Candidate[] = rows.map((row) => {
      const others = rows.filter((other) => other !== row);
      const restBase = others.reduce((sum, other) => sum + other.base, 0);
      const rest = others.reduce((sum, other) => sum + other.value * other.base, 0) / restBase;
      return {
        label: row.label,
        value: row.value,
        base: row.base,
        rest,
        restBase,
        ratio: rest > 0 ? row.value / rest : row.value > 0 ? Infinity : 1,
      };
    });
    const negative = describeMeasure(measure, baseColumn, step.sql).negative;
    // the weak segment is the news: a gap in the bad direction outranks a slightly larger one in the good direction
    const weight = (candidate: Candidate) =>
      Math.abs(Math.log(candidate.ratio)) * (candidate.ratio > 1 === negative ? BAD_DIRECTION_WEIGHT : 1);
    const best = candidates
      .filter((candidate) => Number.isFinite(candidate.ratio) && candidate.ratio > 0 && candidate.label !== NO_SEGMENT)
      .sort((left, right) => weight(right) - weight(left) || (left.label < right.label ? -1 : 1))[0];
    if (!best) continue;
    const magnitude = Math.max(best.ratio, 1 / best.ratio);
    if (magnitude < MIN_GAP_RATIO) continue;
    if (isRate && (Math.abs(best.value - best.rest) < MIN_RATE_GAP || zScore(best) < MIN_Z_SCORE)) continue;

    const words = describeMeasure(measure, baseColumn, step.sql);
    const higher = best.ratio > 1;
    const bad = words.negative === higher;
    const segment = segmentPhrase(shape.segmentColumn, best.label, ordinal);
    const listed = [...rows]
      .sort((left, right) => right.value - left.value || (left.label < right.label ? -1 : 1))
      .slice(0, LISTED_SEGMENTS);
    const comparison = higher
      ? `${formatRatio(magnitude)} the other ${dimension} values`
      : `${formatRatio(magnitude)} lower than the other ${dimension} values`;
    const name = `${segment}: ${words.phrase} ${comparison} (${formatMeasure(best.value, isRate)} vs ${formatMeasure(best.rest, isRate)})`;
    const description = [
      bad ? 'Weak spot:' : 'Strength:',
      `by ${dimension} (step ${step.step}), ${segment} has a ${words.phrase} of ${formatMeasure(best.value, isRate)} over ${formatCount(best.base)} ${humanize(baseColumn)}, against ${formatMeasure(best.rest, isRate)} for the other ${dimension} values (${formatCount(best.restBase)} ${humanize(baseColumn)}).`,
      `Measure: ${words.gloss}.`,
      `All ${dimension} values: ${listed.map((row) => `${segmentPhrase(shape.segmentColumn, row.label, ordinal)} ${formatMeasure(row.value, isRate)} (${formatCount(row.base)})`).join(', ')}.`,
      bad ? `For ${words.phrase}, ${higher ? 'higher' : 'lower'} is worse.` : `${segment} does better than the rest.`,
    ].join(' ');
    const share = best.base / totalBase;
    const raw = step.rows.find((row) => segmentLabel(row[shape.segmentColumn]) === best.label)?.[shape.segmentColumn];
    findings.push({
      kind: 'segment_gap',
      steps: [step.step],
      strength: Math.abs(Math.log(best.ratio)) * Math.min(1, Math.sqrt(best.base / 500)) * (bad ? 1.2 : 1),
      name,
      description,
      severity: severityOf(magnitude, share),
      affectedCount: best.base,
      confidence: confidenceOf(best.base),
      riskScore: roundMetric(Math.min(1, share * (bad ? 1 : 0.5) + (magnitude - 1) / 10)),
      metrics: {
        [measure]: roundMetric(best.value),
        [`other_${dimension.replace(/ /g, '_')}_${measure}`]: roundMetric(best.rest),
        ratio: roundMetric(best.ratio),
        segment_column: shape.segmentColumn,
        segment_value: typeof raw === 'number' ? raw : best.label,
        count_column: baseColumn,
        source_step: step.step,
      },
      indicators: [
        `${words.phrase} ${formatMeasure(best.value, isRate)} vs ${formatMeasure(best.rest, isRate)}`,
        `${formatPercent(share)} of ${humanize(baseColumn)} are ${segment}`,
      ],
      targetSegment: `${segment} (${dimension}) — ${humanize(baseColumn)}`,
      dedupeKey: `${step.step}:${best.label}`,
    });
  }
  return findings;
}
