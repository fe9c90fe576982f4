/** Pieces written the same way by every dialect that quotes identifiers with double quotes. */
import type { TableRef } from '../port.js';

export function doubleQuoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function singleQuoted(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function finiteNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return String(value);
}

export function qualifiedTable(ref: TableRef, quote: (name: string) => string): string {
  return `${quote(ref.schema)}.${quote(ref.name)}`;
}

/** Regex special characters of RE2 and POSIX ARE, escaped so a word is matched literally. */
export function regexLiteral(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `'…'` for engines whose strings treat a backslash as an escape (MySQL, ClickHouse, BigQuery, Snowflake). */
export function backslashQuoted(value: string, quote: "''" | "\\'" = "''"): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, quote)}'`;
}

/** `` `name` `` with the backtick doubled (MySQL/MariaDB). */
export function backtickDoubled(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** `` `name` `` with backslash escapes (ClickHouse, BigQuery). */
export function backtickEscaped(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/** ISO text (`2023-07-01`, `2023-07-01T12:00:00[.123][Z]`) as `YYYY-MM-DD hh:mm:ss[.fff]`, the form every engine's timestamp cast reads. */
export function plainTimestampText(iso: string, keepFraction = true): string {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?)?(?:Z|[+-]00:?00)?$/.exec(iso.trim());
  if (match === null) throw new RangeError(`not an ISO date or timestamp: ${iso}`);
  const [, date, time, fraction] = match;
  const clock = time === undefined ? '00:00:00' : time.length === 5 ? `${time}:00` : time;
  return `${date} ${clock}${keepFraction && fraction !== undefined ? fraction : ''}`;
}

/**
 * The least-squares slope of `y` on `x` from sums over the rows where both are present, for engines
 * without `regr_slope`; NULL when `x` is constant. `double` casts an expression to the engine's double.
 */
export function slopeFromSums(y: string, x: string, double: (expression: string) => string): string {
  const both = `${y} IS NOT NULL AND ${x} IS NOT NULL`;
  const sum = (term: string) => `SUM(CASE WHEN ${both} THEN ${term} END)`;
  const [n, sx, sy, sxx, sxy] = [
    sum('1.0'),
    sum(double(x)),
    sum(double(y)),
    sum(`${double(x)} * ${double(x)}`),
    sum(`${double(x)} * ${double(y)}`),
  ];
  return double(`(${n} * ${sxy} - ${sx} * ${sy}) / NULLIF(${n} * ${sxx} - ${sx} * ${sx}, 0)`);
}

/** Word separators of `wordRows`: white space and punctuation; letters of any script stay in the word. */
export const WORD_SEPARATOR = '[[:space:][:punct:]]+';

/**
 * The continuous quantile (linear interpolation between closest ranks, as DuckDB's `quantile_cont`
 * and PostgreSQL's `percentile_cont`) from a sorted list the engine builds: `element(k)` is the k-th
 * value (1-based), `count` how many there are. For engines without an aggregate that interpolates.
 */
export function interpolatedQuantile(count: string, element: (position: string) => string, q: number): string {
  const rank = `((${count} - 1) * ${finiteNumber(q)} + 1)`;
  const low = `FLOOR(${rank})`;
  const high = `CEIL(${rank})`;
  return `CASE WHEN ${count} = 0 THEN NULL ELSE ${element(low)} + (${rank} - ${low}) * (${element(high)} - ${element(low)}) END`;
}

/** `topRowsPerGroup` (see syntax.ts) for engines with window functions: rank in the group, keep the first `count`. */
export function rankedTopRows(source: string, columns: string, group: string, order: string, count: number): string {
  return `SELECT ${columns} FROM (SELECT ${columns}, row_number() OVER (PARTITION BY ${group} ORDER BY ${order}) AS rk FROM ${source} AS counted) AS ranked WHERE rk <= ${finiteNumber(count)} ORDER BY ${group}, ${order}`;
}
