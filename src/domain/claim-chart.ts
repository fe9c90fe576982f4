import { z } from 'zod';

/**
 * The data of an insight's chart: a small series the verifier computes from the claim itself, with SQL
 * it builds from the claim (never the analyst's exploration SQL), stored on the claim's check so the
 * report — which renders only from stored documents — draws what the claim says. Documented in
 * docs/claims.md ("The chart of a claim").
 *
 * - `bars` (`difference`, `share`): the claim's metric per value of the segment's column — the largest
 *   groups by rows, the rest pooled into one "other values" bar, a missing value on its own.
 * - `line` (`trend`, `shift`, `contribution`): the metric per period of the claim's series, the claimed
 *   window (and baseline) marked; a contribution adds the segment's own line.
 * - `binned` (`correlation`): the mean of the measure per bin of the other measure.
 * - `outlier`: the flagged rows' values, largest first, against the others' median and the far-out fence.
 */

/** Points a chart may hold: more stop being readable at report width, and a document must stay small. */
export const CHART_MAX_POINTS = 24;

/**
 * What a point is in the claim: `segment` (the group the claim is about), `comparison` (the group it is
 * compared with), `other` (another value of the column), `others` (the smaller values pooled), `missing`
 * (rows with no value in the column, never pooled into `others`).
 */
export const chartPointRoleSchema = z.enum(['segment', 'comparison', 'other', 'others', 'missing']);
export type ChartPointRole = z.infer<typeof chartPointRoleSchema>;

export const claimChartPointSchema = z.object({
  /** The group's value as the warehouse holds it (a period's start date, a number, a text); null for pooled or missing rows. */
  key: z.union([z.string().max(200), z.number().finite(), z.boolean(), z.null()]),
  /** The value as a person names it ("September", "2024-03", "desktop", "40 to 49"). */
  label: z.string().max(200),
  /** The claim's metric on the point's rows (null: nothing to measure there). */
  value: z.number().finite().nullable(),
  /** Rows behind the point. */
  rows: z.number().int().nonnegative(),
  role: chartPointRoleSchema.default('other'),
  /** Position on an ordered axis: a period's position, a bin's mean x. */
  x: z.number().finite().optional(),
  /** `contribution`: the segment's own value of the metric in the point's period. */
  segment_value: z.number().finite().nullable().optional(),
  /** On a line: the point lies in the claimed window (or the baseline it is compared with). */
  span: z.enum(['window', 'baseline']).optional(),
});
export type ClaimChartPoint = z.infer<typeof claimChartPointSchema>;

export const claimChartReferenceSchema = z.object({
  /** What the line is, in words: "the other sessions", "median of the others", "far-out fence". */
  label: z.string().max(200),
  value: z.number().finite(),
});
export type ClaimChartReference = z.infer<typeof claimChartReferenceSchema>;

export const claimChartSchema = z.object({
  shape: z.enum(['bars', 'line', 'binned', 'outlier']),
  points: z.array(claimChartPointSchema).max(CHART_MAX_POINTS),
  /** Horizontal lines drawn across the plot (the comparison's value, a median, a fence). */
  references: z.array(claimChartReferenceSchema).max(4).default([]),
  /** Values of the column pooled into the `others` point. */
  pooled_groups: z.number().int().nonnegative().optional(),
  /** Consecutive periods averaged into one point when the series is longer than the chart holds. */
  periods_per_point: z.number().int().min(1).optional(),
  /** What a reader should know about what is plotted (rows shown of how many, a bar left out and why). */
  note: z.string().max(300).optional(),
});
export type ClaimChart = z.infer<typeof claimChartSchema>;
