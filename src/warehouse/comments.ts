/**
 * Table and column comments from the warehouse catalog (DuckDB `duckdb_tables()`/`duckdb_columns()`,
 * PostgreSQL `obj_description`/`col_description`). They often say what a cryptic name means, so lookups,
 * the catalog and search show them; they are warehouse text, so prompts show them fenced and quoted.
 */

/** Characters of a comment kept in the schema cache: enough for any prompt that shows one, bounded for a warehouse with essays as comments. */
export const COMMENT_MAX_STORED_CHARS = 1_000;

/** A catalog's comment cell as a comment: trimmed, cut to COMMENT_MAX_STORED_CHARS; undefined when absent or blank. */
export function catalogComment(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return trimmed.length > COMMENT_MAX_STORED_CHARS ? `${trimmed.slice(0, COMMENT_MAX_STORED_CHARS)}…` : trimmed;
}
