/**
 * Scoring a run against a demo warehouse's planted truths: which planted patterns some insight found,
 * how many insights verification confirmed, and how many recommendations link to insights.
 */
import type { DiscoveryResult, ExplorationStep, Insight } from '../domain/index.js';
import type { PlantedPattern } from '../warehouse/demo/index.js';

/** Keywords an insight must contain to count as finding a pattern (or all of them, if fewer). */
export const MIN_KEYWORD_MATCHES = 3;

export interface PatternMatch {
  pattern: string;
  area: string;
  found: boolean;
  /** The insight that found it, if any. */
  insight_id: string | null;
  matched_keywords: string[];
}

export interface EvalScore {
  kind: string;
  planted: number;
  found: number;
  recall: number;
  insights: number;
  confirmed_share: number;
  recommendations_linked_share: number;
  patterns: PatternMatch[];
}

function insightText(insight: Insight): string {
  const metrics = Object.entries(insight.metrics).map(([key, value]) => `${key} ${String(value)}`);
  return [insight.name, insight.description, insight.target_segment, ...insight.indicators, ...metrics].join(' ').toLowerCase().replace(/_/g, ' ');
}

/** A keyword matches at a word start, so `abandon` matches "abandonment" and `paid social` matches "paid_social". */
export function containsKeyword(text: string, keyword: string): boolean {
  const escaped = keyword.toLowerCase().replace(/_/g, ' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '[\\s_-]+');
  return new RegExp(`(^|[^a-z0-9])${escaped}`).test(text);
}

function touchesTables(insight: Insight, stepsByNumber: ReadonlyMap<number, ExplorationStep>, tables: readonly string[]): boolean {
  return insight.source_steps.some((number) => {
    const sql = (stepsByNumber.get(number)?.executed_query ?? stepsByNumber.get(number)?.query ?? '').toLowerCase().replace(/"/g, '');
    return tables.some((table) => {
      const bare = table.split('.').pop()!.toLowerCase();
      return new RegExp(`(^|[^a-z0-9_])${bare}($|[^a-z0-9_])`).test(sql);
    });
  });
}

export function matchPattern(pattern: PlantedPattern, insights: readonly Insight[], steps: readonly ExplorationStep[]): PatternMatch {
  const stepsByNumber = new Map(steps.map((step) => [step.step, step] as const));
  const needed = Math.min(MIN_KEYWORD_MATCHES, pattern.keywords.length);
  let best: PatternMatch = { pattern: pattern.id, area: pattern.area, found: false, insight_id: null, matched_keywords: [] };
  for (const insight of insights) {
    const text = insightText(insight);
    const matched = pattern.keywords.filter((keyword) => containsKeyword(text, keyword));
    const found = matched.length >= needed && touchesTables(insight, stepsByNumber, pattern.tables);
    if (found && (!best.found || matched.length > best.matched_keywords.length)) best = { ...best, found: true, insight_id: insight.id, matched_keywords: matched };
    else if (!best.found && matched.length > best.matched_keywords.length) best = { ...best, matched_keywords: matched };
  }
  return best;
}

export function scoreRun(kind: string, patterns: readonly PlantedPattern[], result: DiscoveryResult, steps: readonly ExplorationStep[]): EvalScore {
  const matches = patterns.map((pattern) => matchPattern(pattern, result.insights, steps));
  const found = matches.filter((match) => match.found).length;
  const confirmed = result.insights.filter((insight) => insight.validation?.status === 'confirmed').length;
  const linked = result.recommendations.filter((rec) => rec.related_insight_ids.length > 0).length;
  const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000);
  return {
    kind,
    planted: patterns.length,
    found,
    recall: share(found, patterns.length),
    insights: result.insights.length,
    confirmed_share: share(confirmed, result.insights.length),
    recommendations_linked_share: share(linked, result.recommendations.length),
    patterns: matches,
  };
}
