/**
 * Reads the `{{QUERY_RESULTS}}` block of an analysis prompt: one JSON object per line, as rendered by
 * src/compaction/render.ts (`renderStepDigest`): step, purpose, sql, row_count, columns (one line of
 * statistics per column), row_columns and all_rows (small results) or head_rows/tail_rows (samples of
 * longer ones). The block is fenced as warehouse data; the marker lines are not JSON and are skipped.
 */
import type { Cell } from '../../../domain/index.js';
import { readPromptName } from '../../data-fence.js';
import { compareText } from '../text.js';

export interface ColumnStats {
  name: string;
  kind: string;
  min?: number;
  median?: number;
  max?: number;
}

export interface DigestStep {
  step: number;
  purpose: string;
  sql: string;
  rowCount: number;
  columns: ColumnStats[];
  rowColumns: string[];
  /** Every row (`complete`) or the head and tail rows shown. */
  rows: Array<Record<string, Cell>>;
  complete: boolean;
  failed: boolean;
}

interface RenderedStep {
  step?: unknown;
  purpose?: unknown;
  sql?: unknown;
  row_count?: unknown;
  error?: unknown;
  columns?: unknown;
  row_columns?: unknown;
  all_rows?: unknown;
  head_rows?: unknown;
  tail_rows?: unknown;
}

function toRows(names: readonly string[], rows: unknown): Array<Record<string, Cell>> {
  if (!Array.isArray(rows)) return [];
  return rows
    .filter(Array.isArray)
    .map((cells: unknown[]) => Object.fromEntries(names.map((name, index) => [name, (cells[index] ?? null) as Cell])));
}

/**
 * `revenue: number, 3 null, 120 distinct, min 0, p25 4.5, median 30.03, p75 ~91.86, max 412.34` (render.ts
 * `columnCore`); a name that is not a plain identifier is quoted as SQL quotes it (`"Net Revenue": number, …`).
 */
const COLUMN_LINE = /^(.*?): (number|string|boolean|timestamp|null|mixed)(?:, (.*))?$/s;
const COLUMN_REST = /^: (number|string|boolean|timestamp|null|mixed)(?:, (.*))?$/s;

/** The name, kind and statistics of a column line. */
function splitColumnLine(column: string): { name: string; kind: string; details: string } | null {
  if (column.startsWith('"')) {
    const name = readPromptName(column);
    const rest = name ? COLUMN_REST.exec(column.slice(name.end)) : null;
    return name && rest ? { name: name.parts.join('.'), kind: rest[1] as string, details: rest[2] ?? '' } : null;
  }
  const match = COLUMN_LINE.exec(column);
  return match ? { name: match[1] as string, kind: match[2] as string, details: match[3] ?? '' } : null;
}

function statistic(details: string, label: string): number | undefined {
  const match = new RegExp(`(?:^|, )${label} ~?(-?[0-9][0-9.e+-]*)(?:,|$)`).exec(details);
  return match ? Number(match[1]) : undefined;
}

function readColumn(column: unknown): ColumnStats | null {
  if (typeof column !== 'string') return typeof (column as ColumnStats | null)?.name === 'string' ? (column as ColumnStats) : null;
  const split = splitColumnLine(column);
  if (!split) return null;
  const { details } = split;
  const stats: ColumnStats = { name: split.name, kind: split.kind };
  for (const label of ['min', 'median', 'max'] as const) {
    const value = statistic(details, label);
    if (value !== undefined) stats[label] = value;
  }
  return stats;
}

function toStep(rendered: RenderedStep): DigestStep | null {
  if (typeof rendered.step !== 'number') return null;
  const rowColumns = Array.isArray(rendered.row_columns)
    ? rendered.row_columns.filter((name): name is string => typeof name === 'string')
    : [];
  const complete = Array.isArray(rendered.all_rows);
  const rows = complete
    ? toRows(rowColumns, rendered.all_rows)
    : [...toRows(rowColumns, rendered.head_rows), ...toRows(rowColumns, rendered.tail_rows)];
  const columns = Array.isArray(rendered.columns)
    ? rendered.columns.map(readColumn).filter((column): column is ColumnStats => column !== null)
    : [];
  return {
    step: rendered.step,
    purpose: typeof rendered.purpose === 'string' ? rendered.purpose : '',
    sql: typeof rendered.sql === 'string' ? rendered.sql : '',
    rowCount: typeof rendered.row_count === 'number' ? rendered.row_count : rows.length,
    columns,
    rowColumns,
    rows,
    complete,
    failed: rendered.error !== undefined,
  };
}

export function readDigests(prompt: string): DigestStep[] {
  const steps = new Map<number, DigestStep>();
  for (const line of prompt.split('\n')) {
    const trimmed = line.trim().replace(/,$/, '');
    if (!trimmed.startsWith('{"step":')) continue;
    try {
      const step = toStep(JSON.parse(trimmed) as RenderedStep);
      if (step && !steps.has(step.step)) steps.set(step.step, step);
    } catch {
      // a line cut by the prompt budget is not evidence
    }
  }
  return [...steps.values()].sort((left, right) => left.step - right.step);
}

/** `# Analysis: Funnel Conversion` and `Area: …` at the top of every pack's analysis prompt. */
export function readAnalysisArea(prompt: string): { name: string; description: string } {
  const name = /^# Analysis: (.+)$/m.exec(prompt)?.[1]?.trim() ?? '';
  const description = /^Area: (.+)$/m.exec(prompt)?.[1]?.trim() ?? '';
  return { name, description };
}

/** Area ids prefixed to the purposes (`conversion: …`), sorted. */
export function purposeAreaIds(steps: readonly DigestStep[]): string[] {
  const ids = new Set<string>();
  for (const step of steps) {
    const match = /^([a-z][a-z0-9_]*): /.exec(step.purpose);
    if (match) ids.add(match[1] as string);
  }
  return [...ids].sort(compareText);
}
