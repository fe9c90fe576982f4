import { z } from 'zod';
import { claimCheckSchema, claimSchema } from './claim.js';

export const severitySchema = z.enum(['critical', 'high', 'medium', 'low']);
export type Severity = z.infer<typeof severitySchema>;

export const validationStatusSchema = z.enum(['confirmed', 'adjusted', 'rejected', 'error', 'skipped']);
export type ValidationStatus = z.infer<typeof validationStatusSchema>;

/** Written by verification; the insight's own `affected_count` is never overwritten. */
export const insightValidationSchema = z.object({
  status: validationStatusSchema,
  verified_count: z.number().nullable(),
  original_count: z.number().nullable(),
  query: z.string().default(''),
  reasoning: z.string().default(''),
  validated_at: z.string(),
  lookups_used: z.number().int().default(0),
  /** Present when the insight carried a claim: both sides recounted by SQL the verifier built. */
  claim_check: claimCheckSchema.optional(),
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
  /** The measurable claim verification recounts (metric, segment, comparison, values, direction). */
  claim: claimSchema.optional(),
  discovered_at: z.string(),
  validation: insightValidationSchema.optional(),
});
export type Insight = z.infer<typeof insightSchema>;
