import { z } from 'zod';
import { claimChartSchema } from './claim-chart.js';

/**
 * A claim: what an insight asserts, in a form anyone can recount from the warehouse with SQL the
 * verifier builds itself — never by re-running the SQL that produced the finding. Documented in
 * docs/claims.md. "Tickets in category Network take 3.1 days to resolve on average, against 1.2 days
 * for the other categories (Welch t = 6.2, p < 0.001, 120 vs 380 tickets)" is:
 *
 *   kind:       'difference'
 *   metric:     { kind: 'duration_mean', table: 'main.incidents', start_column: 'opened_at', end_column: 'closed_at', unit: 'days' }
 *   segment:    { column: 'category', value: 'Network' }
 *   comparison: { kind: 'rest' }
 *   value: 3.1, comparison_value: 1.2, direction: 'higher'
 *   test:       { name: 'welch_t', statistic: 6.2, p_value: 0.0004 }, n: { segment: 120, comparison: 380 }
 *
 * Claims written before kinds existed (no `kind`, no `test`) read as `difference` claims; their test
 * is recomputed by the verifier like any other.
 */
const scalarSchema = z.union([z.string().max(500), z.number().finite(), z.boolean()]);
export type ClaimScalar = z.infer<typeof scalarSchema>;

/** What an insight asserts about its numbers (see docs/claims.md for each kind's test). */
export const CLAIM_KINDS = [
  /** A segment's metric differs from a comparison group's (rate, mean, median, duration, count share). */
  'difference',
  /** A segment holds a larger (or smaller) share of the rows or of a total than an even split. */
  'share',
  /** A metric measured per period rises or falls over time (least-squares slope over the periods). */
  'trend',
  /** A metric measured per period sits at another level in one window of time than in another (a change point, a spike). */
  'shift',
  /** Two measures move together across rows (Pearson's r). */
  'correlation',
  /**
   * Which segment accounts for a metric's rise or fall between two windows of a series (the drivers of a
   * change): the segment's part of the change against the change of the whole.
   */
  'contribution',
  /** A few rows whose measure lies far outside the rest (beyond Tukey's far-out fence), and what they weigh. */
  'outlier',
] as const;
export const claimKindSchema = z.enum(CLAIM_KINDS);
export type ClaimKind = z.infer<typeof claimKindSchema>;

export const claimConditionSchema = z.object({
  column: z.string().min(1).max(200),
  /** `contains`: the text holds the value as a whole word (case-insensitive); `in`: one of `values`. */
  op: z.enum(['=', '!=', '>', '>=', '<', '<=', 'is_null', 'not_null', 'contains', 'in']),
  /** Absent for `is_null` / `not_null` / `in`. */
  value: scalarSchema.optional(),
  values: z.array(scalarSchema).max(50).optional(),
});
export type ClaimCondition = z.infer<typeof claimConditionSchema>;

/**
 * A value a claim reads from a related table, named so the claim can use it like a column of its own
 * table (in its metric, segment, filters, series or x):
 *
 * - `parent`: a column of the table the claim's table points at (`customers.acquisition_channel_id` →
 *   `marketing_channels.channel_name`);
 * - `child`: an aggregate of the rows that point at the claim's table's row — `exists` (1/0), `count`,
 *   `sum` of a column, `first` (the earliest `at` time) — optionally only child rows whose `at` time
 *   falls `from_days`…`to_days` days after the row's own `since` time (day-7 retention, a first purchase
 *   within three days of install), and only child rows meeting `where`.
 */
export const claimDerivedSchema = z.discriminatedUnion('from', [
  z.object({
    from: z.literal('parent'),
    name: z.string().min(1).max(200),
    table: z.string().min(1).max(300),
    /** Column of the claim's table holding the parent's key. */
    link: z.string().min(1).max(200),
    /** The parent's key column. */
    key: z.string().min(1).max(200),
    column: z.string().min(1).max(200),
  }),
  z.object({
    from: z.literal('child'),
    name: z.string().min(1).max(200),
    table: z.string().min(1).max(300),
    /** Column of the child table holding the claim's table's key. */
    link: z.string().min(1).max(200),
    /** The claim's table's key column. */
    key: z.string().min(1).max(200),
    aggregate: z.enum(['exists', 'count', 'sum', 'first']),
    /** `sum`: the child column summed. */
    column: z.string().min(1).max(200).optional(),
    window: z
      .object({
        /** Timestamp of the claim's table the window starts from. */
        since: z.string().min(1).max(200),
        /** Timestamp of the child table that must fall in the window (also what `first` takes). */
        at: z.string().min(1).max(200),
        from_days: z.number().int().min(-3650).max(3650),
        to_days: z.number().int().min(-3650).max(3650),
      })
      .optional(),
    /** `first` without a window: the child timestamp taken. */
    at: z.string().min(1).max(200).optional(),
    where: z
      .array(
        z.object({
          column: z.string().min(1).max(200),
          op: z.enum(['=', '!=', '>', '>=', '<', '<=', 'is_null', 'not_null']),
          value: z.union([z.string().max(500), z.number().finite(), z.boolean()]).optional(),
        }),
      )
      .max(4)
      .optional(),
  }),
]);
export type ClaimDerived = z.infer<typeof claimDerivedSchema>;

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
  /** average / median of end_column − start_column, in `unit`; rows with a null end are left out */
  'duration_mean',
  'duration_median',
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
  /**
   * Which way the measure is better, when the pack says (abandonment: lower; retention: higher): a
   * segment on the better side is a strength to learn from, on the worse side a problem to fix.
   */
  better: z.enum(['higher', 'lower']).optional(),
});
export type ClaimMetric = z.infer<typeof claimMetricSchema>;

/** Calendar positions and period grains a time column is grouped by. */
export const claimGrainSchema = z.enum([
  'hour',
  'day',
  'week',
  'month',
  'quarter',
  'year',
  /** 0–23 */
  'hour_of_day',
  /** ISO: 1 Monday … 7 Sunday */
  'day_of_week',
  /** 1–12 */
  'month_of_year',
]);
export type ClaimGrain = z.infer<typeof claimGrainSchema>;

/**
 * A group of rows, in exactly one form: `value` (equal; with `grain`, the calendar position or the
 * period starting at that ISO date), `values` (any of them), `from`/`to` (a range, `to` exclusive, on a
 * number, a date or — with `grain` — a calendar position), or `missing` (the column is null).
 */
export const claimGroupSchema = z
  .object({
    column: z.string().min(1).max(200),
    value: scalarSchema.optional(),
    values: z.array(scalarSchema).min(1).max(50).optional(),
    from: scalarSchema.optional(),
    to: scalarSchema.optional(),
    missing: z.literal(true).optional(),
    grain: claimGrainSchema.optional(),
    /** How a person names the column: "job role", "departure time". */
    label: z.string().max(200).optional(),
  })
  .superRefine((group, context) => {
    const forms = [
      group.value !== undefined,
      group.values !== undefined,
      group.from !== undefined || group.to !== undefined,
      group.missing === true,
    ].filter(Boolean).length;
    if (forms !== 1)
      context.addIssue({
        code: 'custom',
        message: 'a group is exactly one of: value, values, from/to, missing',
      });
  });
export type ClaimGroup = z.infer<typeof claimGroupSchema>;

export const claimComparisonSchema = z.discriminatedUnion('kind', [
  /** every row not in the segment */
  z.object({ kind: z.literal('rest') }),
  /** every row, segment included */
  z.object({ kind: z.literal('all') }),
  /** another group of the same kind */
  z.object({ kind: z.literal('group'), group: claimGroupSchema }),
  /** an even split of the rows (or the total) over `groups` groups: comparison_value = 1 / groups */
  z.object({ kind: z.literal('even'), groups: z.number().int().min(2).max(100_000) }),
]);
export type ClaimComparison = z.infer<typeof claimComparisonSchema>;

/**
 * The time axis of a per-period metric (`trend`, `shift`): a time column cut into periods, a calendar
 * position read as an ordered axis, or a numeric column (a year, a level) whose values are the steps.
 * `from`/`to` (`to` exclusive) bound the periods the claim covers: partial first or last periods are
 * left out by the miner, and the verifier recounts exactly the same periods.
 */
export const claimSeriesSchema = z.object({
  column: z.string().min(1).max(200),
  label: z.string().max(200).optional(),
  /** Absent: each value of the (numeric) column is one step of the axis. */
  grain: claimGrainSchema.optional(),
  from: scalarSchema.optional(),
  to: scalarSchema.optional(),
});
export type ClaimSeries = z.infer<typeof claimSeriesSchema>;

/** The tests a claim may name; the statistics module computes each of them. */
export const CLAIM_TEST_NAMES = [
  'two_proportion_z',
  'welch_t',
  'mood_median',
  'binomial',
  'ols_slope',
  'pearson_t',
  'poisson_rate',
  'compound_poisson_z',
  'share_change_z',
  'poisson_tail',
] as const;

export const claimTestSchema = z.object({
  name: z.enum(CLAIM_TEST_NAMES),
  statistic: z.number().finite(),
  p_value: z.number().min(0).max(1),
  df: z.number().positive().optional(),
  /** Benjamini–Hochberg q-value within the run that mined the claim. */
  q_value: z.number().min(0).max(1).optional(),
});
export type ClaimTest = z.infer<typeof claimTestSchema>;

export const claimSupportSchema = z.object({
  /** Rows behind the segment's value (pairs for a correlation, periods for a trend). */
  segment: z.number().int().nonnegative(),
  /** Rows behind the comparison value, where there is one. */
  comparison: z.number().int().nonnegative().optional(),
});

export const claimFitSchema = z.object({
  slope: z.number().finite(),
  r2: z.number().min(0).max(1),
  periods: z.number().int().min(2),
  first_period: z.string().max(40),
  last_period: z.string().max(40),
});
export type ClaimFit = z.infer<typeof claimFitSchema>;

/** What a contribution claim may measure: rows, a total, or an average (a mean, a rate, a mean duration). */
export const CONTRIBUTION_METRICS: readonly ClaimMetricKind[] = ['count', 'sum', 'mean', 'rate', 'duration_mean'];

export const claimSchema = z
  .object({
    kind: claimKindSchema.default('difference'),
    metric: claimMetricSchema,
    /**
     * Who the claim is about: the group compared (`difference`, `share`), the group whose part of a change
     * is measured (`contribution`), the extreme rows (`outlier`: a threshold on the measure's own column),
     * or the rows a `trend`, `shift` or `correlation` is measured on (absent: every row).
     */
    segment: claimGroupSchema.optional(),
    /** What the segment is compared with (`difference`, `share`; `outlier`: the other rows). */
    comparison: claimComparisonSchema.optional(),
    /** `trend`, `shift` and `contribution`: the metric is measured per period of this axis. */
    series: claimSeriesSchema.optional(),
    /** `shift`: the periods the value is measured over; `contribution`: the later window (`to` exclusive). */
    window: z.object({ from: scalarSchema, to: scalarSchema }).optional(),
    /**
     * `shift`: the periods the comparison value is measured over (absent: every other period of the series);
     * `contribution`: the earlier window the change is measured from.
     */
    baseline: z.object({ from: scalarSchema, to: scalarSchema }).optional(),
    /** `correlation`: the other measure (`metric.column` is the first). */
    x: z.object({ column: z.string().min(1).max(200), label: z.string().max(200).default('') }).optional(),
    /**
     * The metric on the segment: for `trend` the mean of its last k periods (k = round(periods / 5),
     * 1 to 6), for `shift` the mean per period inside the window, for `correlation` Pearson's r, for
     * `contribution` the segment's part of the change (window − baseline), for `outlier` the mean of the
     * extreme rows.
     */
    value: z.number().finite(),
    /**
     * The metric on the comparison side: for `trend` the mean of its first k periods, for `shift`
     * the mean per period over the baseline, for `correlation` 0, for a `share` against `even` 1 / groups,
     * for a `share` of a total against `rest` the segment's share of the rows, for `contribution` the
     * change of the whole, for `outlier` the median of the other rows.
     */
    comparison_value: z.number().finite(),
    /** `outlier`: the extreme rows' share (0–1) of the measure's total, for a measure whose values add up. */
    share_of_total: z.number().min(0).max(1).optional(),
    direction: z.enum(['higher', 'lower']),
    test: claimTestSchema.optional(),
    n: claimSupportSchema.optional(),
    fit: claimFitSchema.optional(),
    /** Values read from related tables, usable as columns by name. */
    derived: z.array(claimDerivedSchema).max(8).optional(),
    /** What one row is, in the plural ("incidents", "employees"): the noun the text is written with. */
    noun: z.string().max(60).optional(),
    /** Measured on a uniform sample of a large table: values carry sampling error, the verifier widens its tolerance. */
    approximate: z.boolean().optional(),
  })
  .superRefine((claim, context) => {
    const need = (present: unknown, field: string) => {
      if (present === undefined) context.addIssue({ code: 'custom', path: [field], message: `a ${claim.kind} claim needs a ${field}` });
    };
    if (claim.kind === 'difference' || claim.kind === 'share') {
      need(claim.segment, 'segment');
      need(claim.comparison, 'comparison');
    }
    if (claim.kind === 'trend' || claim.kind === 'shift') need(claim.series, 'series');
    if (claim.kind === 'shift') need(claim.window, 'window');
    if (claim.kind === 'correlation') {
      need(claim.x, 'x');
      need(claim.metric.column ?? claim.metric.end_column, 'metric.column');
    }
    if (claim.kind === 'contribution') {
      need(claim.series, 'series');
      need(claim.window, 'window');
      need(claim.baseline, 'baseline');
      need(claim.segment, 'segment');
      if (!CONTRIBUTION_METRICS.includes(claim.metric.kind))
        context.addIssue({
          code: 'custom',
          path: ['metric', 'kind'],
          message: `a contribution claim measures one of ${CONTRIBUTION_METRICS.join(', ')}`,
        });
    }
    if (claim.kind === 'outlier') {
      need(claim.segment, 'segment');
      if (claim.metric.kind !== 'mean' || claim.metric.column === undefined)
        context.addIssue({
          code: 'custom',
          path: ['metric'],
          message: 'an outlier claim measures the mean of a column (metric.kind "mean")',
        });
      const segment = claim.segment;
      if (
        segment &&
        (segment.column !== claim.metric.column ||
          segment.grain !== undefined ||
          (segment.from === undefined) === (segment.to === undefined))
      )
        context.addIssue({
          code: 'custom',
          path: ['segment'],
          message:
            "an outlier claim's segment is a threshold on its own measure's column: from (rows at or above it) or to (rows below it)",
        });
    }
  });
export type Claim = z.infer<typeof claimSchema>;
export type ClaimInput = z.input<typeof claimSchema>;

/** What verification recounted for a claim. */
export const claimCheckSchema = z.object({
  value: z.number().nullable(),
  comparison_value: z.number().nullable(),
  direction_holds: z.boolean(),
  /** |recounted − claimed| / max(|claimed|, ε) on the segment side. */
  relative_error: z.number().nullable(),
  /** Same on the comparison side (absent in documents written before it was checked). */
  comparison_relative_error: z.number().nullable().optional(),
  /** Rows in the segment as recounted (0: the segment does not exist). */
  segment_rows: z.number().int().nonnegative(),
  /** Rows on the comparison side as recounted. */
  comparison_rows: z.number().int().nonnegative().optional(),
  /** The kind's test recomputed from the recount. */
  test: claimTestSchema.optional(),
  /** The trend's fit recomputed from the recount. */
  fit: claimFitSchema.optional(),
  /** `contribution`: the test of the whole's change between the two windows, recomputed. */
  change_test: claimTestSchema.optional(),
  /** `outlier`: the extreme rows' share of the total, recounted. */
  share_of_total: z.number().nullable().optional(),
  sql: z.string(),
  /** The claim's chart, computed from the claim with the verifier's own SQL (absent in documents written before charts were). */
  chart: claimChartSchema.optional(),
  /** Why the claim has no chart, in one line, when it has none. */
  chart_unavailable: z.string().max(300).optional(),
});
export type ClaimCheck = z.infer<typeof claimCheckSchema>;
