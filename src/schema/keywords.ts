/**
 * Which analysis-area keywords a table is about: a keyword matches when its words appear, in order
 * and as whole words, in the table's name or in one column's name. `order` matches `order_items`
 * and `orders`, but `ad` does not match `shadow_ledger` (the reference matched raw substrings).
 */
import { splitWords } from '../embed/local.js';
import type { TableSchema } from '../warehouse/port.js';

/** Folds simple plurals so `orders` ~ `order` and `categories` ~ `category`; applied to both sides. */
export function stemWord(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

export function stemmedWords(text: string): string[] {
  return splitWords(text).map(stemWord);
}

function containsSequence(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let offset = 0; offset < needle.length; offset++) {
      if (haystack[start + offset] !== needle[offset]) continue outer;
    }
    return true;
  }
  return false;
}

/** Keywords prepared once for many tables. */
export interface PreparedKeywords {
  keywords: Array<{ keyword: string; words: string[] }>;
}

export function prepareKeywords(keywords: readonly string[]): PreparedKeywords {
  const seen = new Set<string>();
  const prepared: PreparedKeywords['keywords'] = [];
  for (const keyword of keywords) {
    const words = stemmedWords(keyword);
    const key = words.join(' ');
    if (words.length === 0 || seen.has(key)) continue;
    seen.add(key);
    prepared.push({ keyword: keyword.trim().toLowerCase(), words });
  }
  return { keywords: prepared };
}

/** Up to `limit` keywords, those found in the table's name first, then those found in a column name. */
export function matchTableKeywords(table: Pick<TableSchema, 'name' | 'columns'>, prepared: PreparedKeywords, limit: number): string[] {
  if (prepared.keywords.length === 0 || limit <= 0) return [];
  const nameWords = stemmedWords(table.name);
  const columnWords = table.columns.map((column) => stemmedWords(column.name));
  const inName: string[] = [];
  const inColumns: string[] = [];
  for (const { keyword, words } of prepared.keywords) {
    if (containsSequence(nameWords, words)) inName.push(keyword);
    else if (columnWords.some((column) => containsSequence(column, words))) inColumns.push(keyword);
  }
  return [...inName, ...inColumns].slice(0, limit);
}
