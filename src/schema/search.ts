/**
 * search_tables: embed the model's phrase, find the nearest table descriptions in the project's
 * schema index, reply with a short ranked list. Ranking is plain cosine: the embedded text already
 * carries the table name, columns and blurb, and the reference's row-count prior (+0.05·log10 rows,
 * +0.30 for a 1M-row table) swamped cosine gaps of a few hundredths, so none is added.
 * Failures come back as text for the model; only cancellation throws.
 */
import type { Embedder } from '../embed/port.js';
import { fenceData, promptTableName } from '../llm/data-fence.js';
import { CancelledError, describeError } from '../errors/index.js';
import type { VectorIndex } from '../vector/port.js';
import { DEFAULT_SCHEMA_BUDGET_LIMITS, searchBudgetLine, type SchemaBudgetState } from './budget.js';
import { DEFAULT_SEARCH_TOP_K, MAX_SEARCH_TOP_K, SEARCH_BLURB_MAX_CHARS } from './constants.js';
import { formatRowCount, truncateText } from './format.js';

export interface SearchTablesOptions {
  /** Hits wanted; defaults to 10 and is clamped to 1…30. */
  topK?: number | undefined;
  embedder: Embedder;
  index: VectorIndex;
  /** The project's active schema collection (see readSchemaIndexPointer). */
  collection: string;
  budget: SchemaBudgetState;
  /** @defaultValue 30 (DEFAULT_MAX_SEARCHES_PER_RUN) */
  maxSearches?: number;
  signal?: AbortSignal;
}

export interface SearchHit {
  /** The qualified name. */
  table: string;
  /** Its schema and name, for the reply's quoted name (absent from an index built before they were stored). */
  schema?: string;
  name?: string;
  score: number;
  rowCount: number;
  blurb: string;
}

export interface SearchResult {
  text: string;
  hits: SearchHit[];
  /** Whether this call was charged to the run's budget. */
  debited: boolean;
  /** True when the search could not run (empty query, embedder or index failure). */
  failed: boolean;
  budgetRemaining: number;
  budget: SchemaBudgetState;
}

/** The topK actually used: whole, at least 1, at most MAX_SEARCH_TOP_K; missing or nonsense → the default. */
export function clampSearchTopK(topK: number | undefined): number {
  if (topK === undefined || !Number.isFinite(topK)) return DEFAULT_SEARCH_TOP_K;
  return Math.min(MAX_SEARCH_TOP_K, Math.max(1, Math.floor(topK)));
}

function toHits(raw: Array<{ id: string; score: number; payload: Record<string, unknown> }>, topK: number): SearchHit[] {
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const hit of raw) {
    const table = typeof hit.payload.table === 'string' ? hit.payload.table : hit.id;
    if (seen.has(table)) continue;
    seen.add(table);
    hits.push({
      table,
      ...(typeof hit.payload.schema === 'string' && typeof hit.payload.name === 'string'
        ? { schema: hit.payload.schema, name: hit.payload.name }
        : {}),
      score: hit.score,
      rowCount: typeof hit.payload.row_count === 'number' ? hit.payload.row_count : -1,
      blurb: typeof hit.payload.blurb === 'string' ? hit.payload.blurb : '',
    });
  }
  return hits.slice(0, topK);
}

export async function searchTables(query: string, options: SearchTablesOptions): Promise<SearchResult> {
  const maxSearches = options.maxSearches ?? DEFAULT_SCHEMA_BUDGET_LIMITS.maxSearches;
  const before = options.budget;
  if (before.searches_used >= maxSearches) {
    return {
      text: `search_tables budget exhausted (${before.searches_used}/${maxSearches} calls used). Use the catalog and lookup_schema instead.`,
      hits: [],
      debited: false,
      failed: false,
      budgetRemaining: 0,
      budget: before,
    };
  }
  // Every attempted search is charged, including one that fails: retrying a broken search must not be free.
  const budget: SchemaBudgetState = { ...before, searches_used: before.searches_used + 1 };
  const remaining = Math.max(0, maxSearches - budget.searches_used);
  const budgetLine = searchBudgetLine(budget.searches_used, maxSearches);
  const reply = (text: string, hits: SearchHit[], failed: boolean): SearchResult => ({
    text,
    hits,
    debited: true,
    failed,
    budgetRemaining: remaining,
    budget,
  });

  const phrase = query.trim();
  if (phrase.length === 0)
    return reply(`search_tables needs a non-empty description of the data you are looking for.\n\n${budgetLine}`, [], true);
  const topK = clampSearchTopK(options.topK);

  let hits: SearchHit[];
  try {
    const [vector] = await options.embedder.embed([phrase], { signal: options.signal });
    if (!vector) throw new Error('the embedder returned no vector');
    // Twice topK, so dropping duplicate tables still leaves topK hits.
    const raw = await options.index.search(options.collection, vector, { topK: Math.min(2 * topK, 2 * MAX_SEARCH_TOP_K) });
    hits = toHits(raw, topK);
  } catch (error) {
    if (options.signal?.aborted || error instanceof CancelledError)
      throw error instanceof CancelledError ? error : new CancelledError('search_tables cancelled', { cause: error });
    return reply(
      `search_tables failed: ${truncateText(describeError(error), 300)}. The table index is unavailable; continue with the catalog and lookup_schema.\n\n${budgetLine}`,
      [],
      true,
    );
  }

  if (hits.length === 0)
    return reply(
      `Search results for "${phrase}": no matching tables. Try other words, or pick from the catalog.\n\n${budgetLine}`,
      [],
      false,
    );
  // the hits are warehouse data: names quoted as SQL quotes them, blurbs (names, sample values, comments) fenced
  const hitLines: string[] = [];
  hits.forEach((hit, index) => {
    const name = hit.schema !== undefined && hit.name !== undefined ? promptTableName({ schema: hit.schema, name: hit.name }) : hit.table;
    hitLines.push(`${index + 1}. ${name} — ${formatRowCount(hit.rowCount)} rows — score=${hit.score.toFixed(3)}`);
    if (hit.blurb.length > 0) hitLines.push(`   ${truncateText(hit.blurb.replace(/\s+/g, ' ').trim(), SEARCH_BLURB_MAX_CHARS)}`);
  });
  const lines = [
    `Search results for "${phrase}":`,
    fenceData(hitLines.join('\n')),
    '',
    'Call lookup_schema with the tables you want to use to see their columns and sample rows.',
    '',
    budgetLine,
  ];
  return reply(lines.join('\n'), hits, false);
}
