/**
 * What a recount says about a claim: confirmed when the direction holds and the segment's value is
 * within the tolerance of the claimed one; adjusted when the direction holds with another magnitude;
 * rejected when the direction fails or the segment has no rows.
 */
import type { Claim, ValidationStatus } from '../../domain/index.js';
import { VERIFICATION_TOLERANCE } from '../rules.js';

export interface ClaimRecount {
  segmentValue: number | null;
  comparisonValue: number | null;
  segmentRows: number;
}

export interface ClaimVerdict {
  status: Extract<ValidationStatus, 'confirmed' | 'adjusted' | 'rejected'>;
  directionHolds: boolean;
  relativeError: number | null;
  reasoning: string;
}

/** Below this, two measured values are the same value (no direction either way). */
const EQUAL_WITHIN = 1e-9;

function show(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
}

export function judgeClaim(claim: Claim, recount: ClaimRecount): ClaimVerdict {
  const label = claim.metric.label || claim.metric.kind;
  if (recount.segmentRows === 0 || recount.segmentValue === null) {
    return {
      status: 'rejected',
      directionHolds: false,
      relativeError: null,
      reasoning: `the segment ${claim.segment.column} = ${String(claim.segment.value)} has no rows to measure`,
    };
  }
  if (recount.comparisonValue === null) {
    return {
      status: 'rejected',
      directionHolds: false,
      relativeError: null,
      reasoning: `the comparison side has no rows to measure ${label} on`,
    };
  }
  const gap = recount.segmentValue - recount.comparisonValue;
  const directionHolds = claim.direction === 'higher' ? gap > EQUAL_WITHIN : gap < -EQUAL_WITHIN;
  const relativeError = Math.abs(recount.segmentValue - claim.value) / Math.max(Math.abs(claim.value), EQUAL_WITHIN);
  const measured = `${label}: ${show(recount.segmentValue)} for the segment vs ${show(recount.comparisonValue)} (claimed ${show(claim.value)} vs ${show(claim.comparison_value)})`;
  if (!directionHolds)
    return { status: 'rejected', directionHolds, relativeError, reasoning: `the segment is not ${claim.direction} — ${measured}` };
  if (relativeError <= VERIFICATION_TOLERANCE)
    return {
      status: 'confirmed',
      directionHolds,
      relativeError,
      reasoning: `recounted both sides; direction holds and the value is within ${VERIFICATION_TOLERANCE * 100}% — ${measured}`,
    };
  return { status: 'adjusted', directionHolds, relativeError, reasoning: `direction holds with another magnitude — ${measured}` };
}
