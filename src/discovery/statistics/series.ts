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
import {
  type LinearFit,
  type Moments,
  type TestResult,
  linearFit,
  momentsOf,
  momentsOfRanges,
  studentTwoSided,
  welchStatistic,
  welchT,
} from './tests.js';

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
  return contrastOf(momentsOf(inside), momentsOf(outside));
}

function contrastOf(a: Moments, b: Moments): { test: TestResult; inside: Moments; outside: Moments } | undefined {
  const t = contrastStatistic(a, b);
  if (t === undefined) return undefined;
  if (a.n === 1)
    return { test: { test: 'welch_t', statistic: t, p_value: studentTwoSided(t, b.n - 1), df: b.n - 1 }, inside: a, outside: b };
  const test = welchT(a, b);
  return test ? { test, inside: a, outside: b } : undefined;
}

/** windowContrast's statistic alone, from the two sides' moments: what the searches below rank by. */
function contrastStatistic(a: Moments, b: Moments): number | undefined {
  if (a.n === 0 || b.n < 2) return undefined;
  if (a.n === 1) {
    const spread = Math.sqrt(b.variance * (1 + 1 / b.n));
    return spread > 0 ? (a.mean - b.mean) / spread : undefined;
  }
  return welchStatistic(a, b);
}

/**
 * The window or split with the largest |t| among `candidates` (index ranges inside, and outside, in
 * series order), its p-value corrected for all the candidates tried. Ranked by the statistic alone and
 * the p-value worked out for the winner only: a series of a few hundred periods has thousands of
 * candidates, and copying each one's periods and integrating its t distribution was most of mining's
 * time-series cost.
 */
function bestOf(
  values: readonly number[],
  candidates: Iterable<{ first: number; last: number; inside: Array<[number, number]>; outside: Array<[number, number]> }>,
): WindowFinding | undefined {
  let best: { first: number; last: number; inside: Moments; outside: Moments; statistic: number } | undefined;
  let tries = 0;
  for (const candidate of candidates) {
    tries++;
    const inside = momentsOfRanges(values, candidate.inside);
    const outside = momentsOfRanges(values, candidate.outside);
    const statistic = contrastStatistic(inside, outside);
    if (statistic === undefined) continue;
    if (!best || Math.abs(statistic) > Math.abs(best.statistic))
      best = { first: candidate.first, last: candidate.last, inside, outside, statistic };
  }
  const contrast = best && contrastOf(best.inside, best.outside);
  if (!best || !contrast) return undefined;
  return { first: best.first, last: best.last, inside: contrast.inside, outside: contrast.outside, test: corrected(contrast.test, tries) };
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
  const n = values.length;
  function* splits() {
    for (let split = minSide; split <= n - minSide; split++)
      yield {
        first: split,
        last: n - 1,
        inside: [[split, n]] as Array<[number, number]>,
        outside: [[0, split]] as Array<[number, number]>,
      };
  }
  return bestOf(values, splits());
}

/** The run of up to `maxLength` consecutive periods (not the whole series) that stands out most from the rest. */
export function bestWindow(points: readonly SeriesPoint[], maxLength: number): WindowFinding | undefined {
  const values = points.map((point) => point.value);
  const n = values.length;
  function* windows() {
    for (let length = 1; length <= maxLength; length++)
      for (let first = 0; first + length <= n; first++) {
        if (n - length < 3) continue;
        yield {
          first,
          last: first + length - 1,
          inside: [[first, first + length]] as Array<[number, number]>,
          outside: [
            [0, first],
            [first + length, n],
          ] as Array<[number, number]>,
        };
      }
  }
  return bestOf(values, windows());
}
