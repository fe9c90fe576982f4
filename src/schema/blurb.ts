/**
 * Table descriptions for the schema index. `templateBlurb` is the deterministic one (no LLM): the
 * table's size, comment and columns by role (from their names and types), and what it joins to —
 * from the catalog alone, never sample rows, which discovery no longer reads. `schemaEmbeddingText` is what
 * gets embedded: name, column names and the blurb, so a search for a column name finds its table
 * even when a model-written blurb forgot to mention it (the reference embedded the blurb only).
 */
import type { ColumnCategory, TableSchema } from '../warehouse/port.js';
import { promptIdentifier, promptTableName, promptText } from '../llm/data-fence.js';
import { BLURB_COMMENT_MAX_CHARS } from './constants.js';
import { formatRowCount, truncateText } from './format.js';

/** Columns named per category; more would turn the blurb into a column list. */
const BLURB_COLUMNS_PER_CATEGORY = 12;
/** Column names in the embedded text, in characters: keeps a 2,000-column table inside any embedder's input limit. */
const EMBED_COLUMN_NAMES_MAX_CHARS = 4_000;

export interface BlurbContext {
  /** Area keywords the table matches. */
  keywords: string[];
  /** Qualified names of tables it likely joins to. */
  joins: string[];
}

const CATEGORY_LABELS: Array<[ColumnCategory, string]> = [
  ['primary_key', 'Keys'],
  ['time', 'Time'],
  ['metric', 'Metrics'],
  ['dimension', 'Dimensions'],
];

/**
 * The deterministic blurb. It is warehouse text shown in search results, so it writes names as SQL quotes
 * them and the table's comment as a JSON string (the search reply fences it).
 */
export function templateBlurb(table: TableSchema, context: BlurbContext = { keywords: [], joins: [] }): string {
  const sentences = [`${promptTableName(table)}: ${formatRowCount(table.rowCount)} rows, ${table.columns.length} columns.`];
  if (table.comment) sentences.push(`Comment: ${promptText(table.comment, BLURB_COMMENT_MAX_CHARS)}.`);
  for (const [category, label] of CATEGORY_LABELS) {
    const columns = table.columns.filter((column) => column.category === category);
    if (columns.length === 0) continue;
    // by role (inferred from name and type), not the raw type: a type can hold warehouse text (ENUM labels)
    const named = columns.slice(0, BLURB_COLUMNS_PER_CATEGORY).map((column) => promptIdentifier(column.name));
    const more = columns.length > named.length ? ` and ${columns.length - named.length} more` : '';
    sentences.push(`${label}: ${named.join(', ')}${more}.`);
  }
  if (context.joins.length > 0) sentences.push(`Likely joins: ${context.joins.map(unquotedToPrompt).join(', ')}.`);
  if (context.keywords.length > 0) sentences.push(`Related to: ${context.keywords.join(', ')}.`);
  return sentences.join(' ');
}

/** A join target's qualified name (`schema.table`, split at its first dot) as prompts write it. */
function unquotedToPrompt(qualified: string): string {
  const dot = qualified.indexOf('.');
  return dot < 0 ? promptIdentifier(qualified) : promptTableName({ schema: qualified.slice(0, dot), name: qualified.slice(dot + 1) });
}

/** The text embedded for a table: its name, every column name, then its blurb. */
export function schemaEmbeddingText(table: TableSchema, blurb: string): string {
  const columns = truncateText(table.columns.map((column) => column.name).join(', '), EMBED_COLUMN_NAMES_MAX_CHARS);
  return `${table.qualified}\ncolumns: ${columns}\n${blurb}`;
}
