/**
 * Which exploration steps feed one analysis area's prompt: vector rank + exact-keyword floor + token
 * budget (analysis-phase-compaction seed). Pure: the vector hits come in as data, rendering cost as a
 * function, so the same inputs always give the same pick.
 *
 * Rules, in order:
 * 1. Only evidence counts. A successful `query` step is evidence. A failed query is evidence only when no
 *    later successful query had the same purpose (then it records a measurement that could not be made);
 *    once retried successfully it is noise. Schema lookups, searches, `done`, rejected completions and
 *    error steps carry no result. Non-evidence → `not_informative`.
 * 2. A step whose purpose, executed SQL or thinking contains an area keyword verbatim scores at least
 *    EXACT_MATCH_FLOOR (source `exact_match` when the floor lifted it). Matching is case-insensitive on
 *    word boundaries, where `_` is a boundary, so `churn` matches `churn_rate` and `Churn` but not
 *    `churned`; a space inside a keyword also matches `_` (`lifetime value` matches `lifetime_value`).
 * 3. Any other step below AREA_MIN_SCORE → `below_min_score`.
 * 4. Ranking: score descending, step ascending on ties. At most AREA_TOP_K steps enter on vector score
 *    alone (the seed's search top-K); keyword-matched steps always enter. Steps past the top-K are
 *    reported as `over_budget` — the top-K is the per-area step budget.
 * 5. Token budget: walk the ranking and take each step whose rendered tokens still fit; a step that does
 *    not fit → `over_budget`, and smaller lower-ranked steps may still fill the remaining room.
 */
import type { z } from 'zod';
import type { ExplorationStep } from '../domain/index.js';
import type { droppedStepSchema, pickedStepSchema } from '../domain/run.js';
import { executedSql } from './render.js';

/** Steps that may enter an area's prompt on vector score alone (the seed's search top-K). */
export const AREA_TOP_K = 24;
/** Cosine similarity under which a step is judged unrelated to the area. */
export const AREA_MIN_SCORE = 0.3;
/** Score given to a step that names an area keyword verbatim, so semantic neighbours cannot rank it out. */
export const EXACT_MATCH_FLOOR = 0.55;
/** Tokens of `{{QUERY_RESULTS}}` per area; the caller lowers it further to fit the model's window. */
export const ANALYSIS_QUERY_RESULTS_BUDGET_TOKENS = 200_000;

export type PickedStep = z.infer<typeof pickedStepSchema>;
export type DroppedStep = z.infer<typeof droppedStepSchema>;

export interface AnalysisAreaIdentity {
  id: string;
  name: string;
  description: string;
  keywords: readonly string[];
}

export interface StepHit {
  step: number;
  score: number;
}

export interface PickStepsInput {
  area: AnalysisAreaIdentity;
  steps: readonly ExplorationStep[];
  /** Vector similarity of steps to the area; steps absent here can still enter by keyword. */
  hits: readonly StepHit[];
  budgetTokens: number;
  /** Tokens of the step as it will be rendered into the prompt. */
  renderTokens: (step: ExplorationStep) => number;
}

export interface StepPick {
  /** In rank order (score descending, step ascending). */
  picked: PickedStep[];
  /** In rank order too. */
  dropped: DroppedStep[];
  /** Sum of `renderTokens` over the picked steps. */
  queryResultsTokens: number;
}

interface Candidate {
  step: number;
  record: ExplorationStep;
  score: number;
  source: PickedStep['source'];
  keywordMatch: boolean;
}

export function pickStepsForArea(input: PickStepsInput): StepPick {
  const stepsByNumber = new Map<number, ExplorationStep>();
  for (const step of input.steps) if (!stepsByNumber.has(step.step)) stepsByNumber.set(step.step, step);
  const vectorScores = new Map<number, number>();
  for (const hit of input.hits) {
    if (!stepsByNumber.has(hit.step) || !Number.isFinite(hit.score)) continue;
    vectorScores.set(hit.step, Math.max(hit.score, vectorScores.get(hit.step) ?? Number.NEGATIVE_INFINITY));
  }
  const keywordPatterns = input.area.keywords.map(keywordPattern).filter((pattern) => pattern !== undefined);
  const evidence = evidenceSteps(input.steps);

  const candidates: Candidate[] = [];
  const dropped: DroppedStep[] = [];
  for (const step of stepsByNumber.values()) {
    const vectorScore = vectorScores.get(step.step);
    const text = stepText(step);
    const keywordMatch = keywordPatterns.some((pattern) => pattern.test(text));
    if (vectorScore === undefined && !keywordMatch) continue;
    const floored = keywordMatch && (vectorScore === undefined || vectorScore < EXACT_MATCH_FLOOR);
    const score = floored ? EXACT_MATCH_FLOOR : (vectorScore as number);
    if (!evidence.has(step.step)) dropped.push({ step: step.step, score, reason: 'not_informative' });
    else if (!keywordMatch && score < AREA_MIN_SCORE) dropped.push({ step: step.step, score, reason: 'below_min_score' });
    else candidates.push({ step: step.step, record: step, score, source: floored ? 'exact_match' : 'vector', keywordMatch });
  }
  candidates.sort(byRank);

  const picked: PickedStep[] = [];
  let vectorOnlyEntered = 0;
  let usedTokens = 0;
  for (const candidate of candidates) {
    const withinTopK = candidate.keywordMatch || vectorOnlyEntered < AREA_TOP_K;
    if (!candidate.keywordMatch && withinTopK) vectorOnlyEntered += 1;
    const tokens = withinTopK ? input.renderTokens(candidate.record) : 0;
    if (withinTopK && usedTokens + tokens <= input.budgetTokens) {
      usedTokens += tokens;
      picked.push({ step: candidate.step, score: candidate.score, source: candidate.source });
    } else {
      dropped.push({ step: candidate.step, score: candidate.score, reason: 'over_budget' });
    }
  }
  dropped.sort(byRank);
  return { picked, dropped, queryResultsTokens: usedTokens };
}

/** Score descending, then step ascending: a total order, so the result never depends on input order. */
export function byRank(left: { score: number; step: number }, right: { score: number; step: number }): number {
  return right.score - left.score || left.step - right.step;
}

/** The text keywords are looked for in: what the step meant to measure, what it ran, and why. */
function stepText(step: ExplorationStep): string {
  return `${step.query_purpose}\n${executedSql(step)}\n${step.thinking}`;
}

/** Letters and digits are word characters; everything else, `_` included, is a boundary. */
function keywordPattern(keyword: string): RegExp | undefined {
  const words = keyword
    .trim()
    .split(/[\s_]+/)
    .filter((word) => word.length > 0);
  if (words.length === 0) return undefined;
  const body = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s_]+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'iu');
}

/** Step numbers that carry analysis evidence (see rule 1 above). */
function evidenceSteps(steps: readonly ExplorationStep[]): Set<number> {
  const evidence = new Set<number>();
  const lastSuccessByPurpose = new Map<string, number>();
  for (const step of steps) {
    if (isSuccessfulQuery(step)) {
      evidence.add(step.step);
      const key = retryKey(step);
      lastSuccessByPurpose.set(key, Math.max(step.step, lastSuccessByPurpose.get(key) ?? 0));
    }
  }
  for (const step of steps) {
    if (step.action !== 'query' || step.error === undefined) continue;
    const laterSuccess = lastSuccessByPurpose.get(retryKey(step));
    if (laterSuccess === undefined || laterSuccess < step.step) evidence.add(step.step);
  }
  return evidence;
}

function isSuccessfulQuery(step: ExplorationStep): boolean {
  return step.action === 'query' && step.error === undefined;
}

/** Two queries are attempts at the same measurement when their purposes match (or, without a purpose, their SQL). */
function retryKey(step: ExplorationStep): string {
  const purpose = step.query_purpose.trim().replace(/\s+/g, ' ').toLowerCase();
  return purpose === '' ? `sql:${executedSql(step).trim().replace(/\s+/g, ' ').toLowerCase()}` : `purpose:${purpose}`;
}
