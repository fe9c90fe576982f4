/**
 * What the project's users said about earlier insights, applied to this run's findings. A like or a
 * dislike is on an insight; the insight carries its claims (the main one and the supporting ones), and a
 * finding is judged by the claims it shares with it:
 *
 * - the same fact (the same kind, measure, segment or series: `factKey`) — a disliked fact drops to a
 *   fifth of its score (kept, so the user can still find it, but no longer in the top of its area); a
 *   liked one gains half again;
 * - the same theme (the same measure read by the same grouping, whatever the value): a dislike takes a
 *   quarter off, a like adds a fifth.
 *
 * The newest rating of an insight counts; a fact rated both ways by different insights takes the
 * stronger weight of each direction and multiplies them, so one like and one dislike about the same
 * fact nearly cancel. Each adjusted finding records why, and the scores are re-ranked.
 */
import type { Claim, DiscoveryResult, Feedback, MinedFinding } from '../../domain/index.js';
import { factKey } from './ranking.js';

export const FEEDBACK_WEIGHTS = {
  likedFact: 1.5,
  likedTheme: 1.2,
  dislikedFact: 0.2,
  dislikedTheme: 0.75,
} as const;

export interface FeedbackSignal {
  rating: 'like' | 'dislike';
  insightId: string;
  claims: readonly Claim[];
}

/** A measure read by a grouping: the segment's column or the series' axis. */
function themeKey(claim: Claim): string {
  const metric = claim.metric;
  return JSON.stringify([
    metric.table,
    metric.kind,
    metric.column ?? metric.end_column ?? null,
    metric.condition?.column ?? null,
    claim.segment?.column ?? claim.series?.column ?? null,
    claim.x?.column ?? null,
  ]);
}

/** The newest rating of each insight that carried claims, from the project's feedback and its earlier results. */
export function feedbackSignals(
  feedback: readonly Feedback[],
  results: ReadonlyArray<Pick<DiscoveryResult, 'run_id' | 'insights'>>,
): FeedbackSignal[] {
  const byId = new Map(
    results.flatMap((result) => result.insights.map((insight) => [`${result.run_id}\u0000${insight.id}`, insight] as const)),
  );
  const newest = new Map<string, Feedback>();
  for (const entry of feedback) {
    if (entry.target_type !== 'insight') continue;
    const key = `${entry.run_id}\u0000${entry.target_id}`;
    const held = newest.get(key);
    if (!held || entry.created_at > held.created_at) newest.set(key, entry);
  }
  const signals: FeedbackSignal[] = [];
  for (const entry of newest.values()) {
    const insight = byId.get(`${entry.run_id}\u0000${entry.target_id}`);
    if (!insight) continue;
    const claims = [...(insight.claim ? [insight.claim] : []), ...insight.supporting_claims];
    if (claims.length > 0) signals.push({ rating: entry.rating, insightId: entry.target_id, claims });
  }
  return signals;
}

export interface FeedbackApplied {
  findings: MinedFinding[];
  /** One line per finding whose score changed: what the run's notes say. */
  notes: string[];
}

/** The findings with feedback applied to their scores, best first, and what changed. */
export function applyFeedback(findings: readonly MinedFinding[], signals: readonly FeedbackSignal[]): FeedbackApplied {
  if (signals.length === 0) return { findings: [...findings], notes: [] };
  const facts = new Map<string, FeedbackSignal[]>();
  const themes = new Map<string, FeedbackSignal[]>();
  const add = (map: Map<string, FeedbackSignal[]>, key: string, signal: FeedbackSignal) => {
    const list = map.get(key) ?? [];
    if (!list.includes(signal)) list.push(signal);
    map.set(key, list);
  };
  for (const signal of signals)
    for (const claim of signal.claims) {
      add(facts, factKey(claim), signal);
      add(themes, themeKey(claim), signal);
    }

  const weighed = findings.map((finding) => {
    const sameFact = facts.get(factKey(finding.claim)) ?? [];
    const sameTheme = (themes.get(themeKey(finding.claim)) ?? []).filter((signal) => !sameFact.includes(signal));
    const strongest = (rating: FeedbackSignal['rating']) => {
      if (sameFact.some((signal) => signal.rating === rating))
        return rating === 'like' ? FEEDBACK_WEIGHTS.likedFact : FEEDBACK_WEIGHTS.dislikedFact;
      if (sameTheme.some((signal) => signal.rating === rating))
        return rating === 'like' ? FEEDBACK_WEIGHTS.likedTheme : FEEDBACK_WEIGHTS.dislikedTheme;
      return 1;
    };
    const weight = strongest('like') * strongest('dislike');
    if (weight === 1) return { finding, was: finding.id };
    const insights = [...new Set([...sameFact, ...sameTheme].map((signal) => `${signal.rating}d ${signal.insightId}`))];
    return { finding: { ...finding, score: finding.score * weight, feedback: { weight, insights } }, was: finding.id };
  });
  // stable: equal scores keep the mining order; ids follow the new rank (F1 is the best)
  const order = new Map(findings.map((finding, index) => [finding.id, index]));
  weighed.sort((left, right) => right.finding.score - left.finding.score || (order.get(left.was) ?? 0) - (order.get(right.was) ?? 0));
  const notes: string[] = [];
  const ranked = weighed.map(({ finding }, index) => {
    const renamed = { ...finding, id: `F${index + 1}` };
    if (renamed.feedback)
      notes.push(`${renamed.id} weighted ×${renamed.feedback.weight.toFixed(2)} by feedback (${renamed.feedback.insights.join(', ')})`);
    return renamed;
  });
  return { findings: ranked, notes };
}
