/**
 * Tests on a metric measured per period — the same functions for the miner, which reads the series from
 * its own grouped statement, and for the verifier, which recounts it from a claim:
 *
 * - `trendOf`: least-squares slope over the period positions, with its t-test and r²;
 * - `bestShift`: the split into an earlier and a later run of periods whose means differ most (Welch's
 *   t), its p-value multiplied by the number of splits tried (Bonferroni), since the split was chosen;
 * - `bestWindow`: the run of consecutive periods that stands out most from the others, corrected the
 *   same way for the windows tried;
 * - `windowContrast`: a given window against given other periods, as a verifier recomputes it.
 */
import { type LinearFit, type Moments, type TestResult, linearFit, momentsOf, studentTwoSided, welchT } from './tests.js';

export interface SeriesPoint {
  /** Position of the period on the axis (a year, days since the epoch ÷ grain length, an hour). */
  x: number;
  /** Label of the period as the claim states it (`2023-07-01`, `1963`). */
  label: string;
  value: number;
  /** Rows behind the value. */
  rows: number;
}

export function trendOf(points: readonly SeriesPoint[]): LinearFit | undefined {
  return linearFit(
    points.map((point) => point.x),
    points.map((point) => point.value),
  );
}

/** A window of periods against other periods: Welch's t, or for a single period its prediction-interval t. */
export function windowContrast(
  inside: readonly number[],
  outside: readonly number[],
): { test: TestResult; inside: Moments; outside: Moments } | undefined {
  const a = momentsOf(inside);
  const b = momentsOf(outside);
  if (a.n === 0 || b.n < 2) return undefined;
  if (a.n === 1) {
    const spread = Math.sqrt(b.variance * (1 + 1 / b.n));
    if (!(spread > 0)) return undefined;
    const t = (a.mean - b.mean) / spread;
    return { test: { test: 'welch_t', statistic: t, p_value: studentTwoSided(t, b.n - 1), df: b.n - 1 }, inside: a, outside: b };
  }
  const test = welchT(a, b);
  return test ? { test, inside: a, outside: b } : undefined;
}

export interface WindowFinding {
  /** Index of the window's first and last period in the series. */
  first: number;
  last: number;
  inside: Moments;
  outside: Moments;
  /** p-value already multiplied by the number of windows tried. */
  test: TestResult;
}

function corrected(test: TestResult, tries: number): TestResult {
  return { ...test, p_value: Math.min(1, test.p_value * Math.max(1, tries)) };
}

/** The earlier/later split with the largest mean difference; each side keeps at least `minSide` periods. */
export function bestShift(points: readonly SeriesPoint[], minSide = 3): WindowFinding | undefined {
  const values = points.map((point) => point.value);
  let best: WindowFinding | undefined;
  let tries = 0;
  for (let split = minSide; split <= values.length - minSide; split++) {
    const contrast = windowContrast(values.slice(split), values.slice(0, split));
    tries++;
    if (!contrast) continue;
    if (!best || Math.abs(contrast.test.statistic) > Math.abs(best.test.statistic))
      best = { first: split, last: values.length - 1, inside: contrast.inside, outside: contrast.outside, test: contrast.test };
  }
  return best && { ...best, test: corrected(best.test, tries) };
}

/** The run of up to `maxLength` consecutive periods (not the whole series) that stands out most from the rest. */
export function bestWindow(points: readonly SeriesPoint[], maxLength: number): WindowFinding | undefined {
  const values = points.map((point) => point.value);
  let best: WindowFinding | undefined;
  let tries = 0;
  for (let length = 1; length <= maxLength; length++) {
    for (let first = 0; first + length <= values.length; first++) {
      const outside = [...values.slice(0, first), ...values.slice(first + length)];
      if (outside.length < 3) continue;
      const contrast = windowContrast(values.slice(first, first + length), outside);
      tries++;
      if (!contrast) continue;
      if (!best || Math.abs(contrast.test.statistic) > Math.abs(best.test.statistic))
        best = { first, last: first + length - 1, inside: contrast.inside, outside: contrast.outside, test: contrast.test };
    }
  }
  return best && { ...best, test: corrected(best.test, tries) };
}
