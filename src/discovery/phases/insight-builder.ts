/**
 * From the model's reply to stored insights (pure): each insight rests on mined findings it cites (the
 * first gives its claim, the others become supporting claims) or on a claim of its own; its text is the
 * model's words (then checked against the claim by verification) or, when the model left them out,
 * rendered from the claim. Severity follows effect and support. Insights are ranked by their finding's
 * score and capped per area; two insights on one finding are one insight.
 */
import { claimSchema, type Claim, type Insight, type MinedFinding } from '../../domain/index.js';
import { renderClaim } from '../claims/claim-text.js';
import { capSeverity, severityOfFinding } from '../claims/severity.js';
import type { RawInsight } from '../parsing/output-parser.js';

export interface BuildInsightsInput {
  areaId: string;
  raw: readonly RawInsight[];
  /** Every finding of the run, by id (a model may cite one shown to another area). */
  findings: ReadonlyMap<string, MinedFinding>;
  /** Steps an insight may cite: successful queries. */
  citable: ReadonlySet<number>;
  discoveredAt: string;
  /** Insights kept after ranking. */
  cap: number;
  /** Noun of a row per table, for claims a model wrote itself. */
  nounOf: (table: string) => string;
  /** The area's picked exploration steps (number and executed SQL), best first: what an insight resting on a finding cites. */
  evidence?: ReadonlyArray<{ step: number; sql: string }>;
}

/** Exploration steps cited by an insight the model gave none for: picked steps reading the claim's table and one of its columns. */
const CITED_STEPS = 3;

function stepsReading(claim: Claim, evidence: ReadonlyArray<{ step: number; sql: string }>): number[] {
  const table = (claim.metric.table.split('.').at(-1) ?? claim.metric.table).toLowerCase();
  const columns = [
    claim.metric.column,
    claim.metric.start_column,
    claim.metric.end_column,
    claim.metric.condition?.column,
    claim.segment?.column,
    claim.series?.column,
    claim.x?.column,
  ]
    .filter((column): column is string => column !== undefined && !column.includes('.'))
    .map((column) => column.toLowerCase());
  return evidence
    .filter(({ sql }) => {
      const text = sql.toLowerCase().replace(/"/g, '');
      return text.includes(table) && columns.some((column) => text.includes(column));
    })
    .slice(0, CITED_STEPS)
    .map(({ step }) => step);
}

function claimOf(raw: RawInsight, notes: string[], label: string, nounOf: (table: string) => string): Claim | undefined {
  if (raw.claim === undefined) return undefined;
  const parsed = claimSchema.safeParse(raw.claim);
  if (!parsed.success) {
    notes.push(
      `${label}: dropped a malformed claim (${parsed.error.issues
        .slice(0, 2)
        .map((issue) => `${issue.path.join('.') || 'claim'}: ${issue.message}`)
        .join('; ')}); the insight stays unverified`,
    );
    return undefined;
  }
  return { ...parsed.data, noun: parsed.data.noun ?? nounOf(parsed.data.metric.table) };
}

/** The description rendered from the claim, with each supporting fact after it. */
function renderedText(claim: Claim, supporting: readonly MinedFinding[]): { name: string; description: string } {
  const main = renderClaim(claim);
  const more = supporting.map((finding) => `${renderClaim(finding.claim).title}.`);
  return { name: main.title, description: [main.description, ...more].join(' ') };
}

export function buildInsights(input: BuildInsightsInput): { insights: Insight[]; notes: string[] } {
  const notes: string[] = [];
  const seenPrimary = new Set<string>();
  const built: Array<{ insight: Omit<Insight, 'id'>; score: number; order: number }> = [];
  input.raw.forEach((raw, index) => {
    const label = `reply insight #${index + 1}`;
    const cited = raw.findings ?? [];
    const known = cited.filter((id) => input.findings.has(id));
    const unknown = cited.filter((id) => !input.findings.has(id));
    if (unknown.length > 0) notes.push(`${label}: cited unknown findings ${unknown.join(', ')} (dropped)`);
    const [primaryId, ...restIds] = [...new Set(known)];
    const primary = primaryId ? input.findings.get(primaryId) : undefined;
    if (primary && seenPrimary.has(primary.id)) {
      notes.push(`${label}: restates ${primary.id}, already an insight of this area (merged away)`);
      return;
    }
    const supporting = restIds.map((id) => input.findings.get(id)).filter((finding): finding is MinedFinding => finding !== undefined);
    const claim = primary?.claim ?? claimOf(raw, notes, label, input.nounOf);
    const modelWords = raw.name !== undefined;
    if (!modelWords && !claim) {
      notes.push(`${label}: no words and no checkable claim (dropped)`);
      return;
    }
    if (primary) seenPrimary.add(primary.id);
    const text = modelWords ? { name: raw.name as string, description: raw.description } : renderedText(claim as Claim, supporting);
    const own = [...new Set(raw.source_steps)];
    const cites = (own.length === 0 && claim && input.evidence ? stepsReading(claim, input.evidence) : own).sort((a, b) => a - b);
    const badSteps = cites.filter((step) => !input.citable.has(step));
    if (badSteps.length > 0) notes.push(`${label}: dropped citations of steps ${badSteps.join(', ')} (no such successful query)`);
    const severity = primary ? severityOfFinding(primary) : capSeverity(raw.severity ?? 'medium', claim);
    const insight: Omit<Insight, 'id'> = {
      ...(claim ? { claim } : {}),
      analysis_area: input.areaId,
      name: text.name,
      description: text.description,
      severity,
      affected_count: claim?.n?.segment ?? raw.affected_count ?? null,
      risk_score: raw.risk_score ?? null,
      confidence: primary ? Math.min(1, 1 - (primary.claim.test?.q_value ?? 0.05)) : (raw.confidence ?? null),
      metrics: raw.metrics ?? {},
      indicators: raw.indicators ?? [],
      target_segment: raw.target_segment ?? '',
      source_steps: cites.filter((step) => input.citable.has(step)),
      finding_ids: primary ? [primary.id, ...supporting.map((finding) => finding.id)] : [],
      supporting_claims: supporting.map((finding) => finding.claim),
      text_source: modelWords ? 'model' : 'claim',
      ...(primary ? { score: primary.score } : {}),
      discovered_at: input.discoveredAt,
    };
    built.push({ insight, score: primary?.score ?? 0, order: index });
  });
  const ranked = built.sort((left, right) => right.score - left.score || left.order - right.order);
  if (ranked.length > input.cap) notes.push(`kept the ${input.cap} best of ${ranked.length} insights`);
  const insights = ranked.slice(0, input.cap).map(({ insight }, index): Insight => ({ ...insight, id: `${input.areaId}-${index + 1}` }));
  return { insights, notes };
}
