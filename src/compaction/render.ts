/**
 * The single source of truth for how exploration steps appear in analysis prompts: the
 * `{{QUERY_RESULTS}}` block, and the one-line digest used for old results in the exploration loop.
 *
 * Each step renders once to one line of JSON and the string is cached per step object, so the budget
 * estimate and the prompt measure the very same characters (no second serialisation to drift). No key
 * is repeated inside a step: each column's statistics are one line of text (`columnCore`, numbers all
 * through `formatNumber`), and rows are arrays under one `row_columns` header. Every step fits a byte
 * budget (DIGEST_BUDGET_BYTES, or COMPLETE_DIGEST_BUDGET_BYTES for a result shown whole), filled in
 * priority order (`renderPromptStep`), so the least useful detail is what a large result loses.
 * The offline analyst reads this format back (src/llm/offline-analyst/readers/digests.ts), and the packs'
 * analysis prompts describe it ("How to read the evidence").
 *
 * Everything in a digest comes from the warehouse or is about it, so the block is a fenced data section
 * (src/llm/data-fence.ts): column names are written as SQL quotes them, values as JSON, and `<<<`/`>>>` in
 * any text are defused before they are measured, so the byte budget counts what is sent.
 */
import type { ColumnSummary, CompactResult, ExplorationStep, Row, ValueCount } from '../domain/index.js';
import { DATA_CLOSE, DATA_OPEN, defuseMarkers, fenceData, fenceInline, promptIdentifier } from '../llm/data-fence.js';
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
/** Target length of a one-liner, data markers included; the column list stops before it. */
export const DIGEST_ONE_LINER_MAX_CHARS = 200;
/** What `fenceInline` adds around a text. */
const INLINE_FENCE_CHARS = DATA_OPEN.length + DATA_CLOSE.length + 2;

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
  if (compact !== undefined) return renderPromptStep(step, compact);
  const cached = renderedDigests.get(step);
  if (cached !== undefined) return cached;
  const rendered = renderPromptStep(step, stepCompact(step));
  renderedDigests.set(step, rendered);
  return rendered;
}

/** The `{{QUERY_RESULTS}}` block: a JSON array, one step per line, in the order given, fenced as warehouse data. */
export function renderQueryResults(steps: readonly ExplorationStep[]): string {
  if (steps.length === 0) return fenceData('[]');
  // the steps' texts are defused already, so the fence adds only its two marker lines
  return `${DATA_OPEN}\n[\n${steps.map((step) => renderStepDigest(step)).join(',\n')}\n]\n${DATA_CLOSE}`;
}

/** A text of the digest as a JSON string, markers defused. */
function dataString(text: string): string {
  return JSON.stringify(defuseMarkers(text));
}

/** A cell as JSON, markers in a text defused. */
function dataCell(value: Row[string] | null): Row[string] | null {
  return typeof value === 'string' ? defuseMarkers(value) : value;
}

/** Tokens of exactly the string `renderQueryResults(steps)` returns. */
export function estimateRenderedTokens(steps: readonly ExplorationStep[], family: TokenFamily = 'default'): number {
  return estimateTokens(renderQueryResults(steps), family);
}

/** Tokens of one step's rendered digest (what the picker budgets with). */
export function estimateStepTokens(step: ExplorationStep, family: TokenFamily = 'default'): number {
  return estimateTokens(renderStepDigest(step), family);
}

/**
 * Bytes a rendered step may spend: everything but the characters of the step's own texts (purpose, SQL
 * and error, which have their own caps), so a step with empty texts renders to at most this many. About
 * 1.5 KB keeps a 2,000-row result at 150× or more below its JSON, and the column statistics of a
 * typical 10-column result plus a few example rows fit.
 */
export const DIGEST_BUDGET_BYTES = 1_536;
/**
 * The same for a result small enough to be shown whole (`all_rows`): those rows are the answer, not a
 * sample, and cutting them would turn a complete aggregate into a sample of one.
 */
export const COMPLETE_DIGEST_BUDGET_BYTES = 4_096;
/** Share of the budget the column statistics may take before the first and last rows get their turn. */
const COLUMN_SHARE = 2 / 3;

/**
 * One step as one line of JSON, filled in priority order within its byte budget so it never exceeds it
 * and the least useful detail goes first:
 * 1. step, purpose, sql, row_count (and `truncated`, `error`): always.
 * 2. one line per column (name, kind, nulls, distinct, min/p25/median/p75/max or the time range), in
 *    result order, up to two thirds of the budget;
 * 3. the rows: every row of a small result; of a long one the first and the last row;
 * 4. the remaining column lines; 5. the top values of low-cardinality columns;
 * 6. more rows of a long result, from both ends inwards; 7. the names of the columns not shown.
 * Anything that does not fit is left out and said so (`column_count`, a result shown whole that does not
 * fit loses `all_rows` and shows its first rows as `head_rows`).
 */
function renderPromptStep(step: ExplorationStep, compact: CompactResult | undefined): string {
  const purpose = dataString(clipText(step.query_purpose, RENDERED_PURPOSE_MAX_CHARS));
  const sql = dataString(clipText(executedSql(step), RENDERED_SQL_MAX_CHARS));
  const rowCount = step.row_count ?? compact?.row_count ?? 0;
  let head = `{"step":${step.step},"purpose":${purpose},"sql":${sql},"row_count":${rowCount}`;
  if (step.truncated === true) head += ',"truncated":true';
  const error = step.error === undefined ? undefined : dataString(clipText(step.error, RENDERED_ERROR_MAX_CHARS));
  if (error !== undefined) head += `,"error":${error}`;
  if (compact === undefined) return `${head}}`;
  // The texts' characters are outside the budget (they have their own caps); their quotes are inside.
  const textBytes = [purpose, sql, error].reduce((sum, text) => sum + (text === undefined ? 0 : byteLength(text) - 2), 0);
  return head + renderDigestFields(compact, byteLength(head) + 1 - textBytes);
}

/** A JSON array under one key whose size is known before it is written. */
class ArrayField {
  readonly items: string[] = [];
  private readonly overhead: number;

  /** `key`: the longest key the field may be written under (its cost is what is budgeted). */
  constructor(private readonly key: string) {
    this.overhead = byteLength(`,"${key}":[]`);
  }

  /** Bytes adding `item` (already JSON) would cost. */
  cost(item: string): number {
    return byteLength(item) + (this.items.length === 0 ? this.overhead : 1);
  }

  text(key: string = this.key): string {
    return this.items.length === 0 ? '' : `,"${key}":[${this.items.join(',')}]`;
  }
}

/** The digest's fields after the step's head: `used` bytes (head and closing brace, without texts) are spent. */
function renderDigestFields(compact: CompactResult, spentBefore: number): string {
  const complete = compact.all_rows !== undefined;
  const budget = complete ? COMPLETE_DIGEST_BUDGET_BYTES : DIGEST_BUDGET_BYTES;
  const totalColumns = compact.column_count ?? compact.columns.length;
  // Reserve `column_count` up front: it is written whenever a column goes unshown, which only the fill can tell.
  let used = spentBefore + byteLength(`,"column_count":${totalColumns}`);
  const fits = (cost: number): boolean => used + cost <= budget;

  const cores = compact.columns.map(columnCore);
  const tops = compact.columns.map((column) => column.top ?? []);
  const topShown = compact.columns.map(() => 0);
  const columnsField = new ArrayField('columns');
  const lineOf = (index: number): string => dataString(cores[index] + topText(tops[index] ?? [], topShown[index] ?? 0));
  const shownColumns = (): number => columnsField.items.length;
  const addColumnsUpTo = (limit: number): void => {
    while (shownColumns() < cores.length) {
      const cost = columnsField.cost(lineOf(shownColumns()));
      if (used + cost > limit) return;
      columnsField.items.push(lineOf(shownColumns()));
      used += cost;
    }
  };

  const sourceRows = complete ? (compact.all_rows ?? []) : compact.head_rows;
  const tailRows = complete ? [] : (compact.tail_rows ?? []);
  const rowColumns = Object.keys(sourceRows[0] ?? tailRows[0] ?? {});
  const rowColumnsField = new ArrayField('row_columns');
  // Budgeted under the longer key: a small result that loses rows is written as `head_rows`.
  const headField = new ArrayField('head_rows');
  const tailField = new ArrayField('tail_rows');
  const asArray = (row: Row): string => JSON.stringify(rowColumns.map((name) => dataCell(row[name] ?? null)));
  const rowColumnsJson = rowColumns.map(dataString);
  /** Adds one row (with `row_columns` before the first); false when it does not fit. */
  const addRow = (field: ArrayField, row: Row): boolean => {
    const item = asArray(row);
    const header = rowColumnsField.items.length === 0 ? byteLength(`,"row_columns":[${rowColumnsJson.join(',')}]`) : 0;
    const cost = field.cost(item) + header;
    if (!fits(cost)) return false;
    if (header > 0) rowColumnsField.items.push(...rowColumnsJson);
    field.items.push(item);
    used += cost;
    return true;
  };
  let headNext = 0;
  let tailNext = tailRows.length - 1;
  /** The next row from the head, then from the tail, inwards; false once neither end has a row that fits. */
  const addSampleRows = (count: number): void => {
    let added = 0;
    let headOpen = true;
    let tailOpen = true;
    while (added < count && (headOpen || tailOpen)) {
      if (headOpen && headNext < sourceRows.length && addRow(headField, sourceRows[headNext] as Row)) {
        headNext += 1;
        added += 1;
      } else headOpen = false;
      if (added >= count) break;
      if (tailOpen && tailNext >= 0 && addRow(tailField, tailRows[tailNext] as Row)) {
        tailNext -= 1;
        added += 1;
      } else tailOpen = false;
    }
  };

  addColumnsUpTo(Math.floor(budget * COLUMN_SHARE));
  if (rowColumns.length > 0) {
    if (complete) while (headNext < sourceRows.length && addRow(headField, sourceRows[headNext] as Row)) headNext += 1;
    else addSampleRows(2);
  }
  addColumnsUpTo(budget);
  // Top values, column by column, as many of each column's list as fit.
  for (let index = 0; index < shownColumns(); index += 1) {
    const top = tops[index] ?? [];
    while ((topShown[index] ?? 0) < top.length) {
      const before = columnsField.items[index] as string;
      topShown[index] = (topShown[index] ?? 0) + 1;
      const after = lineOf(index);
      const cost = byteLength(after) - byteLength(before);
      if (!fits(cost)) {
        topShown[index] = (topShown[index] ?? 0) - 1;
        break;
      }
      columnsField.items[index] = after;
      used += cost;
    }
  }
  if (!complete && rowColumns.length > 0) addSampleRows(Number.POSITIVE_INFINITY);

  const omitted = [...compact.columns.slice(shownColumns()).map((column) => column.name), ...(compact.omitted_columns ?? [])];
  const omittedField = new ArrayField('omitted_columns');
  for (const name of omitted) {
    const item = dataString(name);
    const cost = omittedField.cost(item);
    if (!fits(cost)) break;
    omittedField.items.push(item);
    used += cost;
  }

  // A small result that lost rows is a sample now: its rows are the first ones, not all of them.
  const rowsKey = complete && headField.items.length === sourceRows.length ? 'all_rows' : 'head_rows';
  tailField.items.reverse();
  const columnCount = shownColumns() < totalColumns ? `,"column_count":${totalColumns}` : '';
  return `${columnCount}${columnsField.text()}${rowColumnsField.text()}${headField.text(rowsKey)}${tailField.text()}${omittedField.text()}}`;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * One column's statistics as one line: `revenue: number, 12 null, 1207 distinct, min 0, p25 0, median
 * 30.03, p75 91.86, max 412.34`. The name is written as SQL quotes it (`"Net Revenue": number, …`).
 * Counts only where they say something (no `0 null`); `~` marks an estimate (distinct counts above the
 * exact cap, quartiles from a sample); all numbers go through `formatNumber`, so the same value always
 * reads the same.
 */
export function columnCore(column: ColumnSummary): string {
  const parts = [`${promptIdentifier(column.name)}: ${column.kind}`];
  if (column.kind === 'null') return parts[0] as string;
  if (column.null_count > 0) parts.push(`${formatNumber(column.null_count)} null`);
  parts.push(`${column.distinct_approx ? '~' : ''}${formatNumber(column.distinct)} distinct`);
  if (column.min !== undefined && column.max !== undefined) {
    const estimate = column.quantiles_approx ? '~' : '';
    parts.push(`min ${formatNumber(column.min)}`);
    if (column.p25 !== undefined) parts.push(`p25 ${estimate}${formatNumber(column.p25)}`);
    if (column.median !== undefined) parts.push(`median ${estimate}${formatNumber(column.median)}`);
    if (column.p75 !== undefined) parts.push(`p75 ${estimate}${formatNumber(column.p75)}`);
    parts.push(`max ${formatNumber(column.max)}`);
  }
  if (column.min_time !== undefined && column.max_time !== undefined) parts.push(`from ${column.min_time} to ${column.max_time}`);
  return parts.join(', ');
}

/** `, top "mobile" 1187, "tablet" 426` for the first `count` top values; nothing for none. */
function topText(top: readonly ValueCount[], count: number): string {
  if (count === 0) return '';
  return `, top ${top
    .slice(0, count)
    .map((entry) => `${formatTopValue(entry.value)} ${formatNumber(entry.count)}`)
    .join(', ')}`;
}

/** A top value as written in a column line: a text as a JSON string (it is warehouse text), numbers and booleans bare. */
function formatTopValue(value: ValueCount['value']): string {
  if (typeof value !== 'string') return typeof value === 'number' ? formatNumber(value) : String(value);
  return JSON.stringify(value);
}

/**
 * The one number format of the prompt rendering: the shortest text that reads back as the same double
 * (ECMAScript's Number-to-String, locale-free), `0` for `-0`. Statistics arrive already rounded to 6
 * significant digits (`stableNumbers`), so no float noise reaches the prompt.
 */
export function formatNumber(value: number): string {
  return Object.is(value, -0) ? '0' : String(value);
}

/**
 * A step in one line, for old results in the exploration loop, its warehouse part fenced inline:
 * `step 12 · 2,000 rows · cols: <<<WAREHOUSE_DATA device(top "mobile" 61%), orders(median 3) … WAREHOUSE_DATA>>>`
 * — at most about 200 characters, markers included.
 */
export function digestOneLiner(step: ExplorationStep): string {
  const head = `step ${step.step}`;
  if (step.error !== undefined) {
    const prefix = `${head} · error: `;
    const room = DIGEST_ONE_LINER_MAX_CHARS - 20 - prefix.length - INLINE_FENCE_CHARS;
    return `${prefix}${fenceInline(clipText(step.error.replace(/\s+/g, ' '), room))}`;
  }
  if (step.action !== 'query') {
    const subject = step.action === 'search_tables' ? (step.search_query ?? '') : (step.tables ?? []).join(', ');
    return clipText(`${head} · ${step.action} ${subject}`.trimEnd(), DIGEST_ONE_LINER_MAX_CHARS - 20);
  }
  const compact = stepCompact(step);
  const rowCount = step.row_count ?? compact?.row_count ?? 0;
  const line = `${head} · ${groupThousands(rowCount)} ${rowCount === 1 ? 'row' : 'rows'}`;
  if (compact === undefined || compact.columns.length === 0) return line;
  // a name is cut before it is quoted, so the quotes survive the cut
  const parts = compact.columns.map((column) => `${promptIdentifier(clipText(column.name, 30, 24))}(${columnGist(column, rowCount)})`);
  let columns = '';
  for (const [index, part] of parts.entries()) {
    const separator = index === 0 ? '' : ', ';
    if (line.length + 8 + INLINE_FENCE_CHARS + columns.length + separator.length + part.length > DIGEST_ONE_LINER_MAX_CHARS - 2) {
      columns += ' …';
      break;
    }
    columns += separator + part;
  }
  return `${line} · cols: ${fenceInline(columns)}`;
}

function columnGist(column: CompactResult['columns'][number], rowCount: number): string {
  const nonNull = rowCount - column.null_count;
  if (column.kind === 'null' || nonNull === 0) return 'all null';
  const first = column.top?.[0];
  if (first !== undefined && rowCount > 0) {
    const value = typeof first.value === 'string' ? JSON.stringify(clipText(first.value, 20, 16)) : String(first.value);
    return `top ${value} ${Math.round((first.count / rowCount) * 100)}%`;
  }
  if (column.kind === 'number' && column.median !== undefined) return `median ${column.median}`;
  if (column.kind === 'timestamp' && column.min_time !== undefined && column.max_time !== undefined) {
    return `${column.min_time.slice(0, 10)}→${column.max_time.slice(0, 10)}`;
  }
  return `${groupThousands(column.distinct)}${column.distinct_approx ? '~' : ''} distinct`;
}
