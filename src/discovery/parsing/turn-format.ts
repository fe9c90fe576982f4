/**
 * How exploration steps read back to the model: the canonical assistant turn for an action and the
 * user turn with its result. The conversation is rebuilt from stored steps with these, so any worker
 * can take the next step.
 */
import type { ExplorationStep } from '../../domain/index.js';
import { fenceData } from '../../llm/data-fence.js';

/** Rows of a result shown verbatim in the turn after a query (the digest covers the rest). */
export const RESULT_ROWS_SHOWN = 10;
/** A single cell longer than this is cut in the rows shown to the model. */
const CELL_MAX_CHARS = 120;

export interface ExplorationBudgets {
  maxSteps: number;
  minSteps: number;
  lookupsLeft: number;
  searchesLeft: number;
}

/** The assistant turn as the model should have written it (compact, canonical JSON). */
export function renderAssistantTurn(step: ExplorationStep): string | null {
  switch (step.action) {
    case 'query':
      return JSON.stringify({ thinking: step.thinking, query_purpose: step.query_purpose, query: step.query ?? '' });
    case 'lookup_schema':
      return JSON.stringify({ thinking: step.thinking, lookup_schema: step.tables ?? [] });
    case 'search_tables':
      return JSON.stringify({ thinking: step.thinking, search_tables: step.search_query ?? '' });
    case 'done':
    case 'complete_rejected':
      return JSON.stringify({ done: true, summary: step.summary ?? '' });
    case 'error':
      return null;
  }
}

function clipCell(value: unknown): unknown {
  return typeof value === 'string' && value.length > CELL_MAX_CHARS ? `${value.slice(0, CELL_MAX_CHARS)}…` : value;
}

function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/**
 * The result part of a query turn: status line, then the first rows as JSON lines. What the warehouse
 * said (the error, the rows) and the SQL a fixer rewrote are fenced as data; the digest line fences its own.
 */
export function renderQueryResult(step: ExplorationStep, digestLine: string): string {
  if (step.error) {
    const fixed = step.fix_attempts > 0 ? ` (after ${step.fix_attempts} automatic fix attempt${step.fix_attempts === 1 ? '' : 's'})` : '';
    return `The query failed${fixed}:\n${fenceData(step.error)}\nTry a different approach: check the table's columns with lookup_schema, or simplify the query.`;
  }
  const rows = step.rows ?? [];
  const lines = [
    `Query executed successfully: ${formatCount(step.row_count ?? rows.length)} rows in ${Math.round(step.elapsed_ms ?? 0)} ms${step.truncated ? ' (row cap reached: aggregate in SQL instead)' : ''}.`,
  ];
  if (step.fixed && step.executed_query)
    lines.push(`It was fixed automatically after ${step.fix_attempts} attempt(s); the SQL that ran:\n${fenceData(step.executed_query)}`);
  lines.push(`Digest: ${digestLine}`);
  const shown = rows.slice(0, RESULT_ROWS_SHOWN);
  if (shown.length > 0) {
    lines.push(`First ${shown.length} rows:`);
    const json = shown.map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).map(([key, value]) => [key, clipCell(value)]))));
    lines.push(fenceData(json.join('\n')));
    if ((step.row_count ?? 0) > shown.length) lines.push(`(Showing ${shown.length} of ${formatCount(step.row_count ?? 0)} rows)`);
  }
  return lines.join('\n');
}

/** The budget footer on every result turn: it tells the model (and the offline analyst) where the run stands. */
export function renderBudgetLine(stepNumber: number, budgets: ExplorationBudgets): string {
  const floor = budgets.minSteps > stepNumber ? ` Minimum before done: ${budgets.minSteps}.` : '';
  return `[Steps used: ${stepNumber} of ${budgets.maxSteps}.${floor} lookup_schema calls left: ${budgets.lookupsLeft}. search_tables calls left: ${budgets.searchesLeft}.]`;
}

/**
 * The user turn that carries a step's outcome back to the model, with the budget footer as it stood after
 * that step. Every turn keeps its own footer, so a turn's text never changes once written and the
 * conversation's prefix stays cacheable; the model reads the newest one.
 */
export function renderResultTurn(step: ExplorationStep, digestLine: string, budgets: ExplorationBudgets | null): string {
  let body: string;
  switch (step.action) {
    case 'query':
      body = renderQueryResult(step, digestLine);
      break;
    case 'lookup_schema':
    case 'search_tables':
    case 'complete_rejected':
      body = step.result_text ?? '';
      break;
    case 'error':
      body = `Step ${step.step} could not be completed: ${step.error ?? 'unknown error'}. Continue with your next action.`;
      break;
    case 'done':
      body = 'Exploration finished.';
      break;
  }
  const footer = budgets ? `\n${renderBudgetLine(step.step, budgets)}` : '';
  return `Step ${step.step} result (${step.action}):\n${body}${footer}`;
}

/** The first user message of every exploration. */
export function renderKickoff(budgets: ExplorationBudgets): string {
  const floor = budgets.minSteps > 0 ? ` Do not finish before step ${budgets.minSteps}.` : '';
  return [
    `Begin exploring the warehouse. You have up to ${budgets.maxSteps} steps.${floor}`,
    `Budgets for this run: ${budgets.lookupsLeft} lookup_schema calls and ${budgets.searchesLeft} search_tables calls.`,
    'Reply with exactly one JSON action per turn.',
    `Older turns are shortened as the run goes on. To keep what you must not lose (columns you looked up, what you learned), add "notes" to any action: your latest notes are shown at the top of every later turn, up to ${NOTES_MAX_CHARS.toLocaleString('en-US')} characters, until you send new ones.`,
  ].join('\n');
}

/** Working notes beyond this many characters are cut when shown: they sit in every exploration prompt. */
export const NOTES_MAX_CHARS = 8_000;

/** The model's latest working notes, as the message after the kickoff shows them. */
export function renderNotes(notes: string, step: number): string {
  const kept =
    notes.length > NOTES_MAX_CHARS ? `${notes.slice(0, NOTES_MAX_CHARS)} [… notes cut at ${NOTES_MAX_CHARS} characters …]` : notes;
  return `Your notes (saved with step ${step}; send "notes" with any action to replace them):\n${kept}`;
}

/** The nudge recorded as a complete_rejected step when the model stops before the minimum. */
export function minStepsNudge(stepNumber: number, minSteps: number, maxSteps: number): string {
  return `You signalled done after only ${stepNumber - 1} completed steps; this run requires at least ${minSteps} before finishing (${maxSteps - stepNumber} steps remain). Keep exploring areas you have not covered yet and respond with your next action.`;
}
