/** A candidate insight before it is written out: the numbers it rests on and how strong it is. */
import type { Claim } from '../../../domain/index.js';

export type Severity = 'critical' | 'high' | 'medium' | 'low';

export interface Finding {
  /** Which finder produced it (segment gap, trend, cliff …). */
  kind: string;
  steps: number[];
  /** Ranks findings within an area: effect size weighted by support. */
  strength: number;
  name: string;
  description: string;
  severity: Severity;
  affectedCount: number | null;
  confidence: number;
  riskScore: number;
  /** Numbers used, plus how to recount the affected rows (segment_column, segment_value(s), count_column, source_step). */
  metrics: Record<string, number | string>;
  indicators: string[];
  targetSegment: string;
  /** Findings with the same key say the same thing; the strongest is kept. */
  dedupeKey: string;
  /** What verification recounts on both sides, when the finding's SQL shows how its numbers were measured. */
  claim?: Claim;
}

/** Severity from the size of an effect (a ratio ≥ 1) and the share of the population it concerns. */
export function severityOf(ratio: number, share: number): Severity {
  if (ratio >= 2.5 && share >= 0.1) return 'critical';
  if (ratio >= 1.8) return 'high';
  if (ratio >= 1.4) return 'medium';
  return 'low';
}

/** Confidence from support: a few hundred rows behind a full aggregate is solid. */
export function confidenceOf(support: number): number {
  if (support >= 1_000) return 0.9;
  if (support >= 300) return 0.8;
  if (support >= 100) return 0.7;
  return 0.6;
}
