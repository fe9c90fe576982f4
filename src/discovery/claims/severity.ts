/**
 * Severity from effect and support, never from wording: a large effect on many rows, relevant to the
 * goal, is critical (a strength, high at most); a handful of rows is never more than low, whatever the ratio.
 */
import type { Claim, MinedFinding, Severity } from '../../domain/index.js';
import { stanceOf } from './stance.js';

export function severityOfFinding(finding: Pick<MinedFinding, 'strength' | 'coverage' | 'relevance' | 'claim'>): Severity {
  const rows = finding.claim.n?.segment ?? 0;
  const rowsBehind = finding.claim.kind === 'trend' || finding.claim.kind === 'shift' ? rows * 10 : rows;
  if (rowsBehind < 30) return 'low';
  // a strength (a segment doing better) is worth learning from, never as urgent as a problem
  if (finding.strength >= 0.8 && rowsBehind >= 100 && finding.coverage >= 0.1 && finding.relevance >= 0.5)
    return stanceOf(finding.claim) === 'strength' ? 'high' : 'critical';
  if (finding.strength >= 0.6) return 'high';
  if (finding.strength >= 0.3) return 'medium';
  return 'low';
}

/** A model's own claim: its severity, capped by the support the claim states (unknown support: medium at most). */
export function capSeverity(severity: Severity, claim: Claim | undefined): Severity {
  const rows = claim?.n?.segment;
  const order: Severity[] = ['low', 'medium', 'high', 'critical'];
  const cap: Severity = rows === undefined ? 'medium' : rows < 30 ? 'low' : rows < 100 ? 'high' : 'critical';
  return order[Math.min(order.indexOf(severity), order.indexOf(cap))] as Severity;
}
