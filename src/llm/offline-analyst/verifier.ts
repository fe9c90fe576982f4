/**
 * Verification: recount the affected rows with the SQL that produced the finding. The cited step's
 * query becomes a subquery and the count column is summed over the segment the finding names (its
 * metrics carry segment_column, segment_value(s) and count_column), so the recount is grounded in a
 * query that already ran on this warehouse.
 */
import type { LlmRequest } from '../port.js';
import { userTexts } from './phase.js';
import { quoteIdentifier, sqlString } from './sql/dialect.js';

interface SourceQuery {
  step: number;
  sql: string;
}

function readFinding(prompt: string): Record<string, unknown> | null {
  const match = /## The finding\s*```json\s*([\s\S]*?)```/.exec(prompt);
  if (!match) return null;
  try {
    const parsed: unknown = JSON.parse(match[1] as string);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function readSourceQueries(prompt: string): SourceQuery[] {
  const queries: SourceQuery[] = [];
  for (const match of prompt.matchAll(/^Step (\d+) — [^\n]*\n```sql\n([\s\S]*?)\n```/gm))
    queries.push({ step: Number(match[1]), sql: (match[2] as string).trim().replace(/;\s*$/, '') });
  return queries;
}

function literal(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : sqlString(String(value));
}

/**
 * Further columns of the cited result the finding's rows are narrowed by (a term, the pair of a mix,
 * the dimension a multi-column summary row belongs to): `recount_where`, a JSON object of
 * column → value.
 */
function extraFilters(metrics: Record<string, unknown>): string[] {
  if (typeof metrics.recount_where !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(metrics.recount_where);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
    return Object.entries(parsed as Record<string, unknown>)
      .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
      .map(([name, value]) => `${quoteIdentifier(name)} = ${literal(value)}`);
  } catch {
    return [];
  }
}

/** The finding's segment, narrowed by any further columns it names. */
function segmentFilter(metrics: Record<string, unknown>): string | null {
  const parts = [primaryFilter(metrics), ...extraFilters(metrics)].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(' AND ') : null;
}

function primaryFilter(metrics: Record<string, unknown>): string | null {
  const column = metrics.segment_column;
  if (typeof column !== 'string' || column === '') return null;
  const target = quoteIdentifier(column);
  if (metrics.segment_kind === 'date') {
    const days = String(metrics.segment_values ?? metrics.segment_value ?? '')
      .split('|')
      .filter((day) => /^\d{4}-\d{2}-\d{2}$/.test(day));
    return days.length > 0 ? `CAST(${target} AS DATE) IN (${days.map((day) => `DATE '${day}'`).join(', ')})` : null;
  }
  if (typeof metrics.segment_values === 'string')
    return `CAST(${target} AS VARCHAR) IN (${metrics.segment_values.split('|').map(sqlString).join(', ')})`;
  if (metrics.segment_value === undefined || metrics.segment_value === null) return null;
  return `${target} = ${literal(metrics.segment_value)}`;
}

/** The recount for a finding, or null when the prompt does not say enough to ground one. */
export function groundedCount(prompt: string): { sql: string; why: string } | null {
  const finding = readFinding(prompt);
  const sources = readSourceQueries(prompt);
  if (!finding || sources.length === 0) return null;
  const metrics = (finding.metrics ?? {}) as Record<string, unknown>;
  const countColumn = typeof metrics.count_column === 'string' ? metrics.count_column : undefined;
  const stepNumber = typeof metrics.source_step === 'number' ? metrics.source_step : undefined;
  const source = sources.find((query) => query.step === stepNumber) ?? sources[0];
  if (!source || !countColumn) return null;
  const filter = segmentFilter(metrics);
  const sql = `SELECT SUM(${quoteIdentifier(countColumn)}) AS count\nFROM (\n${source.sql}\n) finding_rows${filter ? `\nWHERE ${filter}` : ''}`;
  return {
    sql,
    why: `Recounting ${countColumn} for ${filter ?? 'all rows'} with the query of step ${source.step}, which produced the finding.`,
  };
}

export function verify(request: LlmRequest): string {
  const prompt = userTexts(request)[0] ?? '';
  const grounded = groundedCount(prompt);
  if (grounded) return JSON.stringify({ thinking: grounded.why, query: grounded.sql });
  const source = readSourceQueries(prompt)[0];
  if (source)
    return JSON.stringify({
      thinking: 'The finding does not name its segment; counting the rows of the cited query.',
      query: `SELECT COUNT(*) AS count FROM (\n${source.sql}\n) finding_rows`,
    });
  return 'The finding cites no query I can ground a recount on, and I will not guess column names.';
}
