/**
 * One exploration step: rebuild the conversation from the stored steps (compacted), ask the model
 * for one action (with reformat retries), carry it out, and persist the step before anything else
 * happens. Idempotent per (run, step): a redelivered job whose step is already stored does nothing.
 */
import { compactConversationParts, type ConversationMessage } from '../../compaction/conversation.js';
import { compactResult } from '../../compaction/compact-result.js';
import { digestOneLiner } from '../../compaction/render.js';
import { indexStep } from '../../compaction/run-step-index.js';
import type { ExplorationStep, Run } from '../../domain/index.js';
import { CancelledError, LlmError, describeError } from '../../errors/index.js';
import type { PromptSection } from '../../llm/prompt-builder.js';
import { DEFAULT_SCHEMA_BUDGET_LIMITS } from '../../schema/budget.js';
import { lookupSchemaWithSamples } from '../../schema/lookup.js';
import { searchTables } from '../../schema/search.js';
import { capRowsByBytes } from '../../warehouse/row-cap.js';
import { EXPLORER_ACTIONS, actionAnswer, type ExplorationAction } from '../parsing/action-parser.js';
import { assertRunActive, modelFor, requireProject, type DiscoveryDeps, type ProjectSchema } from '../context.js';
import { rethrowUnlessFinal } from '../pipeline/error-policy.js';
import { askForAnswer } from '../llm-gateway.js';
import { loadRunSetting, type RunSetting } from './run-setting.js';
import { createSqlFixer } from '../sql/sql-fix-prompt.js';
import { executeWithFixes } from '../sql/sql-executor.js';
import {
  minStepsNudge,
  renderAssistantTurn,
  renderKickoff,
  NOTES_MAX_CHARS,
  renderNotes,
  renderResultTurn,
  type ExplorationBudgets,
} from '../parsing/turn-format.js';
import { timedPhase } from './phase-timing.js';

/** Reformat nudges per step after an unparseable text reply (reference: 3 retries, 4 attempts); a tool call gets one repair turn. */
export const MAX_REFORMAT_RETRIES = 3;
/** One action per step: a tool call where the model has tools, else a JSON object in text. */
const EXPLORATION_ANSWER = actionAnswer(EXPLORER_ACTIONS, MAX_REFORMAT_RETRIES);
/** Exploration stops after this many consecutive steps whose replies could not be parsed. */
const MAX_CONSECUTIVE_PARSE_FAILURES = 3;
/** Output budget of one exploration turn (reference: 4096). */
export const EXPLORATION_MAX_OUTPUT_TOKENS = 4_096;

export interface ExploreStepOutcome {
  /** True when exploration is over (done, max steps, LLM failure). */
  finished: boolean;
  step: ExplorationStep;
}

function budgetsOf(run: Run): ExplorationBudgets {
  return {
    maxSteps: run.settings.max_steps,
    minSteps: run.settings.min_steps,
    lookupsLeft: Math.max(0, DEFAULT_SCHEMA_BUDGET_LIMITS.maxLookups - run.schema_budget.lookups_used),
    searchesLeft: Math.max(0, DEFAULT_SCHEMA_BUDGET_LIMITS.maxSearches - run.schema_budget.searches_used),
  };
}

/**
 * Exploration turns leave the verbatim tail four at a time (eight messages), so the conversation before the
 * tail changes every fourth step instead of every step and a prompt cache reads all of it in between.
 */
export const EXPLORATION_TAIL_GROWTH = 8;

/** The budgets as they stood after each step (the footer of that step's result turn), from the steps' own effects. */
function budgetsAfterEachStep(steps: readonly ExplorationStep[], run: Run): ExplorationBudgets[] {
  let lookups = 0;
  let searches = 0;
  return steps.map((step) => {
    if (step.run_effects?.counter === 'lookup') lookups += 1;
    if (step.run_effects?.counter === 'search') searches += 1;
    return {
      maxSteps: run.settings.max_steps,
      minSteps: run.settings.min_steps,
      lookupsLeft: Math.max(0, DEFAULT_SCHEMA_BUDGET_LIMITS.maxLookups - lookups),
      searchesLeft: Math.max(0, DEFAULT_SCHEMA_BUDGET_LIMITS.maxSearches - searches),
    };
  });
}

/**
 * The conversation so far, as prompt sections: system first, older turns give way first. The conversation
 * only grows at its end between compaction moments: every result turn keeps the budget footer it had when it
 * was newest. The system prompt, the end of the shortened history and the newest turn end cacheable
 * prefixes: the next step reads the newest turn's, and when turns leave the verbatim tail, the history's.
 */
export function explorationSections(systemPrompt: string, steps: readonly ExplorationStep[], run: Run): PromptSection[] {
  const messages: ConversationMessage[] = [{ role: 'user', content: renderKickoff(budgetsOf(run)) }];
  // the latest notes belong to the opening, which compaction never shortens; they change only when the model sends new ones
  const noted = steps.findLast((step) => step.notes !== undefined && step.notes !== '');
  if (noted?.notes !== undefined) messages.push({ role: 'user', content: renderNotes(noted.notes, noted.step) });
  const footers = budgetsAfterEachStep(steps, run);
  steps.forEach((step, index) => {
    const assistant = renderAssistantTurn(step);
    if (assistant !== null) messages.push({ role: 'assistant', content: assistant, kind: 'assistant' });
    const oneLiner = step.action === 'query' && !step.error ? digestOneLiner(step) : '';
    messages.push({
      role: 'user',
      content: renderResultTurn(step, oneLiner, footers[index] ?? null),
      kind: step.action === 'query' && !step.error ? 'query_result' : 'tool_result',
      ...(oneLiner ? { digestOneLiner: `Step ${step.step} result (query): ${oneLiner}` } : {}),
    });
  });
  const { messages: compacted, stableEnd } = compactConversationParts(messages, { tailGrowth: EXPLORATION_TAIL_GROWTH });
  const sections: PromptSection[] = [
    { id: 'system', role: 'system', text: systemPrompt, priority: 100, shrink: 'none', cacheBreakpoint: true },
  ];
  compacted.forEach((message, index) => {
    const isKickoff = index === 0;
    const isRecent = index >= compacted.length - 2;
    sections.push({
      id: isKickoff ? 'kickoff' : `turn-${index}`,
      role: message.role === 'assistant' ? 'assistant' : 'user',
      text: message.content,
      priority: isKickoff ? 90 : isRecent ? 80 : 10 + index / compacted.length,
      shrink: isKickoff ? 'none' : isRecent ? 'truncate' : 'drop',
      ...(isRecent ? { minTokens: 64 } : {}),
      // the newest turn (read by the next step) and the end of the shortened history (read after the tail moves)
      ...(index === compacted.length - 1 || index === stableEnd ? { cacheBreakpoint: true } : {}),
    });
  });
  return sections;
}

interface ActionAttempt {
  action?: ExplorationAction;
  error?: string;
  /** LLM failed after retries (not a parse failure). */
  llmFailed?: boolean;
}

async function askForAction(
  deps: DiscoveryDeps,
  run: Run,
  stepNumber: number,
  sections: PromptSection[],
  signal?: AbortSignal,
): Promise<ActionAttempt> {
  try {
    const answer = await askForAnswer(deps, {
      runId: run.id,
      ...modelFor(deps, 'exploration'),
      phase: 'exploration',
      sections,
      maxOutputTokens: EXPLORATION_MAX_OUTPUT_TOKENS,
      signal,
      step: stepNumber,
      answer: EXPLORATION_ANSWER,
    });
    return answer.ok ? { action: answer.value } : { error: `no usable action after ${answer.retries + 1} attempts: ${answer.reason}` };
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    if (error instanceof LlmError && error.kind === 'aborted') throw new CancelledError('exploration aborted', { cause: error });
    // a rate limit or a transient failure is the driver's to retry; only a final failure becomes an error step
    rethrowUnlessFinal(error);
    return { error: `the model call failed: ${describeError(error)}`, llmFailed: true };
  }
}

function baseStep(
  run: Run,
  stepNumber: number,
  deps: DiscoveryDeps,
  action: ExplorationAction,
): Pick<ExplorationStep, 'run_id' | 'step' | 'timestamp' | 'thinking' | 'query_purpose' | 'fix_attempts' | 'fixed' | 'notes'> {
  return {
    run_id: run.id,
    step: stepNumber,
    timestamp: deps.now().toISOString(),
    thinking: action.thinking,
    query_purpose: action.type === 'query' ? action.purpose : '',
    fix_attempts: 0,
    fixed: false,
    ...(action.notes ? { notes: action.notes.slice(0, NOTES_MAX_CHARS) } : {}),
  };
}

async function runQueryAction(
  deps: DiscoveryDeps,
  run: Run,
  schema: ProjectSchema,
  stepNumber: number,
  action: Extract<ExplorationAction, { type: 'query' }>,
  signal?: AbortSignal,
): Promise<ExplorationStep> {
  const outcome = await executeWithFixes({
    warehouse: deps.warehouse,
    sql: action.query,
    fix: createSqlFixer(deps, { runId: run.id, tables: schema.tables, step: stepNumber, signal }),
    queryOptions: { maxRows: deps.config.sql.maxRows, timeoutMs: deps.config.sql.timeoutMs, ...(signal ? { signal } : {}) },
  });
  const step: ExplorationStep = {
    ...baseStep(run, stepNumber, deps, action),
    action: 'query',
    query: outcome.originalSql,
    executed_query: outcome.executedSql,
    fix_attempts: outcome.fixAttempts,
    fixed: outcome.result !== undefined && outcome.fixAttempts > 0,
  };
  if (!outcome.result) return { ...step, error: outcome.error ?? 'query failed' };
  const { result } = outcome;
  const kept = capRowsByBytes(result.rows, deps.config.sql.maxStoredBytes);
  return {
    ...step,
    row_count: result.rowCount,
    truncated: result.truncated,
    columns: result.columns,
    rows: kept.rows,
    compact: compactResult(result.columns, result.rows),
    elapsed_ms: result.elapsedMs,
  };
}

async function carryOut(
  deps: DiscoveryDeps,
  run: Run,
  setting: RunSetting,
  stepNumber: number,
  action: ExplorationAction,
  signal?: AbortSignal,
): Promise<{ step: ExplorationStep; finished: boolean; budget?: Run['schema_budget']; counter?: 'lookup' | 'search' }> {
  switch (action.type) {
    case 'query':
      return { step: await runQueryAction(deps, run, setting.schema, stepNumber, action, signal), finished: false };
    case 'lookup_schema': {
      const result = await lookupSchemaWithSamples(
        action.tables,
        { tables: setting.schema.tables, budget: run.schema_budget },
        setting.schema.samples,
        { signal },
      );
      const step: ExplorationStep = {
        ...baseStep(run, stepNumber, deps, action),
        action: 'lookup_schema',
        tables: action.tables,
        result_text: result.text,
      };
      return { step, finished: false, budget: result.budget, ...(result.debited ? { counter: 'lookup' as const } : {}) };
    }
    case 'search_tables': {
      const result = await searchTables(action.query, {
        topK: action.topK,
        embedder: deps.embedder,
        index: deps.vectorIndex,
        collection: setting.schema.collection,
        budget: run.schema_budget,
        ...(signal ? { signal } : {}),
      });
      const step: ExplorationStep = {
        ...baseStep(run, stepNumber, deps, action),
        action: 'search_tables',
        search_query: action.query,
        result_text: result.text,
      };
      return { step, finished: false, budget: result.budget, ...(result.debited ? { counter: 'search' as const } : {}) };
    }
    case 'done': {
      if (stepNumber < run.settings.min_steps) {
        const step: ExplorationStep = {
          ...baseStep(run, stepNumber, deps, action),
          action: 'complete_rejected',
          summary: action.summary,
          result_text: minStepsNudge(stepNumber, run.settings.min_steps, run.settings.max_steps),
        };
        return { step, finished: false };
      }
      return { step: { ...baseStep(run, stepNumber, deps, action), action: 'done', summary: action.summary }, finished: true };
    }
  }
}

/**
 * Runs exploration step `stepNumber` of a run. Never loses earlier steps: a model failure becomes an
 * `error` step and ends exploration cleanly; the run goes on to analysis with what it has.
 */
async function exploreStepUntimed(
  deps: DiscoveryDeps,
  runId: string,
  stepNumber: number,
  signal?: AbortSignal,
): Promise<ExploreStepOutcome> {
  const run = await assertRunActive(deps, runId, signal);
  const steps = await deps.store.listSteps(runId);
  const existing = steps.find((step) => step.step === stepNumber);
  if (existing) {
    // redelivered: the step is stored; its run update may not be (the worker died between the two writes)
    if (existing.run_effects && run.steps_completed < stepNumber) await recordStep(deps, runId, existing, existing.run_effects, signal);
    return { finished: existing.run_effects?.finished ?? isFinalStep(existing, run), step: existing };
  }
  const previous = steps.filter((step) => step.step < stepNumber);
  const project = await requireProject(deps, run.project_id);
  const setting = await loadRunSetting(deps, run, project, signal);

  const sections = explorationSections(setting.explorationSystemPrompt, previous, run);
  const attempt = await askForAction(deps, run, stepNumber, sections, signal);
  let step: ExplorationStep;
  let finished = false;
  let doneReason: StepEffects['done_reason'];
  let budget: StepEffects['schema_budget'];
  let counter: StepEffects['counter'];
  if (!attempt.action) {
    step = {
      run_id: run.id,
      step: stepNumber,
      action: 'error',
      timestamp: deps.now().toISOString(),
      thinking: '',
      query_purpose: '',
      fix_attempts: 0,
      fixed: false,
      error: attempt.error ?? 'unknown error',
    };
    const recentFailures = [...previous.slice(-(MAX_CONSECUTIVE_PARSE_FAILURES - 1)), step].filter(
      (candidate) => candidate.action === 'error',
    ).length;
    if (attempt.llmFailed || recentFailures >= MAX_CONSECUTIVE_PARSE_FAILURES) {
      finished = true;
      doneReason = 'llm_error';
    }
  } else {
    const carried = await carryOut(deps, run, setting, stepNumber, attempt.action, signal);
    step = carried.step;
    finished = carried.finished;
    budget = carried.budget;
    counter = carried.counter;
    if (finished) doneReason = 'done';
  }
  if (!finished && stepNumber >= run.settings.max_steps) {
    finished = true;
    doneReason = 'max_steps';
  }

  // the step first, with what it does to the run: everything after it is redone on redelivery
  const effects: StepEffects = {
    finished,
    ...(doneReason ? { done_reason: doneReason } : {}),
    ...(budget ? { schema_budget: budget } : {}),
    ...(counter ? { counter } : {}),
  };
  step = { ...step, run_effects: effects };
  await deps.store.upsertStep(step);
  await recordStep(deps, runId, step, effects, signal);
  return { finished, step };
}

type StepEffects = NonNullable<ExplorationStep['run_effects']>;

/**
 * Indexes a stored step and applies its effects to the run, once: the update is skipped when the run
 * already counts the step (steps run one after another, so `steps_completed` ≥ the step means it was applied).
 */
async function recordStep(
  deps: DiscoveryDeps,
  runId: string,
  step: ExplorationStep,
  effects: StepEffects,
  signal?: AbortSignal,
): Promise<void> {
  const stepNumber = step.step;
  let indexed = false;
  if (step.action === 'query' && !step.error) {
    try {
      await indexStep({ embedder: deps.embedder, index: deps.vectorIndex, runId, step, ...(signal ? { signal } : {}) });
      indexed = true;
    } catch (error) {
      deps.logger.warn({ runId, step: stepNumber, err: error }, 'step could not be indexed; the picker will still see it by keyword');
    }
  }
  const { done_reason: doneReason, schema_budget: budget, counter, finished } = effects;
  await deps.store.updateRun(runId, (current) => {
    if (current.steps_completed >= stepNumber) return current;
    return {
      ...current,
      steps_completed: stepNumber,
      progress: Math.max(current.progress, Math.min(60, Math.round(10 + (50 * stepNumber) / current.settings.max_steps))),
      phase_detail: `exploration step ${stepNumber} of ${current.settings.max_steps}`,
      ...(budget ? { schema_budget: budget } : {}),
      ...(finished && doneReason ? { exploration_done_reason: doneReason } : {}),
      ...(step.action === 'error' && doneReason === 'llm_error'
        ? { error: `exploration stopped at step ${stepNumber}: ${step.error}` }
        : {}),
      counters: {
        ...current.counters,
        total_queries: current.counters.total_queries + (step.action === 'query' ? 1 : 0),
        successful_queries: current.counters.successful_queries + (step.action === 'query' && !step.error ? 1 : 0),
        failed_queries: current.counters.failed_queries + (step.action === 'query' && step.error ? 1 : 0),
      },
      telemetry: {
        ...current.telemetry,
        schema_lookup_calls: current.telemetry.schema_lookup_calls + (counter === 'lookup' ? 1 : 0),
        schema_search_calls: current.telemetry.schema_search_calls + (counter === 'search' ? 1 : 0),
        analysis_step_index_upserts: current.telemetry.analysis_step_index_upserts + (indexed ? 1 : 0),
      },
    };
  });
}

/** Whether exploration ends with this stored step (a redelivered job's step stored before its effects were). */
export function isFinalStep(step: ExplorationStep, run: Run): boolean {
  return (
    step.action === 'done' ||
    step.step >= run.settings.max_steps ||
    (step.action === 'error' && run.exploration_done_reason === 'llm_error')
  );
}

/** exploreStep, with its wall time added to `telemetry.phase_durations_ms.exploration`. */
export const exploreStep = timedPhase('exploration', exploreStepUntimed);
