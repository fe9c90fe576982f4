/**
 * A claim in the words a recommendation is written from: what was measured, for which rows, its two
 * values rounded as the insight states them, what they are compared with, and whether the segment is a
 * problem, a strength or neither (stance.ts). The recommend prompt carries one per insight, so a model —
 * or the offline analyst — writes from the claim instead of from an insight's title.
 */
import type { Claim } from '../../domain/index.js';
import { comparisonPhrase, formatMetricValue, formatPercent, groupPhrase, metricPhrase, noun, renderClaim } from './claim-text.js';
import { type Stance, stanceOf } from './stance.js';

export interface ClaimBrief {
  kind: Claim['kind'];
  /** `problem`: fix or investigate; `strength`: learn from it and extend it; `neutral`: no direction is declared better. */
  stance: Stance;
  /** The fact as the insight's title states it. */
  fact: string;
  /** "checkout abandonment rate", "average revenue"; for a correlation, both measures. */
  measure: string;
  /** "sessions whose device is mobile"; empty when the claim is about all rows. */
  segment: string;
  direction: Claim['direction'];
  /** The segment's (or the latest) value, rounded as written: "66.6%", "$837", "7.44 days". */
  value: string;
  /** What it is compared with, rounded as written. */
  comparison_value: string;
  /** "the other sessions", "the start of the series". */
  compared_with: string;
  /** The distance between the two values: "39.6 percentage points", "565". */
  gap: string;
  /** Rows behind the segment. */
  rows: number | null;
  noun: string;
}

/** A label without its bracketed unit: "time from started to completed (days)" → "time from started to completed". */
function unitless(label: string): string {
  return label.replace(/\s*\([^()]*\)\s*$/, '');
}

function gapText(claim: Claim): string {
  const gap = Math.abs(claim.value - claim.comparison_value);
  const percent = claim.kind === 'share' || claim.metric.kind === 'rate' || claim.metric.kind === 'share';
  return percent ? `${formatPercent(gap).replace(/%$/, '')} percentage points` : formatMetricValue(claim, gap);
}

function comparedWith(claim: Claim): string {
  switch (claim.kind) {
    case 'trend':
      return 'the start of the series';
    case 'shift':
    case 'contribution':
      return 'the other periods';
    case 'correlation':
      return 'no correlation';
    case 'outlier':
      return `the median of the other ${noun(claim)}`;
    default:
      return comparisonPhrase(claim);
  }
}

export function claimBrief(claim: Claim): ClaimBrief {
  const measure =
    claim.kind === 'correlation'
      ? `${unitless(claim.x?.label || claim.x?.column || 'one measure')} and ${unitless(claim.metric.label || claim.metric.column || 'another')}`
      : metricPhrase(claim);
  const value = claim.kind === 'correlation' ? claim.value.toFixed(2) : formatMetricValue(claim, claim.value);
  const comparison = claim.kind === 'correlation' ? '0' : formatMetricValue(claim, claim.comparison_value);
  return {
    kind: claim.kind,
    stance: stanceOf(claim),
    fact: renderClaim(claim).title,
    measure,
    segment: claim.segment ? groupPhrase(claim.segment, noun(claim)) : '',
    direction: claim.direction,
    value,
    comparison_value: comparison,
    compared_with: comparedWith(claim),
    gap: claim.kind === 'correlation' ? '' : gapText(claim),
    rows: claim.n?.segment ?? null,
    noun: noun(claim),
  };
}
