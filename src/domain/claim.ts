import { z } from 'zod';

/**
 * A measurable claim: what an insight asserts, in a form the verifier can recount from the
 * warehouse with SQL it builds itself (identifiers quoted, values as literals) — never by
 * re-running SQL the model wrote. "Tickets in category Network take 3.1 days to resolve on
 * average, against 1.2 days for all other categories" is:
 *
 *   metric:     { kind: 'duration_mean', table: 'main.incidents', start_column: 'opened_at', end_column: 'closed_at', unit: 'days' }
 *   segment:    { column: 'category', value: 'Network' }
 *   comparison: { kind: 'rest' }
 *   value: 3.1, comparison_value: 1.2, direction: 'higher'
 */
const scalarSchema = z.union([z.string().max(500), z.number(), z.boolean()]);

export const claimConditionSchema = z.object({
  column: z.string().min(1).max(200),
  op: z.enum(['=', '!=', '>', '>=', '<', '<=', 'is_null', 'not_null']),
  /** Absent for `is_null` / `not_null`. */
  value: scalarSchema.optional(),
});
export type ClaimCondition = z.infer<typeof claimConditionSchema>;

export const claimMetricKindSchema = z.enum([
  /** rows in the group */
  'count',
  /** the group's rows as a share (0–1) of all rows that pass `filters` */
  'share',
  /** average / median / total of `column` */
  'mean',
  'median',
  'sum',
  /** share (0–1) of the group's rows that meet `condition` */
  'rate',
  /** average of end_column − start_column, in `unit`; rows with a null end are left out */
  'duration_mean',
  /** distinct values of `column` in the group */
  'distinct_count',
]);
export type ClaimMetricKind = z.infer<typeof claimMetricKindSchema>;

export const claimMetricSchema = z.object({
  kind: claimMetricKindSchema,
  /** Qualified table name as the catalog shows it (`schema.table`). */
  table: z.string().min(1).max(300),
  column: z.string().min(1).max(200).optional(),
  start_column: z.string().min(1).max(200).optional(),
  end_column: z.string().min(1).max(200).optional(),
  unit: z.enum(['seconds', 'minutes', 'hours', 'days']).optional(),
  condition: claimConditionSchema.optional(),
  /** Conditions applied to both sides (and to the denominator of `share`). */
  filters: z.array(claimConditionSchema).max(8).default([]),
  /** How a person would name it: "average resolution time (days)". */
  label: z.string().max(200).default(''),
});
export type ClaimMetric = z.infer<typeof claimMetricSchema>;

/** A group of rows: `column` equal to `value`, or, with `grain`, a time column truncated to it. */
export const claimGroupSchema = z.object({
  column: z.string().min(1).max(200),
  value: scalarSchema,
  /** For time columns: the value is the period's start as ISO text (`2023-07-01`), or a weekday/hour number. */
  grain: z.enum(['hour', 'day', 'week', 'month', 'quarter', 'year', 'day_of_week', 'hour_of_day']).optional(),
});
export type ClaimGroup = z.infer<typeof claimGroupSchema>;

export const claimComparisonSchema = z.discriminatedUnion('kind', [
  /** every row not in the segment */
  z.object({ kind: z.literal('rest') }),
  /** every row, segment included */
  z.object({ kind: z.literal('all') }),
  /** another group of the same kind */
  z.object({ kind: z.literal('group'), group: claimGroupSchema }),
]);
export type ClaimComparison = z.infer<typeof claimComparisonSchema>;

export const claimSchema = z.object({
  metric: claimMetricSchema,
  segment: claimGroupSchema,
  comparison: claimComparisonSchema,
  /** The metric on the segment, as the insight states it. */
  value: z.number().finite(),
  /** The metric on the comparison side. */
  comparison_value: z.number().finite(),
  direction: z.enum(['higher', 'lower']),
});
export type Claim = z.infer<typeof claimSchema>;

/** What verification recounted for a claim. */
export const claimCheckSchema = z.object({
  value: z.number().nullable(),
  comparison_value: z.number().nullable(),
  direction_holds: z.boolean(),
  /** |recounted − claimed| / max(|claimed|, ε) on the segment side. */
  relative_error: z.number().nullable(),
  /** Rows in the segment as recounted (0: the segment does not exist). */
  segment_rows: z.number().int().nonnegative(),
  sql: z.string(),
});
export type ClaimCheck = z.infer<typeof claimCheckSchema>;
