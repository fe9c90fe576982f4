/**
 * Scoring a run's insights against a flag's ground truth. Each ground-truth finding is scored by its
 * best-matching candidate (ROUGE-1 recall), and the flag's score is the mean over its ground truth.
 * Pure: the LLM judge's verdicts come in from outside.
 *
 * The headline score is the honest rule: only found insights compete (confirmed, or adjusted with
 * their text re-rendered from the recount), each by its name and description capped at
 * INSIGHT_TEXT_CAP characters, English stop words removed from both sides. The same rule scores the
 * template baseline (template-baseline.ts), and the lift over it is what discovery adds beyond the
 * table's own words. The raw rule — every insight not rejected, its prose fields uncapped, stop words
 * kept — is kept beside it so figures computed before stay comparable.
 */
import type { Insight, ValidationStatus } from '../../domain/index.js';
import type { GroundTruthInsight } from './flag.js';
import type { JudgedFinding } from './judge.js';
import { bestRouge1Match, ENGLISH_STOP_WORDS, type RougeOptions, STOP_WORDS_SOURCE } from './rouge.js';

/** Characters of an insight's text (name + description) that are scored: about three sentences, what a reader takes in at a glance. */
export const INSIGHT_TEXT_CAP = 400;

const HONEST: RougeOptions = { stopWords: ENGLISH_STOP_WORDS };

/** The honest rule in words, as reports print it. */
export const SCORING_RULE = {
  stop_words: `${STOP_WORDS_SOURCE}, ${ENGLISH_STOP_WORDS.size} words, removed from both sides`,
  text: `name + description, capped at ${INSIGHT_TEXT_CAP} characters`,
  found: 'confirmed, or adjusted with its text re-rendered from the recount',
} as const;

/** The raw rule in words: what `raw` scores. */
export const RAW_SCORING_RULE =
  'every insight verification did not reject; name, description, target segment and indicators, uncapped; no stop words removed';

/**
 * `text` cut to at most `cap` characters, at the last word boundary inside the cap (a word is never
 * cut in two, so the cut adds no partial token); text within the cap is returned as is.
 */
export function capText(text: string, cap: number = INSIGHT_TEXT_CAP): string {
  if (text.length <= cap) return text;
  const head = text.slice(0, cap);
  // the cut falls inside a word unless the next character is a separator
  if (/[^\p{L}\p{N}]/u.test(text.charAt(cap))) return head;
  const boundary = head.search(/[^\p{L}\p{N}][\p{L}\p{N}]*$/u);
  return boundary <= 0 ? '' : head.slice(0, boundary);
}

/** The text of an insight the honest rule scores: its name and description, capped. */
export function scoredText(insight: Pick<Insight, 'name' | 'description'>): string {
  return capText(
    [insight.name, insight.description]
      .map((part) => part.trim())
      .filter((part) => part.length > 0)
      .join('. '),
  );
}

/** The text the raw rule scored: every prose field, uncapped. */
export function rawInsightText(insight: Pick<Insight, 'name' | 'description' | 'target_segment' | 'indicators'>): string {
  return [insight.name, insight.description, insight.target_segment, ...insight.indicators]
    .filter((part) => part.trim().length > 0)
    .join('. ');
}

/**
 * An insight that counts as found: confirmed, or adjusted whose title and description verification
 * re-rendered from the recount. An adjusted insight that kept its own words still states numbers the
 * recount did not support; unverified, rejected and errored insights checked nothing.
 */
export function isFound(insight: Pick<Insight, 'validation'>): boolean {
  const validation = insight.validation;
  return validation?.status === 'confirmed' || (validation?.status === 'adjusted' && validation.text_rerendered === true);
}

export function foundInsights(insights: readonly Insight[]): Insight[] {
  return insights.filter(isFound);
}

/** What the LLM judge reads: the found insights, by the same capped text the honest rule scores. */
export function judgedFindings(insights: readonly Insight[]): JudgedFinding[] {
  return foundInsights(insights).map((insight) => ({ id: insight.id, text: scoredText(insight) }));
}

export type StatusCounts = Record<ValidationStatus | 'unvalidated', number> & {
  total: number;
  /** Insights that count as found (isFound): the only ones that compete for the headline score. */
  found: number;
};

export function countStatuses(insights: readonly Insight[]): StatusCounts {
  const counts: StatusCounts = {
    total: insights.length,
    found: 0,
    confirmed: 0,
    adjusted: 0,
    rejected: 0,
    skipped: 0,
    unverified: 0,
    error: 0,
    unvalidated: 0,
  };
  for (const insight of insights) counts[insight.validation?.status ?? 'unvalidated'] += 1;
  counts.found = insights.filter(isFound).length;
  return counts;
}

/** A candidate text that competes for a ground truth: an insight, or a template sentence (id null). */
export interface ScoredCandidate {
  id: string | null;
  text: string;
}

export interface GroundTruthMatch {
  index: number;
  ground_truth: string;
  rouge1_recall: number;
  /** The best-matching candidate's id (null for a template sentence, or when no candidate shares a word with the ground truth). */
  best_insight_id: string | null;
  best_insight_text: string | null;
}

export interface RougeScore {
  rouge1_recall_mean: number;
  per_ground_truth: GroundTruthMatch[];
}

const SCORE_DIGITS = 4;

function rounded(value: number): number {
  const scale = 10 ** SCORE_DIGITS;
  return Math.round(value * scale) / scale;
}

/** Mean over the ground truth of the best candidate's ROUGE-1 recall under `options`. */
export function scoreCandidates(
  groundTruth: readonly GroundTruthInsight[],
  candidates: readonly ScoredCandidate[],
  options: RougeOptions = {},
): RougeScore {
  const texts = candidates.map((candidate) => candidate.text);
  const recalls: number[] = [];
  const perGroundTruth = groundTruth.map((truth): GroundTruthMatch => {
    const best = bestRouge1Match(truth.insight, texts, options);
    recalls.push(best.recall);
    // a candidate that shares no word with the ground truth is no match, even when every other shares none either
    const candidate = best.index === null || best.recall === 0 ? undefined : candidates[best.index];
    return {
      index: truth.index,
      ground_truth: truth.insight,
      rouge1_recall: rounded(best.recall),
      best_insight_id: candidate?.id ?? null,
      best_insight_text: candidate?.text ?? null,
    };
  });
  const total = recalls.reduce((sum, recall) => sum + recall, 0);
  return { rouge1_recall_mean: recalls.length === 0 ? 0 : rounded(total / recalls.length), per_ground_truth: perGroundTruth };
}

/** The honest rule: found insights, name + description capped, stop words removed. */
export function scoreRouge(groundTruth: readonly GroundTruthInsight[], insights: readonly Insight[]): RougeScore {
  return scoreCandidates(
    groundTruth,
    foundInsights(insights).map((insight) => ({ id: insight.id, text: scoredText(insight) })),
    HONEST,
  );
}

/** The raw rule (before the honest one): every insight not rejected, all prose fields, uncapped, stop words kept. */
export function scoreRougeRaw(groundTruth: readonly GroundTruthInsight[], insights: readonly Insight[]): RougeScore {
  return scoreCandidates(
    groundTruth,
    insights
      .filter((insight) => insight.validation?.status !== 'rejected')
      .map((insight) => ({ id: insight.id, text: rawInsightText(insight) })),
  );
}

/** Template sentences scored by the honest rule (each capped like an insight's text). */
export function scoreTemplateSentences(groundTruth: readonly GroundTruthInsight[], sentences: readonly string[]): RougeScore {
  return scoreCandidates(
    groundTruth,
    sentences.map((sentence) => ({ id: null, text: capText(sentence) })),
    HONEST,
  );
}

export interface Lift {
  /** score ÷ baseline; null when the baseline scores 0. */
  ratio: number | null;
  /** score − baseline. */
  difference: number;
}

export function liftOver(score: number, baseline: number): Lift {
  return { ratio: baseline > 0 ? rounded(score / baseline) : null, difference: rounded(score - baseline) };
}
