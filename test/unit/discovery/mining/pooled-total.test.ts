/**
 * A grouping whose every group was read gets its total pooled from the groups instead of a second pass
 * over the table: the pooled figures must be the ones the total's own aggregates would give.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pooledTotal } from '../../../../src/discovery/mining/finders/segments.js';
import { type MeasureSpec, readFigures } from '../../../../src/discovery/mining/measures.js';

const MEASURES: MeasureSpec[] = [
  { kind: 'mean', column: 'amount', label: 'amount' } as MeasureSpec,
  { kind: 'rate', column: 'returned', op: '=', value: true, label: 'returned' } as MeasureSpec,
];

type Value = number | null;

/** The row a grouped statement returns for these values: what count/avg/var_samp/min/max and count/sum give. */
function aggregateRow(amounts: readonly Value[], returned: readonly Value[]): Record<string, number | null> {
  const present = amounts.filter((value): value is number => value !== null);
  const n = present.length;
  const mean = n === 0 ? null : present.reduce((sum, value) => sum + value, 0) / n;
  const variance = n < 2 || mean === null ? null : present.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1);
  const flags = returned.filter((value): value is number => value !== null);
  return {
    n: amounts.length,
    m0_n: n,
    m0_mean: mean,
    m0_var: variance,
    m0_min: n === 0 ? null : Math.min(...present),
    m0_max: n === 0 ? null : Math.max(...present),
    m1_n: flags.length,
    m1_k: flags.length === 0 ? null : flags.reduce((sum, value) => sum + value, 0),
  };
}

/** Equal but for rounding: the pooled sums and the direct ones add the same numbers in another order. */
const close = (actual: number, expected: number) => Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));

const groupArbitrary = fc
  .array(
    fc.tuple(fc.option(fc.double({ min: -1e4, max: 1e4, noNaN: true }), { nil: null }), fc.option(fc.constantFrom(0, 1), { nil: null })),
    {
      minLength: 1,
      maxLength: 30,
    },
  )
  .map((rows) => ({ amounts: rows.map(([amount]) => amount), returned: rows.map(([, flag]) => flag) }));

describe('the total pooled from every group of a grouping', () => {
  it('has the count, mean, variance, range and successes of all the rows together', () => {
    fc.assert(
      fc.property(fc.array(groupArbitrary, { minLength: 2, maxLength: 8 }), (data) => {
        const groups = data.map((group, index) => {
          const row = aggregateRow(group.amounts, group.returned);
          return { value: `g${index}`, n: row.n as number, figures: MEASURES.map((measure, at) => readFigures(row, measure, at)) };
        });
        const pooled = pooledTotal(groups, MEASURES);
        const all = aggregateRow(
          data.flatMap((group) => group.amounts),
          data.flatMap((group) => group.returned),
        );
        const expected = MEASURES.map((measure, at) => readFigures(all, measure, at));
        expect(pooled.n).toBe(all.n);
        pooled.figures.forEach((figures, at) => {
          const wanted = expected[at];
          expect(figures.n).toBe(wanted?.n);
          expect(figures.k).toBe(wanted?.k);
          expect(figures.min).toBe(wanted?.min);
          expect(figures.max).toBe(wanted?.max);
          if (Number.isNaN(wanted?.mean)) expect(figures.mean).toBeNaN();
          else expect(close(figures.mean, wanted?.mean as number)).toBe(true);
          expect(close(figures.variance, wanted?.variance as number)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out groups where a measure has no value, rather than turning the total into NaN', () => {
    const groups = [
      { value: 'a', n: 2, figures: MEASURES.map((measure, at) => readFigures(aggregateRow([null, null], [null, null]), measure, at)) },
      { value: 'b', n: 2, figures: MEASURES.map((measure, at) => readFigures(aggregateRow([2, 4], [1, 0]), measure, at)) },
    ];
    const [amount, returned] = pooledTotal(groups, MEASURES).figures;
    expect(amount).toMatchObject({ n: 2, mean: 3, variance: 2, min: 2, max: 4 });
    expect(returned).toMatchObject({ n: 2, k: 1, mean: 0.5, min: 0, max: 1 });
  });
});
