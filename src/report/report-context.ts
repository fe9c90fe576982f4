/**
 * The report's input and the lookups every section shares (steps by number, insights by id,
 * recommendations citing an insight), built once so sections stay simple and consistent.
 */
import type { AreaRun, DiscoveryResult, ExplorationStep, Insight, Recommendation, Run, ValidationLogEntry } from '../domain/index.js';

/** An analysis area as the domain pack describes it; the pack's order is the report's order. */
export interface ReportArea {
  id: string;
  name: string;
  description?: string;
}

export interface RunReportInput {
  run: Run;
  result: DiscoveryResult;
  steps: readonly ExplorationStep[];
  /** Pack areas in display order; without them the order of the analysis log is used. */
  areas?: readonly ReportArea[];
}

/** One area as the report shows it: pack metadata, what analysis did, and the insights it found. */
export interface ResolvedArea {
  id: string;
  name: string;
  description: string;
  analysis: AreaRun | undefined;
  insights: Insight[];
}

export interface ReportContext {
  run: Run;
  result: DiscoveryResult;
  steps: readonly ExplorationStep[];
  areas: ResolvedArea[];
  stepByNumber: ReadonlyMap<number, ExplorationStep>;
  insightById: ReadonlyMap<string, Insight>;
  recommendationsByInsightId: ReadonlyMap<string, Recommendation[]>;
  validationLogByInsightId: ReadonlyMap<string, ValidationLogEntry>;
}

function resolveAreas(input: RunReportInput): ResolvedArea[] {
  const { result } = input;
  const analysisById = new Map(result.analysis_log.map((entry) => [entry.area_id, entry]));
  const ordered = new Map<string, { name: string; description: string }>();
  for (const area of input.areas ?? []) ordered.set(area.id, { name: area.name, description: area.description ?? '' });
  for (const entry of result.analysis_log) {
    if (!ordered.has(entry.area_id)) ordered.set(entry.area_id, { name: entry.area_name, description: '' });
  }
  // An insight from an area nobody declared still belongs in the report, under its own id.
  for (const insight of result.insights) {
    if (!ordered.has(insight.analysis_area)) ordered.set(insight.analysis_area, { name: insight.analysis_area, description: '' });
  }
  return [...ordered].map(([id, meta]) => ({
    id,
    name: meta.name,
    description: meta.description,
    analysis: analysisById.get(id),
    insights: result.insights.filter((insight) => insight.analysis_area === id),
  }));
}

export function buildReportContext(input: RunReportInput): ReportContext {
  const recommendationsByInsightId = new Map<string, Recommendation[]>();
  for (const recommendation of input.result.recommendations) {
    for (const insightId of recommendation.related_insight_ids) {
      const citing = recommendationsByInsightId.get(insightId) ?? [];
      citing.push(recommendation);
      recommendationsByInsightId.set(insightId, citing);
    }
  }
  return {
    run: input.run,
    result: input.result,
    steps: [...input.steps].sort((left, right) => left.step - right.step),
    areas: resolveAreas(input),
    stepByNumber: new Map(input.steps.map((step) => [step.step, step])),
    insightById: new Map(input.result.insights.map((insight) => [insight.id, insight])),
    recommendationsByInsightId,
    validationLogByInsightId: new Map(input.result.validation_log.map((entry) => [entry.insight_id, entry])),
  };
}

/** Anchor ids shared by the sections that link to each other. */
export const anchors = {
  insight: (id: string): string => `insight-${id}`,
  recommendation: (id: string): string => `rec-${id}`,
  area: (id: string): string => `area-${id}`,
  step: (step: number): string => `step-${step}`,
} as const;
