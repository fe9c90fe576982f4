/** Self-healing SQL: the fix prompt (grounded on the touched tables' real columns) and reading the fix back. */
import { fenceData, promptIdentifier, promptTableName } from '../../llm/data-fence.js';
import type { TableSchema } from '../../warehouse/port.js';
import { parsedObjects } from '../../common/json-extract.js';

/** Fix attempts per query before giving up (reference: executor MaxRetries = 5). */
export const MAX_SQL_FIXES = 5;
/** Columns listed per touched table in the fix prompt. */
const FIX_PROMPT_MAX_COLUMNS = 60;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Tables of the catalog that a statement mentions, qualified or bare (word-bounded, quotes ignored).
 * Used to show the fixer the columns it needs; a miss only means less help, never a wrong query.
 */
export function tablesMentioned(sql: string, tables: readonly TableSchema[]): TableSchema[] {
  const normalised = sql.replace(/["`]/g, '').toLowerCase();
  const mentioned = tables.filter((table) => {
    const qualified = new RegExp(`(^|[^a-z0-9_])${escapeRegExp(table.qualified.toLowerCase())}($|[^a-z0-9_])`);
    const bare = new RegExp(`(^|[^a-z0-9_.])${escapeRegExp(table.name.toLowerCase())}($|[^a-z0-9_])`);
    return qualified.test(normalised) || bare.test(normalised);
  });
  return mentioned.sort((a, b) => a.qualified.localeCompare(b.qualified));
}

/**
 * `schema.table: col TYPE, col TYPE, …` per table — what the fixer may use — fenced as warehouse data,
 * names quoted as SQL quotes them.
 */
export function renderTableColumns(tables: readonly TableSchema[]): string {
  if (tables.length === 0) return '(no known table was recognised in the query; use the catalog names exactly)';
  const lines = tables.map((table) => {
    const columns = table.columns.slice(0, FIX_PROMPT_MAX_COLUMNS).map((column) => `${promptIdentifier(column.name)} ${column.type}`);
    const more = table.columns.length > FIX_PROMPT_MAX_COLUMNS ? `, … (${table.columns.length - FIX_PROMPT_MAX_COLUMNS} more)` : '';
    return `- ${promptTableName(table)}: ${columns.join(', ')}${more}`;
  });
  return fenceData(lines.join('\n'));
}

/** Earlier statements and what the warehouse said about each, fenced as data. */
export function renderPreviousAttempts(attempts: ReadonlyArray<{ sql: string; error: string }>): string {
  if (attempts.length === 0) return '(none)';
  return fenceData(
    attempts
      .map((attempt, index) => `${index + 1}. ${attempt.sql.replace(/\s+/g, ' ').slice(0, 400)}\n   error: ${attempt.error.slice(0, 300)}`)
      .join('\n'),
  );
}

/** Reads the corrected SQL from a fixer reply: ```sql fence, any fence, JSON `fixed_sql`, or bare SQL text. */
export function extractFixedSql(reply: string): string | null {
  const sqlFence = /```sql\s*\n?([\s\S]*?)```/i.exec(reply);
  if (sqlFence?.[1]?.trim()) return sqlFence[1].trim();
  for (const object of parsedObjects(reply).reverse()) {
    for (const key of ['fixed_sql', 'sql', 'query']) {
      const value = object[key];
      if (typeof value === 'string' && value.trim()) return value.trim();
    }
  }
  const anyFence = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/.exec(reply);
  if (anyFence?.[1] && /\b(select|with)\b/i.test(anyFence[1])) return anyFence[1].trim();
  const bare = /\b(with|select)\b[\s\S]*/i.exec(reply);
  return bare ? bare[0].trim().replace(/;\s*$/, '') : null;
}
