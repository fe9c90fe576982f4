/** The columns of a set of result rows, as the evidence tables show them. */
/** Column names across rows, in first-seen order (rows may omit null cells). */
export function columnNames(rows: readonly Record<string, unknown>[]): string[] {
  const names = new Set<string>();
  for (const row of rows) for (const name of Object.keys(row)) names.add(name);
  return [...names];
}
