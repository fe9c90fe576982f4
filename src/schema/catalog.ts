/**
 * The Level-0 catalog ({{SCHEMA_INFO}}): one short line per table, alphabetical, bounded by a token
 * budget. Column detail is not here on purpose; the model fetches it with lookup_schema. The table lines
 * are warehouse data: fenced, names quoted as SQL quotes them, a table's comment as a JSON string.
 *
 *   main.orders | 6c | 1.2M rows | revenue, order | -> customers, products | comment "Web shop orders"
 */
import { DATA_CLOSE, DATA_OPEN, defuseMarkers, promptIdentifier, promptTableName, promptText } from '../llm/data-fence.js';
import { TOKEN_WEIGHTS, countTokenFeatures, estimateTokens, weighFeatures, type TokenFamily } from '../llm/tokens.js';
import type { TableSchema } from '../warehouse/port.js';
import { isArchiveShaped } from '../warehouse/table-copies.js';
import {
  CATALOG_COMMENT_MAX_CHARS,
  CATALOG_MAX_JOINS_PER_TABLE,
  CATALOG_MAX_KEYWORDS_PER_TABLE,
  DEFAULT_CATALOG_BUDGET_TOKENS,
} from './constants.js';
import { formatRowCount } from './format.js';
import { inferJoins } from './joins.js';
import { matchTableKeywords, prepareKeywords } from './keywords.js';

export const CATALOG_LEGEND =
  '# table | columns | rows | area keywords | likely joins | comment (fetch columns with lookup_schema, find more with search_tables)';

export interface CatalogOptions {
  /** Keywords of the pack's analysis areas, shown on the tables they match. */
  areaKeywords?: readonly string[];
  /** @defaultValue 150,000 (DEFAULT_CATALOG_BUDGET_TOKENS) */
  budgetTokens?: number;
  /** Token family of the model that will read the catalog. @defaultValue 'default' */
  tokenFamily?: TokenFamily;
}

export interface Catalog {
  text: string;
  /** estimateTokens(text, family): the same number the prompt builder will see. */
  tokens: number;
  /** Tables listed. */
  tableCount: number;
  /** Qualified names left out to fit the budget, in the order they were dropped. */
  droppedTables: string[];
}

/** The display name of a join target: the bare name when no other table shares it, else qualified (quoted as SQL quotes them). */
function displayNames(tables: readonly TableSchema[]): Map<string, string> {
  const bareCounts = new Map<string, number>();
  for (const table of tables) bareCounts.set(table.name, (bareCounts.get(table.name) ?? 0) + 1);
  return new Map(
    tables.map((table) => [table.qualified, bareCounts.get(table.name) === 1 ? promptIdentifier(table.name) : promptTableName(table)]),
  );
}

/**
 * One catalog line per table, keyed by qualified name. Names are written as SQL quotes them and the comment
 * as a JSON string, markers defused: the line is warehouse data, shown inside the catalog's data section.
 */
export function renderCatalogLines(tables: readonly TableSchema[], areaKeywords: readonly string[] = []): Map<string, string> {
  const prepared = prepareKeywords(areaKeywords);
  const joins = inferJoins(tables, CATALOG_MAX_JOINS_PER_TABLE);
  const names = displayNames(tables);
  const lines = new Map<string, string>();
  for (const table of tables) {
    const parts = [promptTableName(table), `${table.columns.length}c`, `${formatRowCount(table.rowCount)} rows`];
    const keywords = matchTableKeywords(table, prepared, CATALOG_MAX_KEYWORDS_PER_TABLE);
    if (keywords.length > 0) parts.push(keywords.join(', '));
    const targets = joins.get(table.qualified) ?? [];
    if (targets.length > 0) parts.push(`-> ${targets.map((target) => names.get(target) ?? target).join(', ')}`);
    if (table.comment) parts.push(`comment ${promptText(table.comment, CATALOG_COMMENT_MAX_CHARS)}`);
    lines.set(table.qualified, defuseMarkers(parts.join(' | ')));
  }
  return lines;
}

function omittedNote(count: number): string {
  return `# ${count} more tables not listed (catalog budget); use search_tables to find them.`;
}

/** Drop order: archive-shaped first, then the smallest (unknown counts first), each by name for stability. */
function dropOrder(tables: readonly TableSchema[]): TableSchema[] {
  return [...tables].sort((left, right) => {
    const archive = Number(isArchiveShaped(right.name)) - Number(isArchiveShaped(left.name));
    if (archive !== 0) return archive;
    if (left.rowCount !== right.rowCount) return left.rowCount - right.rowCount;
    return left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0;
  });
}

/**
 * Renders the catalog within `budgetTokens`. Over budget, tables are dropped in drop order until
 * the estimate fits: the token features are additive over lines, so each line is weighed once and
 * the drop is a single pass over a sorted list (O(n log n); the reference re-rendered per drop).
 */
export function renderCatalog(tables: readonly TableSchema[], options: CatalogOptions = {}): Catalog {
  const budget = options.budgetTokens ?? DEFAULT_CATALOG_BUDGET_TOKENS;
  const family = options.tokenFamily ?? 'default';
  const weights = TOKEN_WEIGHTS[family];
  const lines = renderCatalogLines(tables, options.areaKeywords);
  const weigh = (text: string): number => weighFeatures(countTokenFeatures(text), weights);
  const newline = weigh('\n');

  const lineWeight = new Map<string, number>();
  let total = weigh(CATALOG_LEGEND) + weigh(DATA_OPEN) + weigh(DATA_CLOSE) + 2 * newline;
  for (const [qualified, line] of lines) {
    const weight = weigh(line) + newline;
    lineWeight.set(qualified, weight);
    total += weight;
  }

  const dropped = new Set<string>();
  const droppedOrder: string[] = [];
  if (Math.ceil(total) > budget) {
    // The "N more tables" note is reserved at its widest so the final text surely fits.
    total += weigh(omittedNote(tables.length)) + newline;
    for (const table of dropOrder(tables)) {
      if (Math.ceil(total) <= budget) break;
      total -= lineWeight.get(table.qualified) ?? 0;
      dropped.add(table.qualified);
      droppedOrder.push(table.qualified);
    }
  }

  const kept = tables
    .filter((table) => !dropped.has(table.qualified))
    .sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
  const textLines = [CATALOG_LEGEND, DATA_OPEN, ...kept.map((table) => lines.get(table.qualified) as string), DATA_CLOSE];
  if (dropped.size > 0) textLines.push(omittedNote(dropped.size));
  const text = textLines.join('\n');
  return { text, tokens: estimateTokens(text, family), tableCount: kept.length, droppedTables: droppedOrder };
}
