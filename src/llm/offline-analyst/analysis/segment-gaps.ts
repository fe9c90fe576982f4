/**
 * Segment gaps: in a per-segment result, the segment whose rate or average is furthest from the
 * weighted rest (mobile checkout abandonment 2.9× the other devices; one category's average time to
 * close 7× the others). Rates pass a two-proportion z-test; averages a Welch test when the query
 * measured their spread; small segments never make findings. Measures with no known good direction
 * are described as higher or lower, never as a strength or a weak spot.
 */
import type { Claim } from '../../../domain/index.js';
import type { DigestStep } from '../readers/digests.js';
import { formatCount, formatMeasure, formatPercent, formatRatio, humanize, pluralNoun, roundMetric, rowsNoun } from '../text.js';
import { gapClaim, measureSource, segmentSource } from './claims.js';
import { confidenceOf, severityOf, type Finding } from './finding.js';
import { describeMeasure, ordinalName, type MeasureWords } from './measure-names.js';
import { baseCountFor, numberOf, segmentLabel, shapeOf } from './result-shape.js';

/** Rows (entities, sessions …) a segment needs before its rate or average is compared. */
export const MIN_SEGMENT_SIZE = 50;
/** Smaller segments are compared when the table itself is small: this share of its rows is enough. */
const MIN_SEGMENT_SHARE = 0.05;
/** … but never below this many rows. */
const MIN_SEGMENT_FLOOR = 15;
/** An average whose spread the query measured is compared from this many rows: the Welch test guards it. */
const MIN_TESTED_AVERAGE_ROWS = 10;
/** A segment must differ from the rest by at least this factor (either way). */
export const MIN_GAP_RATIO = 1.4;
/** … and, for rates, by at least this many points. */
const MIN_RATE_GAP = 0.02;
/** z-score (two-proportion for rates, Welch for averages) a gap must reach. */
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
  spread: number | null;
  rest: number;
  restBase: number;
  restSpread: number | null;
  ratio: number;
}

/** The smallest segment worth comparing in a result whose rows add up to `total`. */
export function minSegmentSize(total: number): number {
  return Math.min(MIN_SEGMENT_SIZE, Math.max(MIN_SEGMENT_FLOOR, Math.round(total * MIN_SEGMENT_SHARE)));
}

function proportionZ(candidate: Candidate): number {
  const pooled = (candidate.value * candidate.base + candidate.rest * candidate.restBase) / (candidate.base + candidate.restBase);
  const spread = Math.sqrt(pooled * (1 - pooled) * (1 / candidate.base + 1 / candidate.restBase));
  return spread > 0 ? Math.abs(candidate.value - candidate.rest) / spread : 0;
}

function welchZ(candidate: Candidate): number | null {
  if (candidate.spread === null || candidate.restSpread === null) return null;
  const error = Math.sqrt(candidate.spread ** 2 / candidate.base + candidate.restSpread ** 2 / candidate.restBase);
  return error > 0 ? Math.abs(candidate.value - candidate.rest) / error : null;
}

/** The standard deviation of the other segments pooled: within-segment variance plus the spread of their means. */
function pooledSpread(rows: ReadonlyArray<{ value: number; base: number; spread: number | null }>, mean: number): number | null {
  if (rows.some((row) => row.spread === null)) return null;
  const count = rows.reduce((sum, row) => sum + row.base, 0);
  if (count < 2) return null;
  const within = rows.reduce((sum, row) => sum + (row.base - 1) * (row.spread as number) ** 2, 0);
  const between = rows.reduce((sum, row) => sum + row.base * (row.value - mean) ** 2, 0);
  return Math.sqrt((within + between) / (count - 1));
}

function segmentPhrase(column: string, label: string, ordinal: boolean): string {
  return ordinal ? `${ordinalName(column)} ${label}` : label;
}

/** The measure's words, sharpened by its SQL: a status share names the value (`Declined rate`). */
export function measureWordsFor(step: DigestStep, measure: string, baseColumn: string | undefined): MeasureWords {
  const words = describeMeasure(measure, baseColumn, step.sql);
  const source = measureSource(step.sql, measure);
  if (source?.kind === 'rate' && source.condition.op === '=' && typeof source.condition.value === 'string') {
    const column = humanize(source.condition.column);
    return {
      ...words,
      phrase: `${source.condition.value} rate`,
      gloss: `share of rows whose ${column} is ${source.condition.value}`,
    };
  }
  return words;
}

/** For a mean duration: the share of the segment's rows still without an end time, when the query counted ends. */
function openShare(step: DigestStep, measure: string, label: string, segmentColumn: string): number | null {
  const source = measureSource(step.sql, measure);
  if (source?.kind !== 'duration_mean') return null;
  const endRate = step.rowColumns.find((name) => {
    const rate = measureSource(step.sql, name);
    return rate?.kind === 'rate' && rate.condition.op === 'not_null' && rate.condition.column === source.end;
  });
  if (!endRate) return null;
  const row = step.rows.find((candidate) => segmentLabel(candidate[segmentColumn]) === label);
  const ended = row ? numberOf(row[endRate]) : null;
  return ended === null ? null : 1 - ended;
}

/** A result column named by the table column it shows (`user` for the alias `user_value`). */
export function dimensionName(sql: string, column: string): string {
  return humanize(segmentSource(sql, column) ?? column);
}

/** A value with its unit (`10.2 days`, `35%`, `1,250`). */
export function showValue(value: number, isRate: boolean, words: Pick<MeasureWords, 'unit'>): string {
  return `${formatMeasure(value, isRate)}${words.unit ? ` ${words.unit}` : ''}`;
}

export function findSegmentGaps(step: DigestStep): Finding[] {
  const shape = shapeOf(step);
  if (!shape || !step.complete || shape.timeSegment || step.rows.length < 2) return [];
  // summaries of other kinds (months per segment, mixes, terms, brackets) have finders of their own
  if (step.rowColumns.some((name) => /^(months|term|dimension|outer_column)$|^corr_|^min_|^repeated_/.test(name))) return [];
  const ordinal = step.rows.every((row) => numberOf(row[shape.segmentColumn]) !== null);
  const findings: Finding[] = [];
  const dimension = ordinal ? ordinalName(shape.segmentColumn) : dimensionName(step.sql, shape.segmentColumn);
  for (const measure of [...shape.rateColumns, ...shape.averageColumns]) {
    const isRate = shape.rateColumns.includes(measure);
    const baseColumn = baseCountFor(measure, shape);
    if (!baseColumn) continue;
    const spreadColumn = `sd_${measure.replace(/^avg_/, '')}`;
    const hasSpread = step.rowColumns.includes(spreadColumn);
    const all = step.rows.map((row) => ({
      label: segmentLabel(row[shape.segmentColumn]),
      value: numberOf(row[measure]),
      base: numberOf(row[baseColumn]),
      spread: hasSpread ? numberOf(row[spreadColumn]) : null,
    }));
    const total = all.reduce((sum, row) => sum + (row.base ?? 0), 0);
    const floor = !isRate && hasSpread ? MIN_TESTED_AVERAGE_ROWS : minSegmentSize(total);
    const rows = all.filter(
      (row): row is { label: string; value: number; base: number; spread: number | null } =>
        row.value !== null && row.base !== null && row.base >= floor,
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
        spread: row.spread,
        rest,
        restBase,
        restSpread: hasSpread ? pooledSpread(others, rest) : null,
        ratio: rest > 0 ? row.value / rest : row.value > 0 ? Infinity : 1,
      };
    });
    const words = measureWordsFor(step, measure, baseColumn);
    // the weak segment is the news: a gap in the bad direction outranks a slightly larger one in the good direction
    const weight = (candidate: Candidate) =>
      Math.abs(Math.log(candidate.ratio)) * (words.negative && candidate.ratio > 1 ? BAD_DIRECTION_WEIGHT : 1);
    const zOf = (candidate: Candidate) => (isRate ? proportionZ(candidate) : welchZ(candidate));
    // only gaps that are large, and significant where the spread is known, compete for the headline
    const eligible = candidates.filter((candidate) => {
      if (!Number.isFinite(candidate.ratio) || candidate.ratio <= 0 || candidate.label === NO_SEGMENT) return false;
      if (Math.max(candidate.ratio, 1 / candidate.ratio) < MIN_GAP_RATIO) return false;
      const score = zOf(candidate);
      if (isRate) return Math.abs(candidate.value - candidate.rest) >= MIN_RATE_GAP && (score ?? 0) >= MIN_Z_SCORE;
      return score === null ? candidate.base >= minSegmentSize(total) : score >= MIN_Z_SCORE;
    });
    const ranked = eligible.sort((left, right) => weight(right) - weight(left) || (left.label < right.label ? -1 : 1));
    // the strongest gap, and the strongest on the other side when there is one (the slowest and the fastest)
    const first = ranked[0];
    const other = first && rows.length >= 3 ? ranked.find((candidate) => candidate.ratio > 1 !== first.ratio > 1) : undefined;
    for (const best of [first, other]) {
      if (!best) continue;
      const magnitude = Math.max(best.ratio, 1 / best.ratio);
      const z = zOf(best);
      const significant = z !== null && z >= MIN_Z_SCORE;

      const higher = best.ratio > 1;
      const bad = words.negative === higher && words.negative;
      const good = words.positive === true ? higher : words.negative ? !higher : false;
      const segment = segmentPhrase(shape.segmentColumn, best.label, ordinal);
      const listed = [...rows]
        .sort((left, right) => right.value - left.value || (left.label < right.label ? -1 : 1))
        .slice(0, LISTED_SEGMENTS);
      const value = showValue(best.value, isRate, words);
      const restValue = showValue(best.rest, isRate, words);
      const rowsName = rowsNoun(baseColumn);
      const strongly = significant ? 'significantly' : 'clearly';
      const comparison = `${strongly} ${higher ? 'higher' : 'lower'} than the other ${dimension} values`;
      const name = `${segment}: ${words.phrase} ${comparison} (${value} vs ${restValue}, ${formatRatio(higher ? magnitude : 1 / magnitude)})`;
      const verdict = bad ? 'Weak spot: ' : good ? 'Strength: ' : '';
      const open = openShare(step, measure, best.label, shape.segmentColumn);
      const description = [
        `${verdict}By ${dimension} (step ${step.step}), ${segment} has ${isRate ? 'a' : 'an'} ${words.phrase} of ${value} over ${formatCount(best.base)} ${rowsName}, ${strongly} ${higher ? 'higher' : 'lower'} than the ${restValue} of the other ${dimension} values (${formatCount(best.restBase)} ${rowsName}; ${formatRatio(magnitude)} ${higher ? 'above' : 'below'}${z !== null ? `, z = ${z.toFixed(1)}` : ''}).`,
        `Measure: ${words.gloss}.`,
        open !== null && open > 0
          ? `${formatPercent(open)} of the ${segment} ${rowsName} have no end time yet (still open) and are not in the average.`
          : '',
        `All ${dimension} values: ${listed.map((row) => `${segmentPhrase(shape.segmentColumn, row.label, ordinal)} ${showValue(row.value, isRate, words)} (${formatCount(row.base)})`).join(', ')}.`,
        rows.length >= 3
          ? `The ${words.phrase} varies across ${pluralNoun(dimension)}, from ${showValue((listed.at(-1) as (typeof listed)[number]).value, isRate, words)} (${(listed.at(-1) as (typeof listed)[number]).label}) to ${showValue((listed[0] as (typeof listed)[number]).value, isRate, words)} (${(listed[0] as (typeof listed)[number]).label}).`
          : '',
        bad
          ? `For ${words.phrase}, ${higher ? 'higher' : 'lower'} is worse.`
          : good
            ? `${segment} does better than the rest.`
            : `No direction is known to be better for ${words.phrase}: the gap is reported as a difference to explain.`,
      ]
        .filter(Boolean)
        .join(' ');
      const share = best.base / totalBase;
      const raw = step.rows.find((row) => segmentLabel(row[shape.segmentColumn]) === best.label)?.[shape.segmentColumn];
      const segmentValue = typeof raw === 'number' ? raw : best.label;
      const claim: Claim | undefined = gapClaim({
        sql: step.sql,
        segmentColumn: shape.segmentColumn,
        segmentValue,
        measureColumn: measure,
        value: roundMetric(best.value),
        restValue: roundMetric(best.rest),
        label: words.phrase,
      });
      findings.push({
        kind: 'segment_gap',
        steps: [step.step],
        strength: Math.abs(Math.log(best.ratio)) * Math.min(1, Math.sqrt(best.base / 500)) * (bad ? 1.2 : 1) * (significant ? 1.2 : 1),
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
          ...(z !== null ? { z_score: roundMetric(z) } : {}),
          segment_column: shape.segmentColumn,
          segment_value: segmentValue,
          count_column: baseColumn,
          source_step: step.step,
        },
        indicators: [`${words.phrase} ${value} vs ${restValue}`, `${formatPercent(share)} of ${rowsName} are ${segment}`],
        targetSegment: `${segment} (${dimension}) — ${rowsName}`,
        dedupeKey: `${shape.segmentColumn}:${best.label}:${measure}`,
        ...(claim ? { claim } : {}),
      });
    }
  }
  return findings;
}
