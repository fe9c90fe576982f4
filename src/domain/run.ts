import { z } from 'zod';
import { miningStateSchema } from './finding.js';
import { insightSchema } from './insight.js';
import { recommendationSchema } from './recommendation.js';

export const runStatusSchema = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof runStatusSchema>;

export const runPhaseSchema = z.enum(['prepare', 'exploration', 'analysis', 'validation', 'recommendations', 'finalize', 'complete']);
export type RunPhase = z.infer<typeof runPhaseSchema>;

/** full: every area produced a result; partial: some failed (or a selective run); failed: all failed; cancelled. */
export const runTypeSchema = z.enum(['full', 'partial', 'failed', 'cancelled']);
export type RunType = z.infer<typeof runTypeSchema>;

/** Phases that spend LLM tokens, for usage accounting. */
export const llmPhaseSchema = z.enum([
  'exploration',
  'sql_fix',
  'analysis',
  'verification',
  'recommendations',
  'schema_index',
  'compaction',
  'other',
]);
export type LlmPhase = z.infer<typeof llmPhaseSchema>;

/** One LLM request, as recorded in the run telemetry. */
export const llmCallRecordSchema = z.object({
  phase: llmPhaseSchema,
  model: z.string(),
  prompt_tokens_estimated: z.number().int(),
  prompt_tokens_reported: z.number().int().nullable(),
  output_tokens: z.number().int(),
  context_window: z.number().int(),
  max_output_tokens: z.number().int(),
  cost_usd: z.number(),
  latency_ms: z.number(),
  /** Set when the prompt builder dropped or shrank sections to fit. */
  shrunk: z.boolean().default(false),
  /** Set when the provider still reported overflow and the call was retried smaller. */
  overflow_retry: z.boolean().default(false),
  area: z.string().optional(),
  step: z.number().int().optional(),
  /** The model tier that served the call (`fast` for compaction and SQL fixes by default). */
  tier: z.enum(['fast', 'strong']).optional(),
  /** Of the reported prompt tokens, those served from the provider's prompt cache (billed at the cache-read price). */
  cache_read_tokens: z.number().int().optional(),
  /** Of the reported prompt tokens, those written to the prompt cache (billed at the cache-write price). */
  cache_write_tokens: z.number().int().optional(),
  /** How the answer was asked for: as text, through a native tool call, or as schema-constrained output. */
  protocol: z.enum(['text', 'tools', 'structured']).optional(),
  /** 1 for the first ask of an answer; 2 and up for the reformat or repair turns after an unusable one. */
  attempt: z.number().int().min(1).optional(),
});
export type LlmCallRecord = z.infer<typeof llmCallRecordSchema>;

export const usageTotalsSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number(),
  calls: z.number().int(),
  /** Of `input_tokens`, read from the prompt cache. */
  cache_read_tokens: z.number().int().optional(),
  /** Of `input_tokens`, written to the prompt cache. */
  cache_write_tokens: z.number().int().optional(),
});
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

export const pickedStepSchema = z.object({ step: z.number().int(), score: z.number(), source: z.enum(['vector', 'exact_match']) });
export const droppedStepSchema = z.object({
  step: z.number().int(),
  score: z.number(),
  reason: z.enum(['below_min_score', 'over_budget', 'not_informative']),
});

export const areaRunSchema = z.object({
  area_id: z.string(),
  area_name: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'skipped']),
  error: z.string().optional(),
  insight_ids: z.array(z.string()).default([]),
  selected_steps: z.array(pickedStepSchema).default([]),
  dropped_steps: z.array(droppedStepSchema).default([]),
  query_results_chars: z.number().int().default(0),
  prompt_tokens: z.number().int().default(0),
  duration_ms: z.number().default(0),
  parse_retries: z.number().int().default(0),
  /** Model output entries that failed validation and were dropped, with the reason. */
  dropped_outputs: z.array(z.string()).default([]),
  /** The area's insights while the run is in flight (verification writes their validation block). */
  insights: z.array(insightSchema).default([]),
});
export type AreaRun = z.infer<typeof areaRunSchema>;

export const compactionStatsSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  saved_pct: z.number(),
  cache_hits: z.number().int(),
  cache_misses: z.number().int(),
  llm_calls: z.number().int(),
});

export const telescopeAreaSchema = z.object({
  nodes: z.object({ l0: z.number().int(), l1: z.number().int(), l2: z.number().int(), ln: z.number().int() }),
  first_view_tokens: z.number().int(),
  drill_down_calls: z.number().int(),
  expanded_nodes: z.array(z.string()).default([]),
  /** Prompt tokens of every analysis call of the area, expansions included. */
  prompt_tokens_total: z.number().int(),
});

export const telescopeTelemetrySchema = z.object({
  evidence: z.enum(['digests', 'telescope']),
  areas: z.record(z.string(), telescopeAreaSchema).default({}),
  strategies: z.record(z.string(), compactionStatsSchema).default({}),
});
export type TelescopeTelemetry = z.infer<typeof telescopeTelemetrySchema>;

export const runTelemetrySchema = z.object({
  llm_calls: z.array(llmCallRecordSchema).default([]),
  /** Totals keyed by phase, then by model. */
  usage_by_phase: z.record(z.string(), z.record(z.string(), usageTotalsSchema)).default({}),
  /** Totals keyed by model tier (`fast`, `strong`): what compaction and SQL fixes cost against reasoning. */
  usage_by_tier: z.record(z.string(), usageTotalsSchema).default({}),
  schema_tokens: z.number().int().default(0),
  schema_table_count: z.number().int().default(0),
  schema_lookup_calls: z.number().int().default(0),
  schema_search_calls: z.number().int().default(0),
  analysis_step_index_upserts: z.number().int().default(0),
  analysis_step_search_calls: z.number().int().default(0),
  analysis_steps_dropped: z.number().int().default(0),
  phase_durations_ms: z.record(z.string(), z.number()).default({}),
  /** The telescope tree (issue 12): nodes, per-strategy compaction stats, drill-down use. */
  telescope: telescopeTelemetrySchema.optional(),
});
export type RunTelemetry = z.infer<typeof runTelemetrySchema>;

export const runSettingsSchema = z.object({
  max_steps: z.number().int().min(1),
  min_steps: z.number().int().min(0),
  /** Selective run: only these areas. Empty = all areas of the pack. */
  areas: z.array(z.string()).default([]),
  llm: z.string(),
  /** The pack reference the run loads: a shipped slug, a pack directory, or `project:<id>@<version>` (frozen). */
  pack: z.string(),
  /** The loaded pack's manifest version and content hash, recorded when the run prepares. */
  pack_version: z.string().optional(),
  pack_hash: z.string().optional(),
  category: z.string().optional(),
  analysis_budget_tokens: z.number().int(),
});
export type RunSettings = z.infer<typeof runSettingsSchema>;

/** Why exploration ended: a step's own reasons, or the run being cancelled. */
export const explorationDoneReasonSchema = z.enum(['done', 'max_steps', 'llm_error', 'cancelled']);

/** lookup_schema / search_tables budget state: serialisable so any worker can take the next step. */
export const schemaBudgetSchema = z.object({
  lookups_used: z.number().int().default(0),
  searches_used: z.number().int().default(0),
  fetched: z.array(z.string()).default([]),
});
export type SchemaBudgetState = z.infer<typeof schemaBudgetSchema>;

export const runSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'letters, digits, _ and - only; no ":" (BullMQ job ids embed it)'),
  project_id: z.string(),
  status: runStatusSchema,
  phase: runPhaseSchema,
  phase_detail: z.string().default(''),
  progress: z.number().min(0).max(100).default(0),
  run_type: runTypeSchema.optional(),
  settings: runSettingsSchema,
  error: z.string().optional(),
  /** Steps made so far (the steps themselves are stored separately, keyed by (run_id, step)). */
  steps_completed: z.number().int().default(0),
  exploration_done_reason: explorationDoneReasonSchema.optional(),
  /** Times the stuck-run reconciler re-enqueued this run's coordinator (its job failed or was lost). */
  recoveries: z.number().int().min(0).default(0),
  counters: z
    .object({
      total_queries: z.number().int().default(0),
      successful_queries: z.number().int().default(0),
      failed_queries: z.number().int().default(0),
      insights_found: z.number().int().default(0),
    })
    .default({ total_queries: 0, successful_queries: 0, failed_queries: 0, insights_found: 0 }),
  areas: z.array(areaRunSchema).default([]),
  /** Fixed at prepare so every later job sees the same context. */
  context: z
    .object({
      previous_context: z.string().default(''),
      warehouse_hash: z.string().default(''),
      catalog_tokens: z.number().int().default(0),
    })
    .optional(),
  /** What the engine mined from the warehouse before analysis (absent until the mining stage ran). */
  mining: miningStateSchema.optional(),
  schema_budget: schemaBudgetSchema.default({ lookups_used: 0, searches_used: 0, fetched: [] }),
  recommendations: z.array(recommendationSchema).default([]),
  recommendation_log: z
    .object({
      status: z.enum(['pending', 'completed', 'failed', 'skipped']).default('pending'),
      error: z.string().optional(),
      dropped_insight_ids: z.array(z.string()).default([]),
      parse_retries: z.number().int().default(0),
      /** Recommendations left out because their title or description states numbers no related claim holds. */
      rejected: z.array(z.object({ title: z.string(), reason: z.string() })).optional(),
    })
    .default({ status: 'pending', dropped_insight_ids: [], parse_retries: 0 }),
  telemetry: runTelemetrySchema.default(runTelemetrySchema.parse({})),
  created_at: z.string(),
  started_at: z.string().optional(),
  updated_at: z.string(),
  completed_at: z.string().optional(),
});
export type Run = z.infer<typeof runSchema>;

export function isTerminal(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
