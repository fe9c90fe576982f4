/**
 * Ranking mined findings: a score that multiplies how large the effect is, how much of the data it
 * covers, how significant it is after correction, and how relevant it is to the project's goal (the
 * QuickInsights recipe: significance × coverage, here with the goal as a third factor). Restatements
 * are dropped — the same fact measured twice, one column restating another (a rate of 100% against
 * 0% is a definition, not a finding), or one fact seen from both sides (stated once, see claims/stance.ts).
 */
import type { Claim, MinedFinding } from '../../domain/index.js';
import { renderClaim } from '../claims/claim-text.js';
import { mirrors, preferredSide } from '../claims/stance.js';
import type { Candidate } from './candidate.js';
import type { MiningTable } from './mining-table.js';

/** How much more a finding on what the goal is about weighs: a fully relevant one counts (1 + GOAL_WEIGHT)×. */
export const GOAL_WEIGHT = 1.5;

export interface ScoredInput extends Candidate {
  q: number;
  relevance: number;
}

function unit(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.min(1, value)) : 0;
}

/** Support: the share of rows covered and the number of rows behind the segment. */
export function supportFactor(candidate: Pick<Candidate, 'coverage' | 'claim'>): number {
  const rows = candidate.claim.n?.segment ?? 0;
  return 0.5 * Math.sqrt(unit(candidate.coverage / 0.1)) + 0.5 * unit(Math.log10(Math.max(1, rows)) / 3);
}

/**
 * How much a kind of finding tells a reader by itself: a correlation between two attributes of the same
 * records is often structural (tenure columns move together), so it needs a larger effect or a closer
 * tie to the goal to outrank a segment that differs.
 */
const KIND_WEIGHT: Readonly<Record<Claim['kind'], number>> = {
  difference: 1,
  share: 0.9,
  trend: 1,
  shift: 1,
  correlation: 0.7,
  contribution: 1,
  // a few extreme records are worth knowing, rarely the answer to a question about the whole
  outlier: 0.8,
};

/** Findings of a kind kept per table at most, the best-scored first: a few extreme records, not a list of them. */
export const PER_TABLE_CAP: Readonly<Partial<Record<Claim['kind'], number>>> = { outlier: 2, contribution: 3 };

/** A correlation with a measure the goal is about is what "what drives X" asks for: no discount. */
const GOAL_MEASURE_RELEVANCE = 0.6;

export function scoreOf(candidate: ScoredInput): number {
  const significance = unit(-Math.log10(Math.max(candidate.q, 1e-300)) / 8);
  const kindWeight =
    candidate.claim.kind === 'correlation' && candidate.relevance >= GOAL_MEASURE_RELEVANCE ? 1 : KIND_WEIGHT[candidate.claim.kind];
  return kindWeight * candidate.strength * supportFactor(candidate) * (0.6 + 0.4 * significance) * (1 + GOAL_WEIGHT * candidate.relevance);
}

/** The fact's identity: two candidates with the same key say the same thing. */
export function factKey(claim: Claim): string {
  const metric = claim.metric;
  return JSON.stringify([
    claim.kind,
    metric.table,
    metric.kind,
    metric.column ?? null,
    metric.start_column ?? null,
    metric.end_column ?? null,
    metric.condition ?? null,
    claim.segment ?? null,
    claim.series?.column ?? null,
    claim.series?.grain ?? null,
    claim.window ?? null,
    claim.x?.column ?? null,
  ]);
}

/** Below this strength (a 0.1-standard-deviation gap, r ≈ 0.26, a 1.1× ratio) an effect is negligible, however significant. */
export const MIN_STRENGTH = 0.08;

/** Discount per earlier finding on the same measure and kind. */
const VARIETY_DISCOUNT = 0.85;

function varietyKey(claim: Claim): string {
  return JSON.stringify([
    claim.kind,
    claim.metric.kind,
    claim.metric.column ?? claim.metric.end_column ?? '',
    claim.metric.condition?.column ?? '',
  ]);
}

/**
 * Two differences on one grouping and one measure that say the same thing: a range and a value inside
 * it (garage cars 3 and garage cars 3–4), or two ranges that split the values between them (full baths
 * 0–1 lower, 2–4 higher) — the better-scored one stays.
 */
function restates(kept: Claim, candidate: Claim): boolean {
  if (kept.kind !== 'difference' || candidate.kind !== 'difference' || !kept.segment || !candidate.segment) return false;
  // the same association read both ways: North's share of Beta items, Beta's share of North items
  const swapped = (left: Claim, right: Claim) =>
    left.metric.kind === 'rate' &&
    right.metric.kind === 'rate' &&
    left.metric.condition?.op === '=' &&
    right.metric.condition?.op === '=' &&
    left.metric.condition.column === right.segment?.column &&
    left.metric.condition.value === right.segment?.value &&
    right.metric.condition.column === left.segment?.column &&
    right.metric.condition.value === left.segment?.value;
  if (swapped(kept, candidate)) return true;
  if (kept.segment.column !== candidate.segment.column || kept.segment.grain !== candidate.segment.grain) return false;
  if (
    JSON.stringify([kept.metric.kind, kept.metric.column, kept.metric.condition, kept.metric.start_column]) !==
    JSON.stringify([candidate.metric.kind, candidate.metric.column, candidate.metric.condition, candidate.metric.start_column])
  )
    return false;
  const span = (segment: NonNullable<Claim['segment']>): [number, number] | undefined => {
    if (typeof segment.value === 'number') return [segment.value, segment.value + 1];
    if (typeof segment.from === 'number' || typeof segment.to === 'number')
      return [
        typeof segment.from === 'number' ? segment.from : Number.NEGATIVE_INFINITY,
        typeof segment.to === 'number' ? segment.to : Number.POSITIVE_INFINITY,
      ];
    return undefined;
  };
  const a = span(kept.segment);
  const b = span(candidate.segment);
  if (!a || !b) return false;
  const overlap = a[0] < b[1] && b[0] < a[1];
  const complement = kept.direction !== candidate.direction && (a[1] === b[0] || b[1] === a[0]);
  return overlap || complement;
}

/** Rows behind a segment from which an all-or-none rate is a rule of the data rather than chance. */
const RULE_MIN_ROWS = 50;

/**
 * A rate of (nearly) all against (nearly) none: one column restating another, not a finding. Between
 * two flags (a yes/no column, or whether a column is filled in: shipped or not), all or none on either
 * side is one implying the other — every checkout session added to cart, no refund on an undelivered
 * order. Between other columns, every one of many rows of a segment on one side (mobile orders never
 * from a desktop session; every delivered order shipped) is the same kind of rule: a tendency leaves
 * exceptions.
 */
function isDefinitional(claim: Claim): boolean {
  if (claim.kind !== 'difference' || claim.metric.kind !== 'rate') return false;
  const allOrNone = (rate: number, margin: number) => rate >= 1 - margin || rate <= margin;
  if (allOrNone(claim.value, 0.005) && allOrNone(claim.comparison_value, 0.005)) return true;
  const condition = claim.metric.condition;
  const flagLike = (value: unknown) => typeof value === 'boolean';
  const flags = flagLike(claim.segment?.value) || flagLike(condition?.value) || condition?.op === 'is_null' || condition?.op === 'not_null';
  if (flags && [claim.value, claim.comparison_value].some((rate) => allOrNone(rate, 0.001))) return true;
  return (claim.n?.segment ?? 0) >= RULE_MIN_ROWS && allOrNone(claim.value, 0.001);
}

/**
 * Two differences that measure the same thing on the same rows under two names (`region` and
 * `shipping_region`, a channel and its cost model): the same measure, as many rows behind the segment,
 * the same value on it.
 */
function sameRows(kept: Claim, candidate: Claim): boolean {
  if (kept.kind !== 'difference' || candidate.kind !== 'difference' || !kept.segment || !candidate.segment) return false;
  if (kept.metric.table !== candidate.metric.table) return false;
  const measure = (claim: Claim) =>
    JSON.stringify([claim.metric.kind, claim.metric.column, claim.metric.start_column, claim.metric.end_column, claim.metric.condition]);
  if (measure(kept) !== measure(candidate)) return false;
  const rows = kept.n?.segment;
  if (rows === undefined || rows !== candidate.n?.segment) return false;
  const scale = Math.max(Math.abs(kept.value), Math.abs(candidate.value), 1e-12);
  return Math.abs(kept.value - candidate.value) / scale < 1e-9;
}

/** Where a per-period total moves with the count of rows (more films, more gross), the total adds nothing: the count says it. */
function explainedByCount(claim: Claim, candidates: readonly ScoredInput[]): boolean {
  if ((claim.kind !== 'trend' && claim.kind !== 'shift') || claim.metric.kind !== 'sum') return false;
  const same = (other: Claim) =>
    other.kind === claim.kind &&
    other.metric.kind === 'count' &&
    other.metric.table === claim.metric.table &&
    other.direction === claim.direction &&
    other.series?.column === claim.series?.column &&
    JSON.stringify(other.segment ?? null) === JSON.stringify(claim.segment ?? null);
  return candidates.some((candidate) => same(candidate.claim));
}

export function rankFindings(candidates: readonly ScoredInput[], tables: ReadonlyMap<string, MiningTable>, limit: number): MinedFinding[] {
  const best = new Map<string, { candidate: ScoredInput; score: number }>();
  for (const candidate of candidates) {
    // significant only because the table is large: an effect this small is no finding
    if (candidate.strength < MIN_STRENGTH) continue;
    if (isDefinitional(candidate.claim) || explainedByCount(candidate.claim, candidates)) continue;
    const score = scoreOf(candidate);
    const key = factKey(candidate.claim);
    const held = best.get(key);
    if (!held || score > held.score) best.set(key, { candidate, score });
  }
  const sorted = [...best.values()].sort(
    (left, right) => right.score - left.score || left.candidate.subject.localeCompare(right.candidate.subject),
  );
  const kept: typeof sorted = [];
  const perTable = new Map<string, number>();
  for (const item of sorted) {
    // one fact from both sides (desktop abandons less, mobile more): told once, from the problem's side or
    // the larger segment's, with the better score of the two — it is the same evidence
    const mirrored = kept.findIndex((other) => mirrors(other.candidate.claim, item.candidate.claim));
    if (mirrored >= 0) {
      const held = kept[mirrored] as (typeof kept)[number];
      const chosen = preferredSide(held.candidate, item.candidate);
      kept[mirrored] = { candidate: chosen, score: Math.max(held.score, item.score) };
      continue;
    }
    const said = kept.some(
      (other) => restates(other.candidate.claim, item.candidate.claim) || sameRows(other.candidate.claim, item.candidate.claim),
    );
    if (said) continue;
    const cap = PER_TABLE_CAP[item.candidate.claim.kind];
    if (cap !== undefined) {
      const key = `${item.candidate.claim.kind} ${item.candidate.claim.metric.table}`;
      const held = perTable.get(key) ?? 0;
      if (held >= cap) continue;
      perTable.set(key, held + 1);
    }
    kept.push(item);
  }
  // variety: each further finding on the same measure and kind counts a little less, so one measure does not fill the list
  const seen = new Map<string, number>();
  const ranked = kept
    .map((item) => ({ item, key: varietyKey(item.candidate.claim) }))
    .sort((left, right) => right.item.score - left.item.score)
    .map(({ item, key }) => {
      const repeats = seen.get(key) ?? 0;
      seen.set(key, repeats + 1);
      return { ...item, score: item.score * VARIETY_DISCOUNT ** repeats };
    })
    .sort(
      (left, right) =>
        right.score - left.score ||
        right.candidate.coverage - left.candidate.coverage ||
        left.candidate.q - right.candidate.q ||
        left.candidate.subject.localeCompare(right.candidate.subject),
    );
  return ranked.slice(0, limit).map(({ candidate, score }, index): MinedFinding => {
    const table = tables.get(candidate.claim.metric.table);
    const noun = table?.noun ?? 'rows';
    const claim: Claim = {
      ...candidate.claim,
      noun,
      ...(candidate.claim.test ? { test: { ...candidate.claim.test, q_value: candidate.q } } : {}),
    };
    return {
      id: `F${index + 1}`,
      kind: claim.kind,
      claim,
      effect: candidate.effect,
      coverage: candidate.coverage,
      strength: candidate.strength,
      relevance: candidate.relevance,
      score,
      columns: [...new Set(candidate.columns)],
      noun,
      statement: renderClaim(claim).title,
    };
  });
}
