import { z } from 'zod';
import { claimCheckSchema, claimSchema } from './claim.js';

export const severitySchema = z.enum(['critical', 'high', 'medium', 'low']);
export type Severity = z.infer<typeof severitySchema>;

/**
 * `confirmed`: the claim's recount holds (direction, both values within tolerance, significant, enough
 * support); `adjusted`: direction and significance hold with another magnitude — the insight's numbers and
 * text were re-rendered from the recount; `rejected`: direction fails, not significant, empty segment, or
 * text that disagrees with its claim; `unverified`: no checkable claim — never counted or shown as
 * confirmed; `error`: the recount itself failed. `skipped` is kept for runs stored before `unverified`.
 */
export const validationStatusSchema = z.enum(['confirmed', 'adjusted', 'rejected', 'unverified', 'error', 'skipped']);
export type ValidationStatus = z.infer<typeof validationStatusSchema>;

/**
 * Written by verification; the insight's own `affected_count` is never overwritten. The descriptions
 * are what the OpenAPI document says about each field (the output contract of `run --json`, `eval
 * --json` and the API's insights: docs/api.md, "Insights").
 */
export const insightValidationSchema = z.object({
  status: validationStatusSchema.describe(
    'confirmed: the recount holds; adjusted: direction and significance hold with another magnitude (text re-rendered from the recount); rejected: direction, significance, support or wording fails; unverified: no checkable claim, never counted as confirmed; error: the recount failed',
  ),
  verified_count: z.number().nullable(),
  original_count: z.number().nullable(),
  query: z.string().default('').describe("the verifier's own SQL, built from the claim"),
  reasoning: z.string().default('').describe('why the verdict: what was compared, the test and its p-value, what failed'),
  validated_at: z.string(),
  lookups_used: z.number().int().default(0),
  /** Present when the insight carried a claim: both sides recounted by SQL the verifier built. */
  claim_check: claimCheckSchema.optional(),
  /** The recount in brief: what a reader compares with the claim. */
  recount: z
    .object({
      value: z.number().nullable().describe("the claim's metric on the segment, recounted"),
      comparison_value: z.number().nullable().describe('the metric on the comparison side, recounted'),
      p_value: z.number().nullable().describe("p-value of the claim kind's test recomputed from the recount (null: no test applies)"),
      n: z.number().int().nonnegative().nullable().describe('rows behind the value (periods of a trend, pairs of a correlation)'),
      comparison_n: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .default(null)
        .describe(
          'rows behind the comparison value; null when the claim compares with no group of rows (a trend, a correlation, a share against an even split) or in documents written before it was recorded',
        ),
    })
    .optional()
    .describe('what the verifier recounted; absent when the insight has no claim or its recount failed'),
  /** Set on an adjusted insight whose title and description were re-rendered from the recount. */
  text_rerendered: z.boolean().optional().describe('an adjusted insight whose title and description were re-rendered from the recount'),
  /** What the insight said before it was re-rendered (kept for audit, never shown as its text). */
  original_text: z.object({ name: z.string(), description: z.string() }).optional(),
});
export type InsightValidation = z.infer<typeof insightValidationSchema>;

export const insightSchema = z.object({
  /** Deterministic `{area}-{n}`. */
  id: z.string(),
  analysis_area: z.string(),
  name: z.string().min(1),
  description: z.string().default(''),
  severity: severitySchema,
  affected_count: z.number().nonnegative().nullable().default(null),
  risk_score: z.number().min(0).max(1).nullable().default(null),
  confidence: z.number().min(0).max(1).nullable().default(null),
  metrics: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).default({}),
  indicators: z.array(z.string()).default([]),
  target_segment: z.string().default(''),
  source_steps: z.array(z.number().int().min(1)).default([]),
  /** The measurable claim verification recounts (kind, metric, segment, comparison, values, direction, test, n). */
  claim: claimSchema
    .optional()
    .describe('the checkable claim (docs/claims.md); absent: the insight is unverified and never counted as confirmed'),
  /** Mined findings the insight rests on (`F3`), the first being its claim's source. */
  finding_ids: z.array(z.string()).default([]),
  /** Further facts the insight states, each with its own claim, recounted like the main one. */
  supporting_claims: z.array(claimSchema).default([]),
  /** Where the title and description come from: rendered from the claim, or written by the model (then checked against it). */
  text_source: z.enum(['claim', 'model']).optional(),
  /** Rank across the run: effect, support, significance and relevance to the goal (higher first). */
  score: z.number().min(0).optional(),
  discovered_at: z.string(),
  validation: insightValidationSchema.optional().describe("verification's verdict; absent only while the insight waits for it"),
});
export type Insight = z.infer<typeof insightSchema>;
