/**
 * Mined findings as analysis evidence: an area's findings, best first, rendered one per line with the
 * id the model cites, its kind, its support and significance, and the fact in words. The lines are
 * data computed by the engine; the prompt says so and fences them.
 */
import type { MinedFinding, MiningState } from '../../domain/index.js';
import { formatNumber } from '../claims/claim-text.js';

/** The area's findings, best first; findings of no area go to every area as a fallback only when the area has none. */
export function findingsForArea(mining: MiningState | undefined, areaId: string, limit: number): MinedFinding[] {
  if (mining?.status !== 'completed') return [];
  return mining.findings
    .filter((finding) => finding.area_id === areaId)
    .sort((left, right) => right.score - left.score)
    .slice(0, limit);
}

function pText(p: number | undefined): string {
  if (p === undefined) return 'q n/a';
  return p < 0.001 ? 'q<0.001' : `q=${p.toFixed(3)}`;
}

/**
 * What a finding is about, as `column=value` for a segment and `measure@axis` otherwise: findings with
 * the same subject can be told as one insight (an assignee's share and that assignee's trend).
 */
export function findingSubject(finding: MinedFinding): string {
  const { claim } = finding;
  if (claim.segment) {
    const value =
      claim.segment.value ?? claim.segment.values?.join('|') ?? `${String(claim.segment.from ?? '')}..${String(claim.segment.to ?? '')}`;
    return `${claim.segment.column}${claim.segment.grain ? `@${claim.segment.grain}` : ''}=${String(value)}`;
  }
  const measure = claim.metric.column ?? claim.metric.end_column ?? claim.metric.kind;
  return `${measure}${claim.x ? `~${claim.x.column}` : ''}${claim.series ? `@${claim.series.column}` : ''}`;
}

export function findingLine(finding: MinedFinding): string {
  const n = finding.claim.n;
  const support = n
    ? `n=${n.segment.toLocaleString('en-US')}${n.comparison !== undefined ? ` vs ${n.comparison.toLocaleString('en-US')}` : ''}`
    : 'n/a';
  return `${finding.id} | ${finding.kind} | about ${findingSubject(finding)} | ${support} | ${pText(finding.claim.test?.q_value)} | score ${formatNumber(finding.score)} | ${finding.statement}`;
}

/** The findings block of an analysis prompt (empty text when there are none). */
export function renderFindings(findings: readonly MinedFinding[]): string {
  if (findings.length === 0) return '';
  return findings.map(findingLine).join('\n');
}
