/**
 * Terms of free text: the most frequent distinct texts are read once and split into words; words that
 * appear in a moderate share of the rows (not everywhere, not once) become rate measures — "share whose
 * description mentions printer" — that the segment statements compare across groups like any outcome.
 */
import { type MeasureSpec, termRate } from '../measures.js';
import type { MiningColumn, MiningTable } from '../mining-table.js';
import type { MiningQueryRunner } from '../query-runner.js';

/** Distinct texts read per column. */
const TEXTS_READ = 500;
/** Terms followed per text column. */
export const TERMS_PER_COLUMN = 8;
/** A term is worth following between these shares of the rows. */
const MIN_TERM_SHARE = 0.03;
const MAX_TERM_SHARE = 0.6;

/** Words that carry no subject in any domain. */
const STOP_WORDS = new Set(
  'the and for with from that this have has had are was were not but all any can could will would should into onto over under about after before than then them they their there these those what when where which while who whom why how our your you she his her its out off per via due too very also just only more most some such each other both same own been being does did doing issue issues please unable cannot need needs new one two'.split(
    ' ',
  ),
);

export function wordsOfText(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]*/gu) ?? [])
    .map((word) => word.replace(/['-]+$/, ''))
    .filter((word) => word.length >= 3 && !STOP_WORDS.has(word));
}

export async function termMeasures(runner: MiningQueryRunner, table: MiningTable, column: MiningColumn): Promise<MeasureSpec[]> {
  const id = table.expr(column.name);
  const from = table.from;
  const rows = await runner.run(
    `texts ${table.qualified}.${column.name}`,
    `SELECT ${id} AS t, count(*) AS n FROM ${from} WHERE ${id} IS NOT NULL GROUP BY ${id} ORDER BY n DESC, t LIMIT ${TEXTS_READ}`,
  );
  if (!rows || rows.length === 0) return [];
  const frequency = new Map<string, number>();
  let total = 0;
  for (const row of rows) {
    const count = Number(row.n);
    total += count;
    for (const word of new Set(wordsOfText(String(row.t ?? '')))) frequency.set(word, (frequency.get(word) ?? 0) + count);
  }
  if (total === 0) return [];
  return [...frequency.entries()]
    .filter(([, count]) => count / total >= MIN_TERM_SHARE && count / total <= MAX_TERM_SHARE)
    .sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1))
    .slice(0, TERMS_PER_COLUMN)
    .map(([word]) => termRate(column, word));
}
