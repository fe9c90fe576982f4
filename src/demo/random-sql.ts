/**
 * Seeded, order-independent randomness for the demo generators, written as SQL.
 *
 * Every random draw is a pure function of (salt, row key, seed) computed with DuckDB's `hash`,
 * so the generated rows do not depend on thread scheduling or on DuckDB's `random()` state:
 * the same seed gives the same table contents on every run with the same DuckDB version.
 */

/** 2^53: the top 53 bits of a 64-bit hash map exactly onto the doubles in [0, 1). */
const UNIT_INTERVAL_SCALE = '9007199254740992.0';

/**
 * Temporary macros (never persisted into the demo file): `rnd(salt, key)` and
 * `rnd2(salt, key1, key2)` return a uniform double in [0, 1) for the given seed.
 */
export function randomMacrosSql(seed: number): string {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  const seedLiteral = `${seed}::BIGINT`;
  return [
    `CREATE OR REPLACE TEMP MACRO rnd(salt, k) AS ((hash(k, salt, ${seedLiteral}) >> 11)::DOUBLE / ${UNIT_INTERVAL_SCALE});`,
    `CREATE OR REPLACE TEMP MACRO rnd2(salt, k1, k2) AS ((hash(k1, k2, salt, ${seedLiteral}) >> 11)::DOUBLE / ${UNIT_INTERVAL_SCALE});`,
  ].join('\n');
}

export type SqlLiteral = string | number | boolean | null;

/** Renders a JS value as a SQL literal (strings single-quoted with quotes doubled). */
export function sqlLiteral(value: SqlLiteral): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return String(value);
  }
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * A CASE expression that maps a uniform draw in [0, 1) onto `choices` with the given weights.
 * Weights are normalised, so they need not sum to 1; the last choice absorbs rounding.
 */
export function weightedPickSql(uniformExpression: string, choices: ReadonlyArray<readonly [SqlLiteral, number]>): string {
  if (choices.length === 0) throw new RangeError('weightedPickSql needs at least one choice');
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  if (!(total > 0) || choices.some(([, weight]) => weight < 0)) throw new RangeError('weights must be non-negative with a positive sum');
  let cumulative = 0;
  const branches: string[] = [];
  choices.forEach(([value, weight], index) => {
    if (index === choices.length - 1) return;
    cumulative += weight / total;
    branches.push(`WHEN ${uniformExpression} < ${cumulative.toFixed(6)} THEN ${sqlLiteral(value)}`);
  });
  const last = choices[choices.length - 1];
  const fallback = sqlLiteral(last === undefined ? null : last[0]);
  return branches.length === 0 ? fallback : `CASE ${branches.join(' ')} ELSE ${fallback} END`;
}

/** A list literal, e.g. `['a', 'b']`, for `list_element(list, 1 + floor(u * n))` picks. */
export function sqlList(values: readonly SqlLiteral[]): string {
  return `[${values.map(sqlLiteral).join(', ')}]`;
}

/** Uniformly picks one element of `values` with the draw `uniformExpression` in [0, 1). */
export function uniformPickSql(uniformExpression: string, values: readonly SqlLiteral[]): string {
  if (values.length === 0) throw new RangeError('uniformPickSql needs at least one value');
  return `list_element(${sqlList(values)}, 1 + floor((${uniformExpression}) * ${values.length})::INTEGER)`;
}
