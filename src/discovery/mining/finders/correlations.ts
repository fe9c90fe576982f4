/**
 * Correlations: one statement computes Pearson's r and the number of complete pairs for every pair of
 * a table's measures (numbers and durations), tested against zero. Pairs that say nothing are never
 * findings: one measure twice (|r| ≈ 1: a copy, a unit conversion), or two versions of one quantity
 * (`city_mpg` and `highway_mpg`, `us_gross` and `worldwide_gross`: names sharing the measured word).
 */
import type { ClaimMetric } from '../../../domain/index.js';
import type { SqlSyntax } from '../../../warehouse/sql-syntax/index.js';
import { nameWords } from '../../packs/generation/warehouse-facts.js';
import { pearsonT } from '../../statistics/index.js';
import { type FinderOutput, emptyOutput, recordTest, unit } from '../candidate.js';
import { unitOf } from '../column-labels.js';
import { type MeasureSpec, claimMetricOf, measureColumns, valueExpression } from '../measures.js';
import type { MiningTable } from '../mining-table.js';
import type { MiningQueryRunner } from '../query-runner.js';

/** Measures paired at most (the pairs grow with the square). */
export const MAX_CORRELATED_MEASURES = 14;
/** Above this |r| the two columns are one measure written twice. */
const COPY_R = 0.95;
/** Words that do not name a quantity, so sharing them does not make two columns versions of one. */
const GENERIC_WORDS = new Set([
  'total',
  'count',
  'number',
  'num',
  'avg',
  'mean',
  'max',
  'min',
  'of',
  'per',
  'the',
  'a',
  'rate',
  'value',
  'amount',
  'time',
  'date',
  'year',
  'first',
  'second',
  'last',
]);

/** Two names that measure the same quantity: a shared non-generic word that is their last (`*_mpg`, `*_gross_usd`). */
export function sameQuantity(left: string, right: string): boolean {
  const strip = (name: string) => {
    const words = nameWords(name);
    return unitOf(name) ? words.slice(0, -1) : words;
  };
  const a = strip(left).filter((word) => !GENERIC_WORDS.has(word));
  const b = strip(right).filter((word) => !GENERIC_WORDS.has(word));
  const lastA = a.at(-1);
  const lastB = b.at(-1);
  if (lastA !== undefined && lastA === lastB) return true;
  const unitA = unitOf(left);
  return unitA !== undefined && unitA === unitOf(right) && a.some((word) => b.includes(word));
}

export interface CorrelationContext {
  syntax: SqlSyntax;
  runner: MiningQueryRunner;
  table: MiningTable;
  minSupport: number;
}

function rowValue(row: Record<string, unknown>, key: string): number {
  const value = row[key];
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

export async function mineCorrelations(context: CorrelationContext, measures: readonly MeasureSpec[]): Promise<FinderOutput> {
  const { syntax, runner, table, minSupport } = context;
  const output = emptyOutput();
  const usable = measures.filter((measure) => measure.kind !== 'rate').slice(0, MAX_CORRELATED_MEASURES);
  const derivedNames = new Set(table.derived.map((item) => item.name));
  const pairs: Array<[MeasureSpec, MeasureSpec]> = [];
  for (let i = 0; i < usable.length; i++)
    for (let j = i + 1; j < usable.length; j++) {
      const a = usable[i] as MeasureSpec;
      const b = usable[j] as MeasureSpec;
      if (b.kind !== 'mean') continue;
      if (a.kind === 'mean' && sameQuantity(a.column, b.column)) continue;
      // a row's own amount against its children's total is an accounting identity (an order's total and its items)
      if (a.kind === 'mean' && derivedNames.has(a.column) !== derivedNames.has(b.column)) continue;
      pairs.push([a, b]);
    }
  if (pairs.length === 0) return output;
  // each measure is computed once, in a derived table, and the pairs read it by name: written out per
  // pair, a dialect without corr() (MySQL) spelled every duration's epoch arithmetic ~50 times and one
  // table's statement passed the guard's 100,000-character limit
  const paired = [...new Set(pairs.flat())];
  const name = (measure: MeasureSpec) => `m${paired.indexOf(measure)}`;
  const measured = paired.map((measure) => `${valueExpression(syntax, table, measure)} AS ${name(measure)}`);
  const select = pairs.flatMap(([a, b], index) => {
    const x = name(a);
    const y = name(b);
    return [`${syntax.correlation(x, y)} AS r${index}`, `count(CASE WHEN ${x} IS NOT NULL AND ${y} IS NOT NULL THEN 1 END) AS n${index}`];
  });
  const rows = await runner.run(
    `correlations ${table.qualified}`,
    `SELECT ${select.join(', ')} FROM (SELECT ${measured.join(', ')} FROM ${table.from}) AS measures`,
  );
  const row = rows?.[0];
  if (!row) return output;
  pairs.forEach(([a, b], index) => {
    const r = rowValue(row, `r${index}`);
    const n = rowValue(row, `n${index}`);
    if (!Number.isFinite(r) || !(n >= 3)) return;
    const result = pearsonT(r, n);
    if (!result) return;
    const at = recordTest(output, result.p_value, [...measureColumns(a), ...measureColumns(b)]);
    if (Math.abs(r) >= COPY_R || n < minSupport) return;
    // the second measure is the one the claim's metric names; the first becomes x unless it is a duration
    const [subject, other] = a.kind === 'duration' ? [a, b] : [b, a];
    const metric: ClaimMetric = claimMetricOf(table, subject);
    output.candidates.push({
      claim: {
        kind: 'correlation',
        metric,
        x: { column: (other as Extract<MeasureSpec, { kind: 'mean' }>).column, label: other.label },
        value: r,
        comparison_value: 0,
        direction: r > 0 ? 'higher' : 'lower',
        test: { name: 'pearson_t', statistic: result.statistic, p_value: result.p_value, ...(result.df ? { df: result.df } : {}) },
        n: { segment: n },
        ...(table.sampleRows ? { approximate: true } : {}),
      },
      effect: { name: 'r', value: r },
      coverage: unit(n / table.rows),
      strength: unit((Math.abs(r) - 0.2) / 0.6),
      columns: [...measureColumns(a), ...measureColumns(b)],
      subject: `${a.label} and ${b.label}`,
      test: at,
    });
  });
  return output;
}
