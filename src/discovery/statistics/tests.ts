/**
 * The significance tests findings and claims rest on, computed from the sufficient statistics a SQL
 * aggregate returns (counts, means, sample variances, sums of products) — never from raw rows, so the
 * same function serves the miner's grouped query and the verifier's independent recount.
 *
 * Every test returns a two-sided p-value; distribution functions come from jStat.
 */
import jstat from 'jstat';
import type { CLAIM_TEST_NAMES } from '../../domain/index.js';

// jStat ships CommonJS: its named export is a property of the default import
const { jStat } = jstat;

export type TestName = (typeof CLAIM_TEST_NAMES)[number];

export interface TestResult {
  test: TestName;
  statistic: number;
  /** Two-sided. */
  p_value: number;
  /** Degrees of freedom, where the test has them. */
  df?: number;
}

/** Smallest p-value reported: below it the figure is noise of floating point, not evidence. */
const MIN_P = 1e-300;
/** The statistic reported for a difference with no spread at all (finite, so documents can hold it). */
const CERTAIN_STATISTIC = 1e6;

function clampP(p: number): number {
  if (!Number.isFinite(p)) return 1;
  return Math.min(1, Math.max(MIN_P, p));
}

export function normalTwoSided(z: number): number {
  return clampP(2 * jStat.normal.cdf(-Math.abs(z), 0, 1));
}

export function studentTwoSided(t: number, df: number): number {
  if (!(df > 0)) return 1;
  return clampP(2 * jStat.studentt.cdf(-Math.abs(t), df));
}

function chiSquareUpper(statistic: number, df: number): number {
  return clampP(1 - jStat.chisquare.cdf(statistic, df));
}

/** Proportions of two independent groups: k1 of n1 against k2 of n2 (pooled standard error). */
export function twoProportionZ(k1: number, n1: number, k2: number, n2: number): TestResult | undefined {
  if (n1 <= 0 || n2 <= 0) return undefined;
  const pooled = (k1 + k2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (!(se > 0)) return undefined;
  const z = (k1 / n1 - k2 / n2) / se;
  return { test: 'two_proportion_z', statistic: z, p_value: normalTwoSided(z) };
}

export interface Moments {
  n: number;
  mean: number;
  /** Sample variance (n − 1). */
  variance: number;
}

/** Means of two independent groups with unequal variances (Welch–Satterthwaite degrees of freedom). */
export function welchT(a: Moments, b: Moments): TestResult | undefined {
  const t = welchStatistic(a, b);
  if (t === undefined) return undefined;
  const va = Math.max(0, a.variance) / a.n;
  const vb = Math.max(0, b.variance) / b.n;
  // no spread on either side: different means differ for certain
  if (!(Math.sqrt(va + vb) > 0)) return { test: 'welch_t', statistic: t, p_value: MIN_P, df: a.n + b.n - 2 };
  const df = (va + vb) ** 2 / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  return { test: 'welch_t', statistic: t, p_value: studentTwoSided(t, df), df };
}

/** Welch's t statistic alone (no p-value: cheap enough to rank many candidates); undefined where welchT is. */
export function welchStatistic(a: Moments, b: Moments): number | undefined {
  if (a.n < 2 || b.n < 2) return undefined;
  const se = Math.sqrt(Math.max(0, a.variance) / a.n + Math.max(0, b.variance) / b.n);
  if (!(se > 0)) {
    // no spread on either side: equal means say nothing
    if (a.mean === b.mean) return undefined;
    return Math.sign(a.mean - b.mean) * CERTAIN_STATISTIC;
  }
  return (a.mean - b.mean) / se;
}

/**
 * Mood's median test: of each group's values, how many lie above the pooled median; a 2×2
 * chi-square (one degree of freedom, no continuity correction) on those counts.
 */
export function moodMedian(aboveA: number, nA: number, aboveB: number, nB: number): TestResult | undefined {
  const n = nA + nB;
  if (nA <= 0 || nB <= 0) return undefined;
  const above = aboveA + aboveB;
  const below = n - above;
  if (above === 0 || below === 0) return undefined;
  const expected = (count: number, group: number) => (count * group) / n;
  const cells: Array<[number, number]> = [
    [aboveA, expected(above, nA)],
    [nA - aboveA, expected(below, nA)],
    [aboveB, expected(above, nB)],
    [nB - aboveB, expected(below, nB)],
  ];
  const statistic = cells.reduce((sum, [observed, exp]) => sum + (exp > 0 ? (observed - exp) ** 2 / exp : 0), 0);
  return { test: 'mood_median', statistic, p_value: chiSquareUpper(statistic, 1), df: 1 };
}

/** ln P(X = k) for X ~ Binomial(n, p), from log-gamma: finite where the pmf itself under- or overflows. */
function binomialLogPmf(k: number, n: number, p: number): number {
  return jStat.gammaln(n + 1) - jStat.gammaln(k + 1) - jStat.gammaln(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

/**
 * Whether k successes of n differ from probability p: the exact two-sided binomial test (sum of the
 * outcomes no more likely than k) up to n = 2,000, the normal approximation above. The probabilities
 * are summed from their logarithms: jStat's pmf overflows to Infinity or NaN above n ≈ 1,030.
 */
export function binomialTest(k: number, n: number, p: number): TestResult | undefined {
  if (n <= 0 || !(p > 0 && p < 1) || k < 0 || k > n) return undefined;
  const z = (k - n * p) / Math.sqrt(n * p * (1 - p));
  if (n > 2_000) return { test: 'binomial', statistic: z, p_value: normalTwoSided(z) };
  const observed = binomialLogPmf(k, n, p);
  let total = 0;
  for (let i = 0; i <= n; i++) {
    const logProbability = binomialLogPmf(i, n, p);
    // relative slack of 1e-7, as R's binom.test, so outcomes as likely as k are not lost to rounding
    if (logProbability <= observed + 1e-7) total += Math.exp(logProbability);
  }
  return { test: 'binomial', statistic: z, p_value: clampP(total) };
}

/** Whether two Poisson counts observed over exposures e1 and e2 have the same rate (conditional binomial). */
export function poissonRateTest(count1: number, exposure1: number, count2: number, exposure2: number): TestResult | undefined {
  if (exposure1 <= 0 || exposure2 <= 0) return undefined;
  const n = count1 + count2;
  if (n <= 0) return undefined;
  const result = binomialTest(count1, n, exposure1 / (exposure1 + exposure2));
  return result && { ...result, test: 'poisson_rate' };
}

/** A group's total and the sum of its values' squares (what a compound sum's variance is estimated from). */
export interface Total {
  sum: number;
  squares: number;
}

/**
 * Whether two totals differ: each a sum over a random number of rows (a compound Poisson sum), whose
 * variance is estimated by the sum of its values' squares, so z = (S₁ − S₂) / √(Σy₁² + Σy₂²). A total
 * grows with its rows as well as with their size: a test of the two means would miss the first.
 */
export function compoundPoissonZ(a: Total, b: Total): TestResult | undefined {
  const spread = Math.sqrt(Math.max(0, a.squares) + Math.max(0, b.squares));
  if (!(spread > 0) || !Number.isFinite(a.sum) || !Number.isFinite(b.sum)) return undefined;
  const z = (a.sum - b.sum) / spread;
  return { test: 'compound_poisson_z', statistic: z, p_value: normalTwoSided(z) };
}

/** A segment's part of a total and the rest's, each a compound sum. */
export interface SplitTotal {
  segment: Total;
  rest: Total;
}

/**
 * Whether a segment's share of a total differs between two periods (the drivers of a change: a segment
 * whose share holds steady accounts for the change in proportion to its size; one whose share moves
 * accounts for more or less). Each share p = S / (S + R) of two compound sums; its variance by the delta
 * method from the sums' compound-Poisson variances (Σy²): ((1 − p)² Σy²_S + p² Σy²_R) / (S + R)². For a
 * count (every y = 1) this is the unpooled two-proportion z. Needs non-negative totals.
 */
export function shareChangeZ(before: SplitTotal, after: SplitTotal): TestResult | undefined {
  const share = (split: SplitTotal) => {
    const total = split.segment.sum + split.rest.sum;
    if (!(total > 0) || split.segment.sum < 0 || split.rest.sum < 0) return undefined;
    const p = split.segment.sum / total;
    const variance = ((1 - p) ** 2 * Math.max(0, split.segment.squares) + p ** 2 * Math.max(0, split.rest.squares)) / total ** 2;
    return { p, variance };
  };
  const a = share(before);
  const b = share(after);
  if (!a || !b) return undefined;
  const se = Math.sqrt(a.variance + b.variance);
  if (!(se > 0)) return undefined;
  const z = (b.p - a.p) / se;
  return { test: 'share_change_z', statistic: z, p_value: normalTwoSided(z) };
}

/** ln P(Z > z) for a standard normal, accurate far into the tail (where the probability itself underflows). */
export function logNormalUpperTail(z: number): number {
  if (z <= 0) return Math.log1p(-0.5 * jStat.erfc(-z / Math.SQRT2));
  if (z < 7) return Math.log(0.5 * jStat.erfc(z / Math.SQRT2));
  // Mills' ratio, asymptotic: Q(z) = φ(z)/z · (1 − 1/z² + 3/z⁴ − 15/z⁶ + 105/z⁸ …)
  const w = 1 / (z * z);
  return -0.5 * z * z - Math.log(z) - 0.5 * Math.log(2 * Math.PI) + Math.log(1 - w + 3 * w ** 2 - 15 * w ** 3 + 105 * w ** 4);
}

/**
 * Whether `count` rows beyond a threshold are more than a reference model puts there: X ~ Poisson(λ) with
 * λ = rows × P(beyond), one-sided P(X ≥ count), from logarithms so that a λ of 1e-12 still gives a
 * p-value. The statistic reported is λ, the rows the model expects beyond the threshold.
 */
export function poissonTail(count: number, logExpected: number): TestResult {
  const expected = Math.exp(logExpected);
  if (count <= 0) return { test: 'poisson_tail', statistic: expected, p_value: 1 };
  let logP: number;
  if (expected < count) {
    // P(X ≥ k) = e^−λ λ^k / k! · Σ_i λ^i k! / (k + i)!
    let term = 1;
    let series = 1;
    for (let i = 1; i < 1_000 && term > 1e-17 * series; i++) {
      term *= expected / (count + i);
      series += term;
    }
    logP = -expected + count * logExpected - jStat.gammaln(count + 1) + Math.log(series);
  } else {
    let below = 0;
    for (let j = 0; j < count; j++) below += Math.exp(j * logExpected - expected - jStat.gammaln(j + 1));
    logP = Math.log(Math.max(0, 1 - below));
  }
  return { test: 'poisson_tail', statistic: expected, p_value: clampP(Math.exp(logP)) };
}

/** Pearson's r over n pairs against zero: t = r √((n − 2) / (1 − r²)). */
export function pearsonT(r: number, n: number): TestResult | undefined {
  if (n < 3 || !Number.isFinite(r)) return undefined;
  const bounded = Math.max(-0.999999999, Math.min(0.999999999, r));
  const t = bounded * Math.sqrt((n - 2) / (1 - bounded * bounded));
  return { test: 'pearson_t', statistic: t, p_value: studentTwoSided(t, n - 2), df: n - 2 };
}

export interface LinearFit {
  slope: number;
  intercept: number;
  r2: number;
  n: number;
  /** The slope's t-test against zero (n − 2 degrees of freedom). */
  test: TestResult;
}

/** Ordinary least squares of y on x, with the slope's t-test. Needs three points and some spread in x. */
export function linearFit(xs: readonly number[], ys: readonly number[]): LinearFit | undefined {
  const n = Math.min(xs.length, ys.length);
  if (n < 3) return undefined;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i] as number;
    my += ys[i] as number;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (!(sxx > 0)) return undefined;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const residual = Math.max(0, syy - slope * sxy);
  const r2 = syy > 0 ? Math.max(0, Math.min(1, 1 - residual / syy)) : 0;
  const se = Math.sqrt(residual / (n - 2) / sxx);
  const t = se > 0 ? slope / se : slope === 0 ? 0 : Math.sign(slope) * 1e6;
  return { slope, intercept, r2, n, test: { test: 'ols_slope', statistic: t, p_value: studentTwoSided(t, n - 2), df: n - 2 } };
}

/** Sample mean and variance of a list. */
export function momentsOf(values: readonly number[]): Moments {
  return momentsOfRanges(values, [[0, values.length]]);
}

/**
 * Moments of the values in the index ranges `[from, to)`, taken in order: the same numbers, to the last
 * bit, as momentsOf over those values copied into one array, without the copy.
 */
export function momentsOfRanges(values: readonly number[], ranges: ReadonlyArray<readonly [number, number]>): Moments {
  let n = 0;
  let sum = 0;
  for (const [from, to] of ranges)
    for (let i = from; i < to; i++) {
      sum += values[i] as number;
      n++;
    }
  if (n === 0) return { n: 0, mean: Number.NaN, variance: Number.NaN };
  const mean = sum / n;
  if (n < 2) return { n, mean, variance: 0 };
  let squares = 0;
  for (const [from, to] of ranges) for (let i = from; i < to; i++) squares += ((values[i] as number) - mean) ** 2;
  return { n, mean, variance: squares / (n - 1) };
}

/** Pooled moments of the groups not in `exclude`, from each group's own n, mean and variance. */
export function poolMoments(groups: readonly Moments[]): Moments {
  const n = groups.reduce((sum, group) => sum + group.n, 0);
  if (n === 0) return { n: 0, mean: Number.NaN, variance: Number.NaN };
  const mean = groups.reduce((sum, group) => sum + group.n * group.mean, 0) / n;
  const squares = groups.reduce(
    (sum, group) =>
      sum + Math.max(0, group.n - 1) * (Number.isFinite(group.variance) ? group.variance : 0) + group.n * (group.mean - mean) ** 2,
    0,
  );
  return { n, mean, variance: n > 1 ? squares / (n - 1) : 0 };
}
