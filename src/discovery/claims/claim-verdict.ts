/**
 * What a recount says about a claim, in this order:
 *
 * 1. `rejected` when the segment has no rows, or the comparison side has nothing to measure;
 * 2. `rejected` when the direction does not hold (the segment is not higher, the trend does not rise …);
 * 3. `rejected` when the recomputed test is not significant at the verification level, or when the
 *    segment has fewer rows than the minimum support; `unverified` when no test applies to the claim;
 * 4. `confirmed` when both values are within the tolerance of the recount (wider for a claim measured
 *    on a sample), `adjusted` when they are not — the insight is then re-rendered from the recount.
 */
import type { Claim, ValidationStatus } from '../../domain/index.js';
import type { ClaimRecount } from './claim-recount.js';

/** Relative gap between a claimed and a recounted value that still counts as the same number. */
export const VALUE_TOLERANCE = 0.05;
/** The same for a claim measured on a sample of a large table. */
export const SAMPLED_VALUE_TOLERANCE = 0.15;
/** Absolute slack for values near zero (rates, correlations): rounding to a tenth of a point is not a disagreement. */
const ABSOLUTE_SLACK = 0.005;
/** A recomputed test must reach this to confirm (each claim is one specified hypothesis once stated). */
export const VERIFICATION_ALPHA = 0.05;

export interface VerdictOptions {
  /** Rows a segment needs. */
  minSupport: number;
  alpha?: number;
}

export interface ClaimVerdict {
  status: Extract<ValidationStatus, 'confirmed' | 'adjusted' | 'rejected' | 'unverified'>;
  directionHolds: boolean;
  relativeError: number | null;
  comparisonRelativeError: number | null;
  reasoning: string;
}

function show(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 1000 ? value.toFixed(1) : value.toPrecision(4);
}

function relativeGap(claimed: number, recounted: number): number {
  return Math.abs(recounted - claimed) / Math.max(Math.abs(claimed), Math.abs(recounted), 1e-12);
}

function within(claimed: number, recounted: number, tolerance: number): boolean {
  return Math.abs(recounted - claimed) <= ABSOLUTE_SLACK || relativeGap(claimed, recounted) <= tolerance;
}

/** Whether the recount goes the way the claim says. */
function directionHolds(claim: Claim, recount: ClaimRecount): boolean {
  const { value, comparisonValue } = recount;
  if (value === null || comparisonValue === null) return false;
  const wanted = claim.direction === 'higher' ? 1 : -1;
  if (claim.kind === 'trend' && recount.fit)
    return Math.sign(recount.fit.slope) === wanted && Math.sign(value - comparisonValue) === wanted;
  const gap = value - comparisonValue;
  return Math.abs(gap) > 1e-12 && Math.sign(gap) === wanted;
}

export function judgeClaim(claim: Claim, recount: ClaimRecount, options: VerdictOptions): ClaimVerdict {
  const label = claim.metric.label || claim.metric.column || claim.metric.kind;
  const alpha = options.alpha ?? VERIFICATION_ALPHA;
  const base = { relativeError: null, comparisonRelativeError: null };
  if (recount.segmentRows === 0 || recount.value === null)
    return {
      ...base,
      status: 'rejected',
      directionHolds: false,
      reasoning: 'the segment has no rows to measure: it does not exist in the data',
    };
  if (recount.comparisonValue === null)
    return { ...base, status: 'rejected', directionHolds: false, reasoning: `the comparison side has no rows to measure ${label} on` };
  const holds = directionHolds(claim, recount);
  const relativeError = relativeGap(claim.value, recount.value);
  const comparisonRelativeError = relativeGap(claim.comparison_value, recount.comparisonValue);
  const measured = `${label}: recounted ${show(recount.value)} vs ${show(recount.comparisonValue)} (claimed ${show(claim.value)} vs ${show(claim.comparison_value)})`;
  const errors = { relativeError, comparisonRelativeError };
  if (!holds) return { ...errors, status: 'rejected', directionHolds: false, reasoning: `the direction does not hold — ${measured}` };
  const test = recount.test;
  const testText = test
    ? `${test.test} = ${show(test.statistic)}, ${test.p_value < 0.001 ? 'p < 0.001' : `p = ${show(test.p_value)}`}`
    : '';
  // support: rows behind the segment; periods behind a trend; pairs behind a correlation; rows inside a shift's window
  const support = claim.kind === 'trend' || claim.kind === 'correlation' ? 3 : options.minSupport;
  const behind = claim.kind === 'shift' ? (recount.segmentRecords ?? recount.segmentRows) : recount.segmentRows;
  if (behind < support)
    return {
      ...errors,
      status: 'rejected',
      directionHolds: true,
      reasoning: `only ${behind} ${claim.kind === 'trend' ? 'periods' : 'rows'} behind the segment, fewer than the ${support} needed — ${measured}`,
    };
  if (!test)
    return {
      ...errors,
      status: 'unverified',
      directionHolds: true,
      reasoning: `no significance test applies to a ${claim.metric.kind} ${claim.kind}; the numbers were recounted but the difference cannot be tested — ${measured}`,
    };
  if (!(test.p_value <= alpha))
    return {
      ...errors,
      status: 'rejected',
      directionHolds: true,
      reasoning: `the difference is not significant (${testText}) — ${measured}`,
    };
  const tolerance = claim.approximate ? SAMPLED_VALUE_TOLERANCE : VALUE_TOLERANCE;
  if (within(claim.value, recount.value, tolerance) && within(claim.comparison_value, recount.comparisonValue, tolerance))
    return {
      ...errors,
      status: 'confirmed',
      directionHolds: true,
      reasoning: `recounted both sides with the verifier's own SQL: direction holds, significant (${testText}), both values within ${tolerance * 100}% — ${measured}`,
    };
  return {
    ...errors,
    status: 'adjusted',
    directionHolds: true,
    reasoning: `direction and significance hold (${testText}) but the magnitude differs: the text is re-rendered from the recount — ${measured}`,
  };
}
