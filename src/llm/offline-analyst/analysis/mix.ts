/**
 * Mix: inside one value of a column, another column's value holds far more of the rows than it does
 * elsewhere (one goal category dominating one department; one location holding most of one
 * category's records). Terms: a word of a free-text column that most rows of one segment use and
 * the other rows rarely do (printer in hardware tickets). Both pass a two-proportion z-test.
 */
import type { Cell } from '../../../domain/index.js';
import type { DigestStep } from '../readers/digests.js';
import { formatCount, formatPercent, formatRatio, humanize, roundMetric, rowsNoun, stem, wordsOf } from '../text.js';
import { mixClaim } from './claims.js';
import { confidenceOf, type Finding } from './finding.js';
import { numberOf, segmentLabel } from './result-shape.js';
import { NO_SEGMENT, minSegmentSize } from './segment-gaps.js';
import { DIMENSION_COLUMN, VALUE_COLUMN } from '../sql/pattern-queries.js';

/** z-score a share gap must reach. */
const MIN_Z = 3;
/** The share inside must be this many times the share elsewhere. */
const MIN_LIFT = 1.3;
/** … and at least this share of the outer value's rows. */
const MIN_SHARE = 0.2;
/** Rows behind a pair before it can make a finding. */
const MIN_PAIR_ROWS = 10;
/** Findings per mix result (distinct outer values). */
const MAX_MIX_FINDINGS = 2;
/** A share of at least this is "most". */
const MAJORITY = 0.5;
/** Other terms of the same segment listed. */
const LISTED_TERMS = 4;

function shareZ(share: number, base: number, otherShare: number, otherBase: number): number {
  if (base <= 0 || otherBase <= 0) return 0;
  const pooled = (share * base + otherShare * otherBase) / (base + otherBase);
  const spread = Math.sqrt(pooled * (1 - pooled) * (1 / base + 1 / otherBase));
  return spread > 0 ? (share - otherShare) / spread : 0;
}

interface MixReading {
  outerColumn: string;
  outer: string;
  outerRaw: Cell;
  innerColumn: string;
  inner: string;
  innerRaw: Cell;
  n: number;
  outerN: number;
  all: number;
  share: number;
  elsewhere: number;
  z: number;
}

/** Both readings of a pair of values: the inner value's share within the outer value's rows, and the reverse. */
function readings(row: Record<string, Cell>, countColumn: string): MixReading[] {
  const n = numberOf(row[countColumn]) ?? 0;
  const outerN = numberOf(row[`outer_${countColumn}`]) ?? 0;
  const innerN = numberOf(row[`inner_${countColumn}`]) ?? 0;
  const all = numberOf(row[`all_${countColumn}`]) ?? 0;
  const a = {
    column: segmentLabel(row.outer_column),
    value: segmentLabel(row.outer_value),
    raw: row.outer_value ?? null,
    n: outerN,
  };
  const b = {
    column: segmentLabel(row.inner_column),
    value: segmentLabel(row.inner_value),
    raw: row.inner_value ?? null,
    n: innerN,
  };
  const read = (outer: typeof a, inner: typeof b, share: number, elsewhere: number): MixReading => ({
    outerColumn: outer.column,
    outer: outer.value,
    outerRaw: outer.raw,
    innerColumn: inner.column,
    inner: inner.value,
    innerRaw: inner.raw,
    n,
    outerN: outer.n,
    all,
    share,
    elsewhere,
    z: shareZ(share, outer.n, elsewhere, all - outer.n),
  });
  return [
    read(a, b, numberOf(row.share_in_outer) ?? 0, numberOf(row.share_in_outer_elsewhere) ?? 0),
    read(b, a, numberOf(row.share_in_inner) ?? 0, numberOf(row.share_in_inner_elsewhere) ?? 0),
  ];
}

/** Two columns that map onto each other (a group column that mirrors a category): their mix is bookkeeping, not a finding. */
const MIRROR_SHARE = 0.95;

export function findMix(step: DigestStep): Finding[] {
  if (step.rowColumns[0] !== 'outer_column' || !step.rowColumns.includes('share_in_outer')) return [];
  const countColumn = step.rowColumns[4];
  if (!countColumn) return [];
  const candidates = step.rows
    .filter((row) => !((numberOf(row.share_in_outer) ?? 0) >= MIRROR_SHARE && (numberOf(row.share_in_inner) ?? 0) >= MIRROR_SHARE))
    .flatMap((row) => readings(row, countColumn))
    .filter(
      (row) =>
        row.outer !== NO_SEGMENT &&
        row.inner !== NO_SEGMENT &&
        // a small group entirely of one value (a person in one department) is how the data is organised, not a finding
        row.outerN >= minSegmentSize(row.all) &&
        row.n >= MIN_PAIR_ROWS &&
        row.share >= MIN_SHARE &&
        row.z >= MIN_Z &&
        (row.elsewhere <= 0 || row.share / row.elsewhere >= MIN_LIFT),
    )
    .sort((left, right) => right.z * right.share - left.z * left.share || (left.outer < right.outer ? -1 : 1));
  const rowsName = rowsNoun(countColumn);
  const findings: Finding[] = [];
  const used = new Set<string>();
  for (const row of candidates) {
    const key = [row.outerColumn, row.outer, row.innerColumn, row.inner].join('|');
    const mirrored = [row.innerColumn, row.inner, row.outerColumn, row.outer].join('|');
    if (used.has(`${row.outerColumn}|${row.outer}`) || used.has(mirrored) || findings.length >= MAX_MIX_FINDINGS) continue;
    used.add(`${row.outerColumn}|${row.outer}`);
    used.add(key);
    const outerName = humanize(row.outerColumn);
    const innerName = humanize(row.innerColumn);
    const ratio = row.elsewhere > 0 ? row.share / row.elsewhere : Infinity;
    const ratioText = Number.isFinite(ratio) ? formatRatio(ratio) : 'only there';
    const most = row.share >= MAJORITY;
    const name = most
      ? `${row.inner} dominates within ${row.outer} (${outerName}): ${formatPercent(row.share)} of ${row.outer} ${rowsName} have ${innerName} ${row.inner}, against ${formatPercent(row.elsewhere)} in the other ${outerName} values`
      : `${row.inner} is concentrated in ${row.outer} (${outerName}): ${formatPercent(row.share)} of ${row.outer} ${rowsName} have ${innerName} ${row.inner}, against ${formatPercent(row.elsewhere)} in the other ${outerName} values`;
    const description = [
      `Mix of ${innerName} within each ${outerName} (step ${step.step}): ${formatCount(row.n)} of the ${formatCount(row.outerN)} ${rowsName} with ${outerName} ${row.outer} have ${innerName} ${row.inner} (${formatPercent(row.share)}), against ${formatPercent(row.elsewhere)} of the ${rowsName} of the other ${outerName} values (${ratioText}, z = ${row.z.toFixed(1)}).`,
      most
        ? `${row.outer} ${rowsName} are predominantly ${row.inner}: a concentration of ${row.inner} in ${row.outer} compared to the other ${outerName} values.`
        : `${row.inner} is over-represented in ${row.outer} compared to the other ${outerName} values.`,
    ].join(' ');
    const claim = mixClaim({
      sql: step.sql,
      outerColumn: row.outerColumn,
      outerValue: typeof row.outerRaw === 'number' ? row.outerRaw : row.outer,
      innerColumn: row.innerColumn,
      innerValue: typeof row.innerRaw === 'number' ? row.innerRaw : row.inner,
      share: roundMetric(row.share),
      shareElsewhere: roundMetric(row.elsewhere),
      label: `share of ${rowsName} with ${innerName} ${row.inner}`,
    });
    const rowKey =
      step.rows.find(
        (candidate) =>
          segmentLabel(candidate.outer_value) === row.outer &&
          segmentLabel(candidate.inner_value) === row.inner &&
          segmentLabel(candidate.outer_column) === row.outerColumn,
      ) !== undefined
        ? { outer_column: row.outerColumn, inner_column: row.innerColumn, inner_value: row.inner, value: row.outer }
        : { outer_column: row.innerColumn, inner_column: row.outerColumn, inner_value: row.outer, value: row.inner };
    findings.push({
      kind: 'mix',
      steps: [step.step],
      strength:
        Math.log(Math.max(1.01, Number.isFinite(ratio) ? ratio : 4)) * Math.min(1.5, row.share * 2) * Math.min(1, Math.sqrt(row.n / 100)),
      name,
      description,
      severity: ratio >= 2.5 ? 'high' : ratio >= 1.6 ? 'medium' : 'low',
      affectedCount: row.n,
      confidence: confidenceOf(row.n),
      riskScore: roundMetric(Math.min(1, row.share * 0.8)),
      metrics: {
        share_within: roundMetric(row.share),
        share_elsewhere: roundMetric(row.elsewhere),
        z_score: roundMetric(row.z),
        segment_column: 'outer_value',
        segment_value: rowKey.value,
        recount_where: JSON.stringify({
          outer_column: rowKey.outer_column,
          inner_column: rowKey.inner_column,
          inner_value: rowKey.inner_value,
        }),
        count_column: countColumn,
        source_step: step.step,
      },
      indicators: [`${formatPercent(row.share)} within ${row.outer} vs ${formatPercent(row.elsewhere)} elsewhere`, ratioText],
      targetSegment: `${rowsName} with ${outerName} ${row.outer} and ${innerName} ${row.inner}`,
      dedupeKey: `mix:${key}`,
      ...(claim ? { claim } : {}),
    });
  }
  return findings;
}

export function findTerms(step: DigestStep): Finding[] {
  if (step.rowColumns[0] !== DIMENSION_COLUMN || !step.rowColumns.includes('term_share')) return [];
  const withTermColumn = step.rowColumns[3];
  const countColumn = step.rowColumns[4];
  if (!withTermColumn || !countColumn) return [];
  const textColumn = /\bt\.("(?:[^"]|"")+"|[A-Za-z_]\w*) AS analyst_text\b/.exec(step.sql)?.[1]?.replace(/^"|"$/g, '') ?? 'text';
  const rows = step.rows.map((row) => ({
    column: segmentLabel(row[DIMENSION_COLUMN]),
    segment: segmentLabel(row[VALUE_COLUMN]),
    raw: row[VALUE_COLUMN] ?? null,
    term: segmentLabel(row.term),
    n: numberOf(row[withTermColumn]) ?? 0,
    segmentN: numberOf(row[countColumn]) ?? 0,
    share: numberOf(row.term_share) ?? 0,
    elsewhere: numberOf(row.term_share_elsewhere) ?? 0,
  }));
  const best = rows
    .filter(
      (row) =>
        row.segment !== NO_SEGMENT &&
        // a term that is the value's own name (travel in category Travel) says nothing new
        !wordsOf(row.segment).some((word) => stem(word) === stem(row.term)) &&
        row.n >= MIN_PAIR_ROWS &&
        row.share >= MIN_SHARE &&
        (row.elsewhere <= 0 || row.share / row.elsewhere >= 2) &&
        row.share - row.elsewhere >= 0.1,
    )
    .sort((left, right) => (right.share - right.elsewhere) * Math.sqrt(right.n) - (left.share - left.elsewhere) * Math.sqrt(left.n))[0];
  if (!best) return [];
  const dimension = humanize(best.column);
  const textName = humanize(textColumn);
  const rowsName = rowsNoun(countColumn);
  const ratio = best.elsewhere > 0 ? best.share / best.elsewhere : Infinity;
  const others = rows
    .filter((row) => row.column === best.column && row.segment === best.segment && row.term !== best.term && row.share >= MIN_SHARE / 2)
    .slice(0, LISTED_TERMS);
  const most = best.share >= MAJORITY;
  const name = most
    ? `Most ${best.segment} ${rowsName} mention "${best.term}" in ${textName}: ${formatPercent(best.share)} of them, against ${formatPercent(best.elsewhere)} of the other ${dimension} values`
    : `"${best.term}" marks ${best.segment} (${dimension}): ${formatPercent(best.share)} of its ${rowsName} mention it in ${textName}, against ${formatPercent(best.elsewhere)} of the others`;
  const description = [
    `Terms of ${textName} by ${dimension} (step ${step.step}): ${formatCount(best.n)} of the ${formatCount(best.segmentN)} ${best.segment} ${rowsName} (${formatPercent(best.share)}) mention "${best.term}", against ${formatPercent(best.elsewhere)} of the ${rowsName} of the other ${dimension} values${Number.isFinite(ratio) ? ` (${formatRatio(ratio)})` : ''}.`,
    others.length > 0
      ? `Other frequent terms of ${best.segment}: ${others.map((row) => `"${row.term}" (${formatPercent(row.share)})`).join(', ')}.`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
  return [
    {
      kind: 'terms',
      steps: [step.step],
      strength: (best.share - best.elsewhere) * 2 * Math.min(1, Math.sqrt(best.n / 50)),
      name,
      description,
      severity: best.share >= 0.5 ? 'medium' : 'low',
      affectedCount: best.n,
      confidence: confidenceOf(best.n),
      riskScore: roundMetric(Math.min(1, best.share * 0.6)),
      metrics: {
        term_share: roundMetric(best.share),
        term_share_elsewhere: roundMetric(best.elsewhere),
        segment_column: VALUE_COLUMN,
        segment_value: typeof best.raw === 'number' ? best.raw : best.segment,
        recount_where: JSON.stringify({ [DIMENSION_COLUMN]: best.column, term: best.term }),
        count_column: withTermColumn,
        source_step: step.step,
      },
      indicators: [`"${best.term}" in ${formatPercent(best.share)} of ${best.segment} vs ${formatPercent(best.elsewhere)} elsewhere`],
      targetSegment: `${best.segment} ${rowsName} mentioning "${best.term}" (${dimension})`,
      dedupeKey: `terms:${best.column}:${best.segment}:${best.term}`,
    },
  ];
}
