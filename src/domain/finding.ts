import { z } from 'zod';
import { claimKindSchema, claimSchema } from './claim.js';

/** How large an effect is, in the unit its kind is judged by. */
export const findingEffectSchema = z.object({
  /**
   * `ratio` segment ÷ comparison; `standardized` mean gap in pooled standard deviations; `lift` share ÷
   * even share; `relative_change` change over the period as a share of the level; `r` Pearson's r;
   * `share_of_change` a segment's part of a change ÷ the change (`contribution`); `robust_z` how far the
   * extreme rows' mean lies from the median in robust spreads (`outlier`).
   */
  name: z.enum(['ratio', 'standardized', 'lift', 'relative_change', 'r', 'share_of_change', 'robust_z']),
  value: z.number().finite(),
});
export type FindingEffect = z.infer<typeof findingEffectSchema>;

/**
 * A finding the engine mined from the warehouse with its own SQL: a claim (with its test and support),
 * how strong and how relevant it is, and its rank. Findings are evidence for the analysis: the model
 * (or the offline narrator) turns the ones it chooses into insights, each carrying the claim.
 */
export const minedFindingSchema = z.object({
  /** `F1`, `F2` … in rank order within the run. */
  id: z.string().regex(/^F\d{1,5}$/),
  kind: claimKindSchema,
  claim: claimSchema,
  effect: findingEffectSchema,
  /** Share of the table's rows the finding is about (0–1). */
  coverage: z.number().min(0).max(1),
  /** Effect size mapped to 0–1 (see docs/mining.md). */
  strength: z.number().min(0).max(1),
  /** Similarity of the finding's subject to the project's goal (0–1). */
  relevance: z.number().min(0).max(1),
  score: z.number().min(0),
  /** Every column the finding reads: what a tautology check and a merge compare. */
  columns: z.array(z.string()).default([]),
  /** The area it is evidence for. */
  area_id: z.string().optional(),
  /** How close it is to that area's words, against the closest finding of the area (0–1): the area's own order. */
  area_fit: z.number().min(0).max(1).optional(),
  /** Plural noun of one row of its table ("incidents"). */
  noun: z.string().default('rows'),
  /** The fact in one sentence, rendered from the claim. */
  statement: z.string().default(''),
  /** Present when feedback on earlier insights changed the score: the factor, and the rated insights (`liked conversion-1`). */
  feedback: z.object({ weight: z.number().positive(), insights: z.array(z.string()) }).optional(),
});
export type MinedFinding = z.infer<typeof minedFindingSchema>;

/** What the mining stage left on the run. */
export const miningStateSchema = z.object({
  status: z.enum(['completed', 'failed', 'skipped']),
  /** Statements run, and how many failed or were skipped for budget. */
  queries: z.number().int().nonnegative().default(0),
  failed_queries: z.number().int().nonnegative().default(0),
  skipped_queries: z.number().int().nonnegative().default(0),
  /** Of the failed statements, those stopped by the statement timeout. */
  timed_out_queries: z.number().int().nonnegative().optional(),
  tables: z.array(z.string()).default([]),
  /** Hypotheses tested (the Benjamini–Hochberg family) and how many passed q ≤ the run's level. */
  tested: z.number().int().nonnegative().default(0),
  significant: z.number().int().nonnegative().default(0),
  /** The false-discovery level used. */
  fdr: z.number().min(0).max(1).default(0.05),
  findings: z.array(minedFindingSchema).default([]),
  duration_ms: z.number().nonnegative().default(0),
  notes: z.array(z.string()).default([]),
  error: z.string().optional(),
});
export type MiningState = z.infer<typeof miningStateSchema>;

/** Mining that ended in an error: no finding, the reason kept; analysis goes on from the digests. */
export function failedMining(input: { fdr: number; durationMs: number; error: string }): MiningState {
  return {
    status: 'failed',
    queries: 0,
    failed_queries: 0,
    skipped_queries: 0,
    tables: [],
    tested: 0,
    significant: 0,
    fdr: input.fdr,
    findings: [],
    duration_ms: input.durationMs,
    notes: [],
    error: input.error,
  };
}
