/**
 * The single source of truth for how exploration steps appear in analysis prompts: the
 * `{{QUERY_RESULTS}}` block, and the one-line digest used for old results in the exploration loop.
 *
 * Each step renders once to a compact JSON object and the string is cached per step object, so the
 * budget estimate and the prompt measure the very same characters (no second serialisation to drift).
 * Rows inside a digest are rendered column-wise (`row_columns` once, then arrays of cells): the keys of
 * every shown row are otherwise repeated up to 20 times, which is most of a small digest's size.
 */
import type { Cell, CompactResult, ExplorationStep, Row } from '../domain/index.js';
import { estimateTokens, type TokenFamily } from '../llm/tokens.js';
import { clipText } from './clip.js';
import { columnsFromRows, compactResult } from './compact-result.js';
import { groupThousands } from './stable-number.js';

/** Longest SQL shown per step: the analysis needs what was measured, not every line of a long CTE. */
export const RENDERED_SQL_MAX_CHARS = 1_500;
/** Longest purpose shown per step. */
export const RENDERED_PURPOSE_MAX_CHARS = 500;
/** Longest error message shown per step. */
export const RENDERED_ERROR_MAX_CHARS = 300;
/** Target length of a one-liner; the column list stops before it. */
export const DIGEST_ONE_LINER_MAX_CHARS = 200;

/** The SQL a step actually ran (after self-healing fixes), falling back to what the model wrote. */
export function executedSql(step: ExplorationStep): string {
  return step.executed_query ?? step.query ?? '';
}

/**
 * The digest of a step: the one stored on the step, else built from the rows it kept. `undefined` for
 * steps without a result (schema lookups, searches, failed queries).
 */
export function stepCompact(step: ExplorationStep): CompactResult | undefined {
  if (step.compact !== undefined) return step.compact;
  if (step.rows === undefined) return undefined;
  return compactResult(step.columns ?? columnsFromRows(step.rows), step.rows);
}

const renderedDigests = new WeakMap<ExplorationStep, string>();

/**
 * One step as one compact JSON object: step number, purpose, executed SQL (cut), row count, error if
 * any, and the digest. Rendering with the step's own digest is cached per step object.
 */
export function renderStepDigest(step: ExplorationStep, compact?: CompactResult): string {
  if (compact !== undefined) return JSON.stringify(promptStep(step, compact));
  const cached = renderedDigests.get(step);
  if (cached !== undefined) return cached;
  const rendered = JSON.stringify(promptStep(step, stepCompact(step)));
  renderedDigests.set(step, rendered);
  return rendered;
}

/** The `{{QUERY_RESULTS}}` block: a JSON array, one step per line, in the order given. */
export function renderQueryResults(steps: readonly ExplorationStep[]): string {
  if (steps.length === 0) return '[]';
  return `[\n${steps.map((step) => renderStepDigest(step)).join(',\n')}\n]`;
}

/** Tokens of exactly the string `renderQueryResults(steps)` returns. */
export function estimateRenderedTokens(steps: readonly ExplorationStep[], family: TokenFamily = 'default'): number {
  return estimateTokens(renderQueryResults(steps), family);
}

/** Tokens of one step's rendered digest (what the picker budgets with). */
export function estimateStepTokens(step: ExplorationStep, family: TokenFamily = 'default'): number {
  return estimateTokens(renderStepDigest(step), family);
}

interface PromptStep {
  step: number;
  purpose: string;
  sql: string;
  row_count: number;
  truncated?: true;
  error?: string;
  columns?: CompactResult['columns'];
  column_count?: number;
  omitted_columns?: string[];
  row_columns?: string[];
  all_rows?: Cell[][];
  head_rows?: Cell[][];
  tail_rows?: Cell[][];
}

function promptStep(step: ExplorationStep, compact: CompactResult | undefined): PromptStep {
  const rendered: PromptStep = {
    step: step.step,
    purpose: clipText(step.query_purpose, RENDERED_PURPOSE_MAX_CHARS),
    sql: clipText(executedSql(step), RENDERED_SQL_MAX_CHARS),
    row_count: step.row_count ?? compact?.row_count ?? 0,
  };
  if (step.truncated === true) rendered.truncated = true;
  if (step.error !== undefined) rendered.error = clipText(step.error, RENDERED_ERROR_MAX_CHARS);
  if (compact === undefined) return rendered;
  rendered.columns = compact.columns;
  if (compact.column_count !== undefined) rendered.column_count = compact.column_count;
  if (compact.omitted_columns !== undefined) rendered.omitted_columns = compact.omitted_columns;
  const shownRows = [...(compact.all_rows ?? []), ...compact.head_rows, ...(compact.tail_rows ?? [])];
  const rowColumns = shownRows.length > 0 ? Object.keys(shownRows[0] as Row) : [];
  if (rowColumns.length > 0) rendered.row_columns = rowColumns;
  const asArrays = (rows: Row[]): Cell[][] => rows.map((row) => rowColumns.map((name) => row[name] ?? null));
  if (compact.all_rows !== undefined) rendered.all_rows = asArrays(compact.all_rows);
  if (compact.head_rows.length > 0) rendered.head_rows = asArrays(compact.head_rows);
  if (compact.tail_rows !== undefined) rendered.tail_rows = asArrays(compact.tail_rows);
  return rendered;
}

/**
 * A step in one line, for old results in the exploration loop:
 * `step 12 · 2,000 rows · cols: device(top mobile 61%), orders(median 3) …` — at most about 200 characters.
 */
export function digestOneLiner(step: ExplorationStep): string {
  const head = `step ${step.step}`;
  if (step.error !== undefined) return clipText(`${head} · error: ${step.error.replace(/\s+/g, ' ')}`, DIGEST_ONE_LINER_MAX_CHARS - 20);
  if (step.action !== 'query') {
    const subject = step.action === 'search_tables' ? (step.search_query ?? '') : (step.tables ?? []).join(', ');
    return clipText(`${head} · ${step.action} ${subject}`.trimEnd(), DIGEST_ONE_LINER_MAX_CHARS - 20);
  }
  const compact = stepCompact(step);
  const rowCount = step.row_count ?? compact?.row_count ?? 0;
  let line = `${head} · ${groupThousands(rowCount)} ${rowCount === 1 ? 'row' : 'rows'}`;
  if (compact === undefined || compact.columns.length === 0) return line;
  line += ' · cols: ';
  const parts = compact.columns.map((column) => `${clipText(column.name, 30, 24)}(${columnGist(column, rowCount)})`);
  for (const [index, part] of parts.entries()) {
    const separator = index === 0 ? '' : ', ';
    if (line.length + separator.length + part.length > DIGEST_ONE_LINER_MAX_CHARS - 2) return `${line} …`;
    line += separator + part;
  }
  return line;
}

function columnGist(column: CompactResult['columns'][number], rowCount: number): string {
  const nonNull = rowCount - column.null_count;
  if (column.kind === 'null' || nonNull === 0) return 'all null';
  const first = column.top?.[0];
  if (first !== undefined && rowCount > 0) {
    return `top ${clipText(String(first.value), 20, 16)} ${Math.round((first.count / rowCount) * 100)}%`;
  }
  if (column.kind === 'number' && column.median !== undefined) return `median ${column.median}`;
  if (column.kind === 'timestamp' && column.min_time !== undefined && column.max_time !== undefined) {
    return `${column.min_time.slice(0, 10)}→${column.max_time.slice(0, 10)}`;
  }
  return `${groupThousands(column.distinct)}${column.distinct_approx ? '~' : ''} distinct`;
}
