/**
 * One area's `{{QUERY_RESULTS}}` block with its telemetry: pick the steps, render them, and check the
 * rendered string itself against the budget. The picker budgets with per-step estimates; the block adds
 * separators and the estimator rounds per string, so the final string is measured and, in the rare case
 * it is still over, the lowest-ranked picked step moves to `over_budget` until it fits.
 */
import type { ExplorationStep } from '../domain/index.js';
import { estimateTokens, type TokenFamily } from '../llm/tokens.js';
import { estimateStepTokens, renderQueryResults } from './render.js';
import { byRank, pickStepsForArea, type AnalysisAreaIdentity, type DroppedStep, type PickedStep, type StepHit } from './step-picker.js';

export interface AreaQueryResultsInput {
  area: AnalysisAreaIdentity;
  steps: readonly ExplorationStep[];
  hits: readonly StepHit[];
  budgetTokens: number;
  family?: TokenFamily;
}

/** The block to substitute, and the analysis-log fields (`selected_steps`, `dropped_steps`, `query_results_chars`). */
export interface AreaQueryResults {
  text: string;
  tokens: number;
  selected_steps: PickedStep[];
  dropped_steps: DroppedStep[];
  query_results_chars: number;
}

export function assembleAreaQueryResults(input: AreaQueryResultsInput): AreaQueryResults {
  const family = input.family ?? 'default';
  const pick = pickStepsForArea({ ...input, renderTokens: (step) => estimateStepTokens(step, family) });
  const stepsByNumber = new Map(input.steps.map((step) => [step.step, step] as const));
  const selected = [...pick.picked];
  const dropped = [...pick.dropped];
  for (;;) {
    // Chronological order: later steps build on earlier ones, and the model reads them as a narrative.
    const chosen = selected
      .map((picked) => stepsByNumber.get(picked.step))
      .filter((step) => step !== undefined)
      .sort((left, right) => left.step - right.step);
    const text = renderQueryResults(chosen);
    const tokens = estimateTokens(text, family);
    const lowest = selected.at(-1);
    if (tokens <= input.budgetTokens || lowest === undefined) {
      return { text, tokens, selected_steps: selected, dropped_steps: dropped.sort(byRank), query_results_chars: text.length };
    }
    selected.pop();
    dropped.push({ step: lowest.step, score: lowest.score, reason: 'over_budget' });
  }
}
