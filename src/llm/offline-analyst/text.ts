/** Small, deterministic text and number helpers shared by the analyst's readers and writers. */

/** Words of an identifier or phrase: `reached_checkout` → ["reached", "checkout"]. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** `acquisition_channel_name` → `acquisition channel name`. */
export function humanize(identifier: string): string {
  return wordsOf(identifier).join(' ');
}

/** A crude stem so `installs`, `installed` and `install` meet: the first five letters of a word. */
export function stem(word: string): string {
  return word.toLowerCase().slice(0, Math.max(4, Math.min(5, word.length)));
}

/** Whether any word of `text` shares a stem with `keyword`'s words (all of them, for phrases). */
export function mentionsStem(text: string, keyword: string): boolean {
  const stems = new Set(
    wordsOf(text)
      .filter((word) => word.length >= 3)
      .map(stem),
  );
  const wanted = wordsOf(keyword).filter((word) => word.length >= 2);
  return wanted.length > 0 && wanted.every((word) => (word.length < 4 ? wordsOf(text).includes(word) : stems.has(stem(word))));
}

/** FNV-1a over the text, as 8 hex digits: short stable keys for planned queries. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

export function editDistance(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** `1,234`; fractions keep up to two decimals. */
export function formatCount(value: number): string {
  const rounded = Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
  return rounded.toLocaleString('en-US');
}

/** A fraction as a percentage: 0.6812 → `68.1%`. */
export function formatPercent(fraction: number): string {
  const percent = fraction * 100;
  const digits = Math.abs(percent) >= 10 ? 0 : 1;
  return `${percent.toFixed(digits)}%`;
}

/** A ratio for prose: 3.14 → `3.1×`. */
export function formatRatio(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1)}×`;
}

/** A measured value for prose: rates as percentages, other numbers grouped. */
export function formatMeasure(value: number, isRate: boolean): string {
  return isRate ? formatPercent(value) : formatCount(value);
}

/** Rounds for JSON metrics: 4 significant decimals is plenty and keeps replies stable. */
export function roundMetric(value: number): number {
  if (!Number.isFinite(value)) return 0;
  if (Math.abs(value) >= 1000) return Math.round(value);
  return Math.round(value * 10_000) / 10_000;
}

/** `1.2K` / `3M` / `950` / `unknown` (the catalog's row-count format) back to a number; -1 when unknown. */
export function parseRowCount(text: string): number {
  const match = /^\s*([\d.,]+)\s*([KMB])?\s*$/i.exec(text);
  if (!match) return -1;
  const base = Number((match[1] as string).replace(/,/g, ''));
  const unit = (match[2] ?? '').toUpperCase();
  const factor = unit === 'K' ? 1e3 : unit === 'M' ? 1e6 : unit === 'B' ? 1e9 : 1;
  return Number.isFinite(base) ? Math.round(base * factor) : -1;
}

/** Plain code-point order: locale-independent, so sorting never depends on the machine. */
export function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A word's plural as table names use it (`order` → `orders`, `category` → `categories`). */
export function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(sses|uses|xes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && !/ss$/.test(word)) return word.slice(0, -1);
  return word;
}

/** What a count column counts, in prose: a plural table name as it is (`orders`), anything else as its rows (`flag 12 rows`). */
export function rowsNoun(countColumn: string): string {
  const words = humanize(countColumn);
  return /[a-z]s$/.test(words) && !/ss$/.test(words) ? words : `${words} rows`;
}

/** The values of a column, in prose: `departments`, `categories`; `assigned to values` when the name is no noun. */
export function pluralNoun(phrase: string): string {
  const words = phrase.split(' ');
  const last = words.at(-1) ?? phrase;
  if (/^(to|by|at|on|of|id|for|from|in)$/.test(last) || /\d$/.test(last)) return `${phrase} values`;
  const plural = /[^aeiou]y$/.test(last) ? `${last.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(last) ? `${last}es` : `${last}s`;
  return [...words.slice(0, -1), plural].join(' ');
}
