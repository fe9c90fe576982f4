/**
 * Scoring a run's insights against a flag's ground truth. Only insights verification did not reject
 * compete; each ground-truth finding is scored by its best-matching one (ROUGE-1 recall), and the
 * flag's score is the mean over its ground truth. Pure: the LLM judge's verdicts come in from outside.
 */
import type { Insight, ValidationStatus } from '../../domain/index.js';
import type { GroundTruthInsight } from './flag.js';
import type { JudgedFinding } from './judge.js';
import { bestRouge1Match } from './rouge.js';

/** The text of an insight that is scored: its prose fields, not its machine-named metrics. */
export function insightText(insight: Pick<Insight, 'name' | 'description' | 'target_segment' | 'indicators'>): string {
  return [insight.name, insight.description, insight.target_segment, ...insight.indicators]
    .filter((part) => part.trim().length > 0)
    .join('. ');
}

/** Insights that compete for the score: every one verification did not reject. */
export function scoredInsights(insights: readonly Insight[]): Insight[] {
  return insights.filter((insight) => insight.validation?.status !== 'rejected');
}

export function judgedFindings(insights: readonly Insight[]): JudgedFinding[] {
  return scoredInsights(insights).map((insight) => ({ id: insight.id, text: insightText(insight) }));
}

export type StatusCounts = Record<ValidationStatus | 'unvalidated', number> & { total: number; scored: number };

export function countStatuses(insights: readonly Insight[]): StatusCounts {
  const counts: StatusCounts = {
    total: insights.length,
    scored: 0,
    confirmed: 0,
    adjusted: 0,
    rejected: 0,
    skipped: 0,
    unverified: 0,
    error: 0,
    unvalidated: 0,
  };
  for (const insight of insights) counts[insight.validation?.status ?? 'unvalidated'] += 1;
  counts.scored = insights.length - counts.rejected;
  return counts;
}

export interface GroundTruthMatch {
  index: number;
  ground_truth: string;
  rouge1_recall: number;
  /** The best-matching scored insight, or null when the run has none. */
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

export function scoreRouge(groundTruth: readonly GroundTruthInsight[], insights: readonly Insight[]): RougeScore {
  const candidates = scoredInsights(insights);
  const texts = candidates.map(insightText);
  const recalls: number[] = [];
  const perGroundTruth = groundTruth.map((truth): GroundTruthMatch => {
    const best = bestRouge1Match(truth.insight, texts);
    recalls.push(best.recall);
    const insight = best.index === null ? undefined : candidates[best.index];
    return {
      index: truth.index,
      ground_truth: truth.insight,
      rouge1_recall: rounded(best.recall),
      best_insight_id: insight?.id ?? null,
      best_insight_text: best.index === null ? null : (texts[best.index] ?? null),
    };
  });
  const total = recalls.reduce((sum, recall) => sum + recall, 0);
  return { rouge1_recall_mean: recalls.length === 0 ? 0 : rounded(total / recalls.length), per_ground_truth: perGroundTruth };
}
