/**
 * The template baseline: what a tool that looks at nothing but a column profile would "find". One
 * sentence per column and top value, made only from the column's name and the value ("category is
 * mostly Network; category Network has the most rows"), with no number, statistic or comparison. It
 * is scored by the same rule as the insights (stop words removed, each text capped), so the lift
 * over it is what discovery adds beyond repeating the table's own words back.
 */

/** Top values per column the baseline states: what a profile's "top values" shows at a glance. */
export const TEMPLATE_TOP_VALUES = 3;

export interface ColumnValueCount {
  value: string;
  rows: number;
}

/** A column's most frequent values (each held by more than one row), most frequent first. */
export interface ColumnTopValues {
  table: string;
  column: string;
  values: ColumnValueCount[];
}

const RANK_WORDS = ['most', 'second most', 'third most'] as const;

/** The sentence for a column's value at `rank` (0: its top value). */
export function templateSentence(column: string, value: string, rank: number): string {
  const place = RANK_WORDS[rank] ?? `${rank + 1}th most`;
  const lead = rank === 0 ? `${column} is mostly ${value}; ` : '';
  return `${lead}${column} ${value} has the ${place} rows`;
}

/** Every template sentence of the tables' columns, in table and column order, at most TEMPLATE_TOP_VALUES per column. */
export function templateSentences(columns: readonly ColumnTopValues[]): string[] {
  return columns.flatMap(({ column, values }) =>
    values.slice(0, TEMPLATE_TOP_VALUES).map((entry, rank) => templateSentence(column, entry.value, rank)),
  );
}
