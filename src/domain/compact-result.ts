import { z } from 'zod';

/** How a result column's values were classified. */
export const columnKindSchema = z.enum(['number', 'string', 'boolean', 'timestamp', 'null', 'mixed']);
export type ColumnKind = z.infer<typeof columnKindSchema>;

export const valueCountSchema = z.object({ value: z.union([z.string(), z.boolean(), z.number()]), count: z.number().int() });
export type ValueCount = z.infer<typeof valueCountSchema>;

/** One scalar cell as it travels through prompts and documents (JSON-safe). */
export const cellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type Cell = z.infer<typeof cellSchema>;
export type Row = Record<string, Cell>;

export const columnSummarySchema = z.object({
  name: z.string(),
  kind: columnKindSchema,
  null_count: z.number().int(),
  distinct: z.number().int(),
  /** True when `distinct` is an estimate (above the exact-counting cap). */
  distinct_approx: z.boolean().optional(),
  min: z.number().optional(),
  p25: z.number().optional(),
  median: z.number().optional(),
  p75: z.number().optional(),
  max: z.number().optional(),
  /** True when p25/median/p75 come from a deterministic reservoir sample (above the exact cap); min/max stay exact. */
  quantiles_approx: z.boolean().optional(),
  min_time: z.string().optional(),
  max_time: z.string().optional(),
  top: z.array(valueCountSchema).optional(),
});
export type ColumnSummary = z.infer<typeof columnSummarySchema>;

/** The per-step deterministic digest of a query result (analysis-phase-compaction seed). */
export const compactResultSchema = z.object({
  row_count: z.number().int(),
  columns: z.array(columnSummarySchema),
  head_rows: z.array(z.record(z.string(), cellSchema)),
  tail_rows: z.array(z.record(z.string(), cellSchema)).optional(),
  all_rows: z.array(z.record(z.string(), cellSchema)).optional(),
  /** Wide results only: the total column count, when some columns were left out of `columns`. */
  column_count: z.number().int().optional(),
  /** Wide results only: names of the columns not summarised (capped; `column_count` gives the total). */
  omitted_columns: z.array(z.string()).optional(),
});
export type CompactResult = z.infer<typeof compactResultSchema>;
