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
import { formatMetricValue } from './claim-text.js';

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

function testWords(test: { test: string; statistic: number; p_value: number }): string {
  return `${test.test} = ${show(test.statistic)}, ${test.p_value < 0.001 ? 'p < 0.001' : `p = ${show(test.p_value)}`}`;
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
  // a driver moves the way the whole moves: both rise, or both fall
  // and its share of the total moves with the change (a rise: its share grows), so its part exceeds its size's
  if (claim.kind === 'contribution')
    return (
      Math.sign(value) === wanted &&
      Math.sign(comparisonValue) === wanted &&
      (recount.test === undefined || Math.sign(recount.test.statistic) === wanted)
    );
  // rows at or above a threshold are high outliers, rows below one low outliers
  if (claim.kind === 'outlier' && (recount.side === 'high') !== (claim.direction === 'higher')) return false;
  const gap = value - comparisonValue;
  return Math.abs(gap) > 1e-12 && Math.sign(gap) === wanted;
}

/** Rows a claim needs behind it: a segment's minimum support; 3 periods or pairs; one extreme row for an outlier. */
function supportNeeded(claim: Claim, minSupport: number): number {
  if (claim.kind === 'trend' || claim.kind === 'correlation') return 3;
  if (claim.kind === 'outlier') return 1;
  return minSupport;
}

/** An outlier's threshold must lie at or beyond the far-out fence: rows inside it are the tail of the data, not outliers. */
function insideFence(claim: Claim, recount: ClaimRecount, tolerance: number): string | undefined {
  if (claim.kind !== 'outlier' || recount.fence === undefined) return undefined;
  const threshold = Number(recount.side === 'high' ? claim.segment?.from : claim.segment?.to);
  // a claim measured on a sample may state a fence from sampled quartiles: within its tolerance
  const slack = claim.approximate ? tolerance * Math.abs(recount.fence) : 0;
  const beyond = recount.side === 'high' ? threshold >= recount.fence - slack : threshold <= recount.fence + slack;
  if (beyond) return undefined;
  return `the threshold ${show(threshold)} lies inside the far-out fence (${show(recount.fence)}: three interquartile ranges ${recount.side === 'high' ? 'above the upper' : 'below the lower'} quartile${recount.fence > 0 && claim.value > 0 ? ', on the log scale' : ''}): the rows are the tail of the data, not outliers`;
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
  // in the words the insight uses: 40.0% (never 0.4004), $837, 7.44 days
  const worded = (value: number) => (claim.kind === 'correlation' ? value.toFixed(2) : formatMetricValue(claim, value));
  const measured = `${label}: recounted ${worded(recount.value)} vs ${worded(recount.comparisonValue)} (claimed ${worded(claim.value)} vs ${worded(claim.comparison_value)})`;
  const errors = { relativeError, comparisonRelativeError };
  if (!holds) return { ...errors, status: 'rejected', directionHolds: false, reasoning: `the direction does not hold — ${measured}` };
  const test = recount.test;
  const testText = test ? `${testWords(test)}${recount.changeTest ? `; the whole's change: ${testWords(recount.changeTest)}` : ''}` : '';
  // support: rows behind the segment; periods behind a trend; pairs behind a correlation; rows inside a shift's window
  const support = supportNeeded(claim, options.minSupport);
  const behind = claim.kind === 'shift' ? (recount.segmentRecords ?? recount.segmentRows) : recount.segmentRows;
  if (behind < support)
    return {
      ...errors,
      status: 'rejected',
      directionHolds: true,
      reasoning: `only ${behind} ${claim.kind === 'trend' ? 'periods' : 'rows'} behind the segment, fewer than the ${support} needed — ${measured}`,
    };
  const tolerance = claim.approximate ? SAMPLED_VALUE_TOLERANCE : VALUE_TOLERANCE;
  if (claim.kind === 'outlier' && recount.fence === undefined)
    return {
      ...errors,
      status: 'unverified',
      directionHolds: true,
      reasoning: `the measure's quartiles do not spread (half the rows or more share one value): no fence tells outliers from the rest — ${measured}`,
    };
  const inside = insideFence(claim, recount, tolerance);
  if (inside) return { ...errors, status: 'rejected', directionHolds: true, reasoning: `${inside} — ${measured}` };
  const changeTest = recount.changeTest;
  if (!test || (claim.kind === 'contribution' && !changeTest))
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
      reasoning:
        claim.kind === 'contribution'
          ? `the segment's share of the total did not move between the windows beyond chance (${testText}): its part of the change is its size's — ${measured}`
          : `the difference is not significant (${testText}) — ${measured}`,
    };
  if (changeTest && !(changeTest.p_value <= alpha))
    return {
      ...errors,
      status: 'rejected',
      directionHolds: true,
      reasoning: `the change of the whole is not significant (${testWords(changeTest)}): there is no change to account for — ${measured}`,
    };
  const valuesAgree = (() => {
    if (claim.kind === 'contribution') {
      // changes and their ratio: relative agreement only (a change of two points is not "near zero")
      const agrees = (claimed: number, recounted: number) => relativeGap(claimed, recounted) <= tolerance;
      return (
        agrees(claim.value, recount.value as number) &&
        agrees(claim.comparison_value, recount.comparisonValue as number) &&
        agrees(claim.value / claim.comparison_value, (recount.value as number) / (recount.comparisonValue as number))
      );
    }
    const shareAgrees =
      claim.share_of_total === undefined ||
      (recount.shareOfTotal !== null &&
        recount.shareOfTotal !== undefined &&
        within(claim.share_of_total, recount.shareOfTotal, tolerance));
    return (
      shareAgrees &&
      within(claim.value, recount.value as number, tolerance) &&
      within(claim.comparison_value, recount.comparisonValue as number, tolerance)
    );
  })();
  if (valuesAgree)
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
