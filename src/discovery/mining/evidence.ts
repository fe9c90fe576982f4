/**
 * Mined findings as analysis evidence: an area's findings, best first, rendered one per line with the
 * id the model cites, its kind, its support and significance, and the fact in words. The lines are
 * data computed by the engine; the prompt says so and fences them.
 */
import type { Claim, MinedFinding, MiningState } from '../../domain/index.js';
import { promptIdentifier, promptText } from '../../llm/data-fence.js';
import { formatNumber } from '../claims/claim-text.js';

/** The area's findings, best first; findings of no area go to every area as a fallback only when the area has none. */
/** How much a finding's fit to its area adds to its score in the area's own order: a perfect fit counts (1 + AREA_FIT_WEIGHT)×. */
export const AREA_FIT_WEIGHT = 0.5;

/** An area's findings, best first: the run's score, raised by how close each is to what the area is about. */
export function findingsForArea(mining: MiningState | undefined, areaId: string, limit: number): MinedFinding[] {
  if (mining?.status !== 'completed') return [];
  const weighed = (finding: MinedFinding) => finding.score * (1 + AREA_FIT_WEIGHT * (finding.area_fit ?? 0));
  return mining.findings
    .filter((finding) => finding.area_id === areaId)
    .sort((left, right) => weighed(right) - weighed(left) || right.score - left.score)
    .slice(0, limit);
}

function pText(p: number | undefined): string {
  if (p === undefined) return 'q n/a';
  return p < 0.001 ? 'q<0.001' : `q=${p.toFixed(3)}`;
}

/**
 * What a finding is about, as `column="value"` for a segment (a driver of a change included: the group it
 * names), `column>=threshold` for outliers and `measure@axis` otherwise: findings with
 * the same subject can be told as one insight (an assignee's share and that assignee's trend). Names are
 * written as SQL writes them and values as JSON strings: warehouse text, quoted.
 */
export function findingSubject(finding: MinedFinding): string {
  const { claim } = finding;
  // an outlier's segment is a threshold on its own measure: `"amount">=5000`
  if (claim.kind === 'outlier' && claim.segment) {
    const { from, to } = claim.segment;
    return `${promptIdentifier(claim.segment.column)}${from !== undefined ? `>=${String(from)}` : `<${String(to)}`}`;
  }
  if (claim.segment) {
    const value =
      claim.segment.value ?? claim.segment.values?.join('|') ?? `${String(claim.segment.from ?? '')}..${String(claim.segment.to ?? '')}`;
    return `${promptIdentifier(claim.segment.column)}${claim.segment.grain ? `@${claim.segment.grain}` : ''}=${promptText(String(value))}`;
  }
  const measure = claim.metric.column ?? claim.metric.end_column ?? claim.metric.kind;
  return `${promptIdentifier(measure)}${claim.x ? `~${promptIdentifier(claim.x.column)}` : ''}${claim.series ? `@${promptIdentifier(claim.series.column)}` : ''}`;
}

/** Text of the claim that came from the warehouse (labels made from names, values of cells): what the statement quotes. */
function warehouseTexts(claim: Claim): string[] {
  const texts = [
    claim.metric.label,
    claim.segment?.label,
    claim.series?.label,
    claim.x?.label,
    claim.comparison?.kind === 'group' ? claim.comparison.group.label : undefined,
    ...[claim.segment, claim.comparison?.kind === 'group' ? claim.comparison.group : undefined].flatMap((group) =>
      group ? [group.value, ...(group.values ?? [])] : [],
    ),
    claim.metric.condition?.value,
  ];
  return [...new Set(texts.filter((text): text is string => typeof text === 'string' && /\p{L}/u.test(text) && text.trim().length >= 2))];
}

/**
 * The finding's statement for a prompt: every piece of warehouse text in it as a JSON string, so a value
 * that reads like an instruction is visibly a quoted value. Longer pieces first; one pass, so a quoted
 * piece is never quoted again.
 */
export function quotedStatement(finding: MinedFinding): string {
  const pieces = warehouseTexts(finding.claim).sort((left, right) => right.length - left.length);
  if (pieces.length === 0) return finding.statement;
  const pattern = new RegExp(pieces.map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return finding.statement.replace(pattern, (piece) => promptText(piece));
}

export function findingLine(finding: MinedFinding): string {
  const n = finding.claim.n;
  const support = n
    ? `n=${n.segment.toLocaleString('en-US')}${n.comparison !== undefined ? ` vs ${n.comparison.toLocaleString('en-US')}` : ''}`
    : 'n/a';
  return `${finding.id} | ${finding.kind} | about ${findingSubject(finding)} | ${support} | ${pText(finding.claim.test?.q_value)} | score ${formatNumber(finding.score)} | ${quotedStatement(finding)}`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/**
 * The findings block of an analysis prompt (empty text when there are none): one line per finding,
 * whatever the warehouse's values hold (a line break in a value becomes a space, so data never starts a
 * line of its own). The caller fences it as data.
 */
export function renderFindings(findings: readonly MinedFinding[]): string {
  if (findings.length === 0) return '';
  return findings.map((finding) => findingLine(finding).replace(CONTROL_CHARACTERS, ' ')).join('\n');
}
