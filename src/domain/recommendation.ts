import { z } from 'zod';

export const recommendationSchema = z.object({
  /** Deterministic `rec-{n}`. */
  id: z.string(),
  title: z.string().min(1),
  description: z.string().default(''),
  /** 1 = do first. */
  priority: z.number().int().min(1).max(5),
  category: z.string().default(''),
  target_segment: z.string().default(''),
  segment_size: z.number().nonnegative().nullable().default(null),
  expected_impact: z
    .object({ metric: z.string().default(''), estimated_improvement: z.string().default(''), reasoning: z.string().default('') })
    .default({ metric: '', estimated_improvement: '', reasoning: '' }),
  actions: z.array(z.string()).default([]),
  related_insight_ids: z.array(z.string()).default([]),
  effort: z.enum(['low', 'medium', 'high']).nullable().default(null),
  success_metrics: z.array(z.string()).default([]),
  confidence: z.number().min(0).max(1).nullable().default(null),
  /** Set when segment_size was checked against the verified counts of the related insights. */
  segment_check: z
    .object({ status: z.enum(['consistent', 'exceeds_verified', 'unverifiable']), max_verified_count: z.number().nullable() })
    .optional(),
});
export type Recommendation = z.infer<typeof recommendationSchema>;
