/**
 * A corpus of claims whose truth is known: each base entry names a claim without its numbers and the
 * test's own SQL that measures them — written by hand per claim, with its own reading of what the claim
 * means (which rows are in, what is compared), never through the engine's claim SQL. True claims take
 * the measured numbers; false ones are made from true ones by a named mutation (reversed, inflated …)
 * or measure an effect that is not there (noise, a tiny segment, independent columns).
 *
 * The helpers below only wrap a claim's rows with the arithmetic of its statistic (Welch's t, a pooled
 * z, Mood's χ², a slope's t, Pearson's t), so a fixture can also prove itself: a true claim's own
 * statistic must be far from zero, a noise claim's close to it.
 */
import { claimSchema, type Claim, type ClaimInput } from '../../src/domain/index.js';

export type ClaimBody = Omit<ClaimInput, 'value' | 'comparison_value' | 'direction'>;

/** How a true claim is turned into a false one. */
export type Mutation =
  /** The other side is said to be higher: values swapped, direction flipped (r negated for a correlation). */
  | { category: 'reversed direction' }
  /** The segment's value moved away from the comparison by `factor` (×k for higher, ÷k for lower). */
  | { category: 'inflated magnitude'; factor: number }
  /** The comparison value multiplied by `factor` (the direction still holds). */
  | { category: 'wrong comparison value'; factor: number }
  | { category: 'comparison value erased' }
  /** The segment names a value the column does not hold. */
  | { category: 'empty segment'; value: string | number }
  /** The numbers of this claim stated of another metric. */
  | { category: 'another metric'; metric: ClaimBody['metric'] };

export interface CorpusEntry {
  id: string;
  /** Key of the warehouse the claim is about. */
  warehouse: string;
  /** True: the measured claim holds. False: the entry is a claim on an effect that is not there. */
  truth: boolean;
  /** What kind of fact a true claim states, or what makes a false one false. */
  category: string;
  claim: ClaimBody;
  /**
   * One row: `value`, `comparison_value`, `statistic` (the claim's own test statistic, signed), and
   * optionally `direction` (trends: the slope's sign) and `segment_rows`.
   */
  actual: string;
  /** False claims made from this true one. */
  falsify?: Mutation[];
}

export interface CorpusClaim {
  id: string;
  warehouse: string;
  truth: boolean;
  category: string;
  claim: Claim;
  /** The fixture's own statistic for the effect (before any mutation). */
  statistic: number;
  segmentRows: number | undefined;
}

export type Measured = Record<string, unknown>;

function num(value: unknown, what: string): number {
  const parsed = typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) throw new Error(`${what} is not a finite number: ${String(value)}`);
  return parsed;
}

function mutate(base: Claim, mutation: Mutation): Claim {
  switch (mutation.category) {
    case 'reversed direction':
      if (base.kind === 'correlation') return { ...base, value: -base.value, direction: base.direction === 'higher' ? 'lower' : 'higher' };
      return {
        ...base,
        value: base.comparison_value,
        comparison_value: base.value,
        direction: base.direction === 'higher' ? 'lower' : 'higher',
      };
    case 'inflated magnitude':
      return { ...base, value: base.direction === 'higher' ? base.value * mutation.factor : base.value / mutation.factor };
    case 'wrong comparison value':
      return { ...base, comparison_value: base.comparison_value * mutation.factor };
    case 'comparison value erased':
      return { ...base, comparison_value: 0 };
    case 'empty segment': {
      if (!base.segment) throw new Error('an empty-segment mutation needs a claim with a segment');
      const { values: _values, from: _from, to: _to, missing: _missing, ...rest } = base.segment;
      return { ...base, segment: { ...rest, value: mutation.value } };
    }
    case 'another metric':
      return { ...base, metric: claimSchema.shape.metric.parse(mutation.metric) };
  }
}

function describeMutation(mutation: Mutation): string {
  return mutation.category === 'inflated magnitude' ? `${mutation.category} ${mutation.factor}×` : mutation.category;
}

/**
 * Every claim of the corpus with its numbers: base entries measured through `measure` (the fixture's
 * own SQL on the entry's warehouse), false claims derived from the true ones.
 */
export async function expandCorpus(
  entries: readonly CorpusEntry[],
  measure: (warehouse: string, sql: string) => Promise<Measured>,
): Promise<CorpusClaim[]> {
  const claims: CorpusClaim[] = [];
  const ids = new Set<string>();
  for (const entry of entries) {
    if (ids.has(entry.id)) throw new Error(`corpus id ${entry.id} is used twice`);
    ids.add(entry.id);
    const row = await measure(entry.warehouse, entry.actual);
    const value = num(row.value, `${entry.id}: value`);
    const comparison = num(row.comparison_value, `${entry.id}: comparison_value`);
    const statistic = num(row.statistic, `${entry.id}: statistic`);
    const segmentRows =
      row.segment_rows === undefined || row.segment_rows === null ? undefined : num(row.segment_rows, `${entry.id}: segment_rows`);
    const direction =
      row.direction === 'higher' || row.direction === 'lower'
        ? row.direction
        : value > comparison
          ? ('higher' as const)
          : ('lower' as const);
    const parsed = claimSchema.safeParse({ ...entry.claim, value, comparison_value: comparison, direction });
    if (!parsed.success) throw new Error(`${entry.id}: not a claim: ${parsed.error.message}`);
    const base = parsed.data;
    claims.push({
      id: entry.id,
      warehouse: entry.warehouse,
      truth: entry.truth,
      category: entry.category,
      claim: base,
      statistic,
      segmentRows,
    });
    for (const mutation of entry.falsify ?? []) {
      if (!entry.truth) throw new Error(`${entry.id}: only true claims are mutated`);
      const category = describeMutation(mutation);
      claims.push({
        id: `${entry.id} [${category}]`,
        warehouse: entry.warehouse,
        truth: false,
        category,
        claim: mutate(base, mutation),
        statistic,
        segmentRows,
      });
    }
  }
  return claims;
}

// The statistics a fixture's rows are wrapped in (DuckDB SQL). Each takes the claim's rows as the
// fixture reads them: `inside` true for the segment, false for the comparison, NULL for neither.

/** Means of `y` inside and outside, Welch's t. */
export function meanGap(rows: string): string {
  return `WITH r AS (${rows}),
  s AS (SELECT avg(y)::DOUBLE AS m, var_samp(y)::DOUBLE AS v, count(y) AS n FROM r WHERE inside),
  c AS (SELECT avg(y)::DOUBLE AS m, var_samp(y)::DOUBLE AS v, count(y) AS n FROM r WHERE NOT inside)
  SELECT s.m AS value, c.m AS comparison_value, (s.m - c.m) / sqrt(s.v / s.n + c.v / c.n) AS statistic, s.n AS segment_rows FROM s, c`;
}

/** Shares of `y` = 1 inside and outside (rows with a NULL `y` left out), pooled two-proportion z. */
export function rateGap(rows: string): string {
  return `WITH r AS (${rows}),
  s AS (SELECT avg(y)::DOUBLE AS m, count(y) AS n FROM r WHERE inside),
  c AS (SELECT avg(y)::DOUBLE AS m, count(y) AS n FROM r WHERE NOT inside),
  p AS (SELECT (s.m * s.n + c.m * c.n) / (s.n + c.n) AS pooled FROM s, c)
  SELECT s.m AS value, c.m AS comparison_value,
         (s.m - c.m) / sqrt(p.pooled * (1 - p.pooled) * (1.0 / s.n + 1.0 / c.n)) AS statistic, s.n AS segment_rows
  FROM s, c, p`;
}

/** Medians of `y` inside and outside; Mood's test as a signed √χ² (counts above the pooled median). */
export function medianGap(rows: string): string {
  const expected = (count: string, side: string) => `(${count}) * ${side}.n / t.total`;
  const cell = (observed: string, count: string, side: string) =>
    `power(${observed} - ${expected(count, side)}, 2) / (${expected(count, side)})`;
  return `WITH r AS (SELECT * FROM (${rows}) WHERE inside IS NOT NULL AND y IS NOT NULL),
  pooled AS (SELECT median(y) AS pm FROM r),
  g AS (SELECT inside, median(y)::DOUBLE AS med, count(*) AS n, count(*) FILTER (WHERE y > pooled.pm) AS a FROM r, pooled GROUP BY inside),
  s AS (SELECT * FROM g WHERE inside),
  c AS (SELECT * FROM g WHERE NOT inside),
  t AS (SELECT (s.n + c.n)::DOUBLE AS total, (s.a + c.a)::DOUBLE AS above FROM s, c)
  SELECT s.med AS value, c.med AS comparison_value, s.n AS segment_rows,
         sign(s.med - c.med) * sqrt(${cell('s.a', 't.above', 's')} + ${cell('s.n - s.a', 't.total - t.above', 's')}
                                  + ${cell('c.a', 't.above', 'c')} + ${cell('c.n - c.a', 't.total - t.above', 'c')}) AS statistic
  FROM s, c, t`;
}

/** Rows inside against rows outside, binomial z against an even split of the two. */
export function countGap(rows: string): string {
  return `WITH r AS (${rows}),
  t AS (SELECT count(*) FILTER (WHERE inside) AS s, count(*) FILTER (WHERE NOT inside) AS c FROM r)
  SELECT s AS value, c AS comparison_value, (s - (s + c) / 2.0) / sqrt((s + c) / 4.0) AS statistic, s AS segment_rows FROM t`;
}

/** The segment's share of all rows (NULL `inside` counted in the total) against 1 / `groups`, binomial z. */
export function shareOfRows(rows: string, groups: number): string {
  const p = 1 / groups;
  return `WITH r AS (${rows}),
  t AS (SELECT count(*) FILTER (WHERE inside) AS k, count(*) AS n FROM r)
  SELECT k / n AS value, ${p} AS comparison_value, (k - n * ${p}) / sqrt(n * ${p} * ${1 - p}) AS statistic, k AS segment_rows FROM t`;
}

/** The segment's share of the total of `y` against its share of the rows; Welch's t on the per-row means. */
export function shareOfTotal(rows: string): string {
  return `WITH r AS (${rows}),
  t AS (SELECT sum(y) FILTER (WHERE inside)::DOUBLE / sum(y) AS value, count(*) FILTER (WHERE inside)::DOUBLE / count(*) AS comparison_value FROM r),
  s AS (SELECT avg(y)::DOUBLE AS m, var_samp(y)::DOUBLE AS v, count(y) AS n FROM r WHERE inside),
  c AS (SELECT avg(y)::DOUBLE AS m, var_samp(y)::DOUBLE AS v, count(y) AS n FROM r WHERE inside IS NOT TRUE)
  SELECT t.value, t.comparison_value, (s.m - c.m) / sqrt(s.v / s.n + c.v / c.n) AS statistic, s.n AS segment_rows FROM t, s, c`;
}

/** Totals of `y` inside and outside; z of the difference of two compound sums (rows × values). */
export function sumGap(rows: string): string {
  return `WITH r AS (${rows}),
  s AS (SELECT sum(y)::DOUBLE AS total, sum(y * y)::DOUBLE AS squares, count(y) AS n FROM r WHERE inside),
  c AS (SELECT sum(y)::DOUBLE AS total, sum(y * y)::DOUBLE AS squares, count(y) AS n FROM r WHERE NOT inside)
  SELECT s.total AS value, c.total AS comparison_value, (s.total - c.total) / sqrt(s.squares + c.squares) AS statistic, s.n AS segment_rows FROM s, c`;
}

/**
 * A per-period series `(x, v)` (x: consecutive periods one apart): the mean of the last and first k
 * periods (k = round(periods / 5), 1–6, as the schema defines a trend's two values), the slope's t and sign.
 */
export function trendOf(periods: string): string {
  return `WITH p AS (${periods}),
  k AS (SELECT greatest(1, least(6, round(count(*) / 5.0)))::INTEGER AS k, count(*) AS n FROM p),
  o AS (SELECT x, v, row_number() OVER (ORDER BY x) AS i FROM p),
  f AS (SELECT regr_slope(v, x) AS slope, regr_r2(v, x) AS r2, count(*) AS n FROM p)
  SELECT (SELECT avg(v) FROM o, k WHERE o.i > k.n - k.k) AS value,
         (SELECT avg(v) FROM o, k WHERE o.i <= k.k) AS comparison_value,
         CASE WHEN f.slope > 0 THEN 'higher' ELSE 'lower' END AS direction,
         sign(f.slope) * sqrt(f.r2 * (f.n - 2) / greatest(1e-12, 1 - f.r2)) AS statistic,
         f.n AS segment_rows
  FROM f`;
}

/** Per-period values `(inside, v)`: the window's mean against the baseline's, Welch's t over the periods (one period: its prediction t). */
export function shiftOf(periods: string): string {
  return `WITH p AS (${periods}),
  s AS (SELECT avg(v)::DOUBLE AS m, var_samp(v)::DOUBLE AS vr, count(*) AS n FROM p WHERE inside),
  c AS (SELECT avg(v)::DOUBLE AS m, var_samp(v)::DOUBLE AS vr, count(*) AS n FROM p WHERE NOT inside)
  SELECT s.m AS value, c.m AS comparison_value,
         CASE WHEN s.n = 1 THEN (s.m - c.m) / sqrt(c.vr * (1 + 1.0 / c.n)) ELSE (s.m - c.m) / sqrt(s.vr / s.n + c.vr / c.n) END AS statistic,
         s.n AS segment_rows
  FROM s, c`;
}

/** Pairs `(x, y)`: Pearson's r against 0, its t. */
export function correlationOf(pairs: string): string {
  return `WITH p AS (SELECT * FROM (${pairs}) WHERE x IS NOT NULL AND y IS NOT NULL),
  r AS (SELECT corr(y, x)::DOUBLE AS r, count(*) AS n FROM p)
  SELECT r AS value, 0 AS comparison_value, r * sqrt((n - 2) / (1 - r * r)) AS statistic, n AS segment_rows FROM r`;
}
