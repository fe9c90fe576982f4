/**
 * Scoring a run against a demo warehouse's planted truths, strictly: a pattern is found only by an
 * insight verification confirmed or adjusted (its claim recounted) which names the pattern's words and
 * whose claim reads, or whose cited query touches, the pattern's tables; `found_with_checked_claim` counts those whose claim was recounted and
 * held (direction and all). Precision is the share of usable insights that found some pattern — made-up
 * findings cost. `assay eval --min-recall` turns recall into an exit code.
 */
import type { DiscoveryResult, ExplorationStep, Insight } from '../domain/index.js';
import type { PlantedPattern } from '../demo/index.js';

/** Keywords an insight must contain to count as finding a pattern (or all of them, if fewer). */
export const MIN_KEYWORD_MATCHES = 3;

export interface PatternMatch {
  pattern: string;
  area: string;
  found: boolean;
  /** The insight that found it, if any. */
  insight_id: string | null;
  matched_keywords: string[];
  /** The finding insight's claim was recounted and held (confirmed or adjusted with its direction). */
  claim_checked: boolean;
}

export interface EvalScore {
  kind: string;
  planted: number;
  found: number;
  recall: number;
  /** Patterns found by an insight whose claim was recounted and held. */
  found_with_checked_claim: number;
  /** Usable (not rejected, not errored) insights that found some pattern, over all usable insights. */
  precision: number;
  rejected: number;
  insights: number;
  confirmed_share: number;
  recommendations_linked_share: number;
  patterns: PatternMatch[];
}

function insightText(insight: Insight): string {
  const metrics = Object.entries(insight.metrics).map(([key, value]) => `${key} ${String(value)}`);
  return [insight.name, insight.description, insight.target_segment, ...insight.indicators, ...metrics]
    .join(' ')
    .toLowerCase()
    .replace(/_/g, ' ');
}

/** A keyword matches at a word start, so `abandon` matches "abandonment" and `paid social` matches "paid_social". */
export function containsKeyword(text: string, keyword: string): boolean {
  const escaped = keyword
    .toLowerCase()
    .replace(/_/g, ' ')
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\s+/g, '[\\s_-]+');
  return new RegExp(`(^|[^a-z0-9])${escaped}`).test(text);
}

/** The tables an insight's claims read: the claim's table and the tables its derived values come from. */
function claimTables(insight: Insight): string[] {
  return [insight.claim, ...insight.supporting_claims]
    .filter((claim) => claim !== undefined)
    .flatMap((claim) => [claim.metric.table, ...(claim.derived ?? []).map((item) => item.table)])
    .map((table) => table.split('.').pop()!.toLowerCase().replace(/"/g, ''));
}

function touchesTables(insight: Insight, stepsByNumber: ReadonlyMap<number, ExplorationStep>, tables: readonly string[]): boolean {
  const read = claimTables(insight);
  if (tables.some((table) => read.includes(table.split('.').pop()!.toLowerCase()))) return true;
  return insight.source_steps.some((number) => {
    const sql = (stepsByNumber.get(number)?.executed_query ?? stepsByNumber.get(number)?.query ?? '').toLowerCase().replace(/"/g, '');
    return tables.some((table) => {
      const bare = table.split('.').pop()!.toLowerCase();
      return new RegExp(`(^|[^a-z0-9_])${bare}($|[^a-z0-9_])`).test(sql);
    });
  });
}

/** Only a checked fact finds anything: confirmed, or adjusted (and then re-rendered from its recount). */
export function isUsable(insight: Insight): boolean {
  const status = insight.validation?.status;
  return status === 'confirmed' || status === 'adjusted';
}

function claimHeld(insight: Insight): boolean {
  return (
    insight.validation?.claim_check?.direction_holds === true &&
    (insight.validation.status === 'confirmed' || insight.validation.status === 'adjusted')
  );
}

export function matchPattern(pattern: PlantedPattern, insights: readonly Insight[], steps: readonly ExplorationStep[]): PatternMatch {
  const stepsByNumber = new Map(steps.map((step) => [step.step, step] as const));
  const needed = Math.min(MIN_KEYWORD_MATCHES, pattern.keywords.length);
  let best: PatternMatch = {
    pattern: pattern.id,
    area: pattern.area,
    found: false,
    insight_id: null,
    matched_keywords: [],
    claim_checked: false,
  };
  for (const insight of insights.filter(isUsable)) {
    const text = insightText(insight);
    const matched = pattern.keywords.filter((keyword) => containsKeyword(text, keyword));
    const found = matched.length >= needed && touchesTables(insight, stepsByNumber, pattern.tables);
    const better =
      !best.found ||
      (claimHeld(insight) && !best.claim_checked) ||
      (claimHeld(insight) === best.claim_checked && matched.length > best.matched_keywords.length);
    if (found && better)
      best = { ...best, found: true, insight_id: insight.id, matched_keywords: matched, claim_checked: claimHeld(insight) };
    else if (!best.found && matched.length > best.matched_keywords.length) best = { ...best, matched_keywords: matched };
  }
  return best;
}

export function scoreRun(
  kind: string,
  patterns: readonly PlantedPattern[],
  result: DiscoveryResult,
  steps: readonly ExplorationStep[],
): EvalScore {
  const matches = patterns.map((pattern) => matchPattern(pattern, result.insights, steps));
  const found = matches.filter((match) => match.found).length;
  const usable = result.insights.filter(isUsable);
  const finding = new Set(
    usable.filter((insight) => patterns.some((pattern) => matchPattern(pattern, [insight], steps).found)).map((insight) => insight.id),
  );
  const confirmed = result.insights.filter((insight) => insight.validation?.status === 'confirmed').length;
  const linked = result.recommendations.filter((rec) => rec.related_insight_ids.length > 0).length;
  const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000);
  return {
    kind,
    planted: patterns.length,
    found,
    recall: share(found, patterns.length),
    found_with_checked_claim: matches.filter((match) => match.claim_checked).length,
    precision: share(finding.size, usable.length),
    rejected: result.insights.length - usable.length,
    insights: result.insights.length,
    confirmed_share: share(confirmed, result.insights.length),
    recommendations_linked_share: share(linked, result.recommendations.length),
    patterns: matches,
  };
}
