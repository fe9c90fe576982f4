/**
 * How many tokens of exploration evidence one area's analysis prompt carries: what the area needs, not
 * what the budget allows. The per-area budget (`analysis_budget_tokens`, 200,000 by default) and the
 * model's room are ceilings; under them an area gets the digests of its best-ranked steps, at most
 * AREA_EVIDENCE_MAX_STEPS of them. Without this cap every step that names an area keyword enters (a word
 * like "order" names most of an e-commerce run), so an area's prompt grew with the run instead of with
 * the area.
 */
import { pickStepsForArea, AREA_TOP_K, type AnalysisAreaIdentity, type StepHit } from '../../compaction/step-picker.js';
import { estimateStepTokens, renderQueryResults } from '../../compaction/render.js';
import type { ExplorationStep } from '../../domain/index.js';
import { estimateTokens, type TokenFamily } from '../../llm/tokens.js';

/** Steps one area's evidence holds at most: the seed's per-area search top-K, for keyword matches too. */
export const AREA_EVIDENCE_MAX_STEPS = AREA_TOP_K;

export interface AreaEvidenceInput {
  area: AnalysisAreaIdentity;
  steps: readonly ExplorationStep[];
  hits: readonly StepHit[];
  /** The most the area may take: the run's per-area budget, lowered to the model's room. */
  ceilingTokens: number;
  family: TokenFamily;
}

/** The evidence budget of one area: the rendered digests of its best-ranked steps, within the ceiling. */
export function areaEvidenceBudget(input: AreaEvidenceInput): number {
  const ceiling = Math.max(0, input.ceilingTokens);
  const pick = pickStepsForArea({
    area: input.area,
    steps: input.steps,
    hits: input.hits,
    budgetTokens: ceiling,
    renderTokens: (step) => estimateStepTokens(step, input.family),
  });
  const wanted = new Set(pick.picked.slice(0, AREA_EVIDENCE_MAX_STEPS).map((picked) => picked.step));
  // the block is rendered in step order, as assembleAreaQueryResults renders it
  const needed = input.steps.filter((step) => wanted.has(step.step)).sort((left, right) => left.step - right.step);
  const tokens = needed.length === 0 ? 0 : estimateTokens(renderQueryResults(needed), input.family);
  return Math.min(ceiling, tokens);
}
