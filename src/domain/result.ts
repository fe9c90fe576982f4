import { z } from 'zod';
import { insightSchema } from './insight.js';
import { recommendationSchema } from './recommendation.js';
import { areaRunSchema, runTelemetrySchema, runTypeSchema } from './run.js';

/** Statements that hit `sql.timeoutMs`, per stage of the run. */
export const queryTimeoutsSchema = z.object({
  exploration: z.number().int().nonnegative(),
  mining: z.number().int().nonnegative(),
  verification: z.number().int().nonnegative(),
});
export type QueryTimeouts = z.infer<typeof queryTimeoutsSchema>;

export const validationLogEntrySchema = z.object({
  insight_id: z.string(),
  analysis_area: z.string(),
  claimed_count: z.number().nullable(),
  verified_count: z.number().nullable(),
  status: z.string(),
  query: z.string().default(''),
  query_error: z.string().optional(),
  reasoning: z.string().default(''),
  validated_at: z.string(),
});
export type ValidationLogEntry = z.infer<typeof validationLogEntrySchema>;

/** The stored outcome of one run (discovery-lifecycle seed, Phase 8), without raw rows or schemas. */
export const discoveryResultSchema = z.object({
  run_id: z.string(),
  project_id: z.string(),
  domain: z.string(),
  category: z.string().optional(),
  discovery_date: z.string(),
  run_type: runTypeSchema,
  areas_requested: z.array(z.string()).default([]),
  total_steps: z.number().int(),
  duration_ms: z.number(),
  insights: z.array(insightSchema),
  recommendations: z.array(recommendationSchema),
  summary: z.object({
    text: z.string(),
    key_findings: z.array(z.string()),
    total_insights: z.number().int(),
    total_recommendations: z.number().int(),
    queries_executed: z.number().int(),
    errors: z.array(z.string()),
  }),
  /** Statements stopped by the statement timeout, per stage; any makes the run partial (src/discovery/query-timeouts.ts). */
  query_timeouts: queryTimeoutsSchema.optional(),
  analysis_log: z.array(areaRunSchema),
  recommendation_log: z.object({
    error: z.string().optional(),
    dropped_insight_ids: z.array(z.string()).default([]),
    parse_retries: z.number().int().default(0),
    rejected: z.array(z.object({ title: z.string(), reason: z.string() })).optional(),
  }),
  validation_log: z.array(validationLogEntrySchema),
  telemetry: runTelemetrySchema,
});
export type DiscoveryResult = z.infer<typeof discoveryResultSchema>;
