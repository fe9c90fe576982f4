import { z } from 'zod';
import { cellSchema, compactResultSchema } from './compact-result.js';
import { explorationDoneReasonSchema, schemaBudgetSchema } from './run.js';

/** What one exploration step did (discovery-lifecycle seed, "Step types"). */
export const stepActionSchema = z.enum(['query', 'lookup_schema', 'search_tables', 'done', 'complete_rejected', 'error']);
export type StepAction = z.infer<typeof stepActionSchema>;

export const stepUsageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  prompt_tokens_estimated: z.number().int(),
  cost_usd: z.number(),
  llm_calls: z.number().int(),
});

export const explorationStepSchema = z.object({
  run_id: z.string(),
  /** 1-based; a `complete_rejected` or `error` step consumes a number too. */
  step: z.number().int().min(1),
  action: stepActionSchema,
  timestamp: z.string(),
  thinking: z.string().default(''),
  query_purpose: z.string().default(''),
  /** The SQL the model wrote. */
  query: z.string().optional(),
  /** The SQL actually executed (after self-healing fixes); equals `query` when no fix was needed. */
  executed_query: z.string().optional(),
  fix_attempts: z.number().int().default(0),
  fixed: z.boolean().default(false),
  row_count: z.number().int().optional(),
  truncated: z.boolean().optional(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })).optional(),
  /** Rows kept for evidence, capped by bytes; the full digest is `compact`. */
  rows: z.array(z.record(z.string(), cellSchema)).optional(),
  compact: compactResultSchema.optional(),
  elapsed_ms: z.number().optional(),
  /** lookup_schema: the refs asked for; search_tables: the query text. */
  tables: z.array(z.string()).optional(),
  search_query: z.string().optional(),
  /** The text returned to the model for non-query actions (schema detail, search hits, nudges). */
  result_text: z.string().optional(),
  summary: z.string().optional(),
  /**
   * The model's working notes, when this step's action set them: the engine shows the latest notes in every
   * later exploration prompt, where history compaction cannot cut them, until an action replaces them.
   */
  notes: z.string().optional(),
  error: z.string().optional(),
  usage: stepUsageSchema.optional(),
  /**
   * What the step does to its run, stored with the step: a job redelivered after the step was stored
   * but before the run was updated applies it then (counters, schema budget, end of exploration).
   */
  run_effects: z
    .object({
      finished: z.boolean(),
      done_reason: explorationDoneReasonSchema.exclude(['cancelled']).optional(),
      schema_budget: schemaBudgetSchema.optional(),
      counter: z.enum(['lookup', 'search']).optional(),
    })
    .optional(),
});
export type ExplorationStep = z.infer<typeof explorationStepSchema>;
