/**
 * Record-level outliers: rows whose measure lies beyond Tukey's far-out fence (three interquartile ranges
 * past the quartiles), and the test that there are more of them than the bulk of the data explains. The
 * same functions serve the miner and the verifier, fed with the quartiles each counted.
 *
 * The bulk is modelled as a normal distribution fitted robustly — centred on the median, its spread the
 * interquartile range / 1.349 — on the log scale when every value is positive (amounts, durations, sizes
 * spread multiplicatively), else on the values themselves. Rows beyond a threshold are then a Poisson count
 * with mean rows × P(beyond) under that model; a handful where it expects a millionth of one is an outlier,
 * a long tail of thousands is the shape of the data and is reported by no one.
 */
import { logNormalUpperTail, poissonTail, type TestResult } from './tests.js';

/** Interquartile ranges past the quartiles at which a value is far out (Tukey's far-out fence). */
export const FAR_OUT_IQR = 3;
/** The interquartile range of a standard normal: the spread of the bulk is IQR / this. */
const NORMAL_IQR = 1.349;

export interface Quartiles {
  q1: number;
  median: number;
  q3: number;
  /** Smallest value: a positive measure is modelled on the log scale. */
  min: number;
  /** Rows with a value. */
  n: number;
}

export type OutlierSide = 'high' | 'low';

function scaleOf(quartiles: Quartiles): (value: number) => number {
  return quartiles.min > 0 ? Math.log : (value: number) => value;
}

/** Whether the bulk is modelled on the log scale (every value positive). */
export function onLogScale(quartiles: Quartiles): boolean {
  return quartiles.min > 0;
}

/**
 * The far-out fences: Q3 + 3 IQR and Q1 − 3 IQR, on the log scale Q3 · (Q3/Q1)³ and Q1 / (Q3/Q1)³;
 * undefined when the quartiles do not spread (half the rows or more share one value).
 */
export function farOutFences(quartiles: Quartiles): { low: number; high: number } | undefined {
  const { q1, q3 } = quartiles;
  if (!(Number.isFinite(q1) && Number.isFinite(q3) && q3 > q1)) return undefined;
  if (onLogScale(quartiles)) {
    const ratio = (q3 / q1) ** FAR_OUT_IQR;
    return { low: q1 / ratio, high: q3 * ratio };
  }
  const spread = FAR_OUT_IQR * (q3 - q1);
  return { low: q1 - spread, high: q3 + spread };
}

/** How far a value lies from the median, in spreads of the bulk (on its scale); NaN without spread. */
export function robustZ(quartiles: Quartiles, value: number): number {
  const scale = scaleOf(quartiles);
  const sigma = (scale(quartiles.q3) - scale(quartiles.q1)) / NORMAL_IQR;
  if (!(sigma > 0)) return Number.NaN;
  const position = value > 0 || !onLogScale(quartiles) ? scale(value) : Number.NEGATIVE_INFINITY;
  return (position - scale(quartiles.median)) / sigma;
}

/**
 * Whether `count` rows at or beyond `threshold` on `side` are more than the bulk puts there (one-sided
 * Poisson tail, `poisson_tail`); undefined without spread.
 */
export function outlierTailTest(quartiles: Quartiles, threshold: number, side: OutlierSide, count: number): TestResult | undefined {
  const z = robustZ(quartiles, threshold);
  if (Number.isNaN(z) || !(quartiles.n > 0)) return undefined;
  const beyond = side === 'high' ? z : -z;
  return poissonTail(count, Math.log(quartiles.n) + logNormalUpperTail(beyond));
}

/** The roundest number in [low, high] (fewest significant figures), or `low` when none is rounder. */
export function roundestBetween(low: number, high: number, toward: 'up' | 'down'): number {
  const from = toward === 'up' ? low : high;
  if (!Number.isFinite(from) || from === 0) return from;
  for (let figures = 1; figures <= 6; figures++) {
    const step = 10 ** (Math.floor(Math.log10(Math.abs(from))) - figures + 1);
    const rounded = Number(((toward === 'up' ? Math.ceil(from / step) : Math.floor(from / step)) * step).toPrecision(figures + 1));
    if (rounded >= low && rounded <= high) return rounded;
  }
  return from;
}
