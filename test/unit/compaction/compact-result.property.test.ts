import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOP_VALUE_CARDINALITY, compactResult } from '../../../src/compaction/compact-result.js';
import type { Cell, Row } from '../../../src/domain/index.js';

const cell: fc.Arbitrary<Cell> = fc.oneof(
  fc.constant(null),
  fc.double(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
  fc.string({ maxLength: 200 }),
  fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
);

const table = fc
  .integer({ min: 1, max: 8 })
  .chain((width) =>
    fc.record({
      names: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: width, maxLength: width }),
      rows: fc.array(fc.array(cell, { minLength: width, maxLength: width }), { maxLength: 80 }),
    }),
  )
  .map(({ names, rows }) => ({
    columns: names.map((name) => ({ name })),
    rows: rows.map((cells) => Object.fromEntries(names.map((name, index) => [name, cells[index] ?? null])) as Row),
  }));

describe('compactResult properties', () => {
  it('null_count plus non-null values equals row_count for every column', () => {
    fc.assert(
      fc.property(table, ({ columns, rows }) => {
        const digest = compactResult(columns, rows);
        expect(digest.row_count).toBe(rows.length);
        for (const column of digest.columns) {
          const nonNull = rows.filter((row) => {
            const value = row[column.name];
            return value !== null && value !== undefined && !(typeof value === 'number' && !Number.isFinite(value));
          }).length;
          expect(column.null_count + nonNull).toBe(rows.length);
          expect(column.distinct).toBeLessThanOrEqual(nonNull);
        }
      }),
    );
  });

  it('counts distinct values exactly below the cap (numbers, strings and booleans alike)', () => {
    const value = fc.oneof(
      fc.integer({ min: -50, max: 50 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, -0),
      fc.string({ maxLength: 3 }),
      fc.boolean(),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 3000 }), (values) => {
        const [column] = compactResult(
          [{ name: 'v' }],
          values.map((v) => ({ v })),
        ).columns;
        expect(column?.distinct).toBe(new Set(values).size);
        expect(column?.distinct_approx).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('matches a sort-based type-7 reference for quartiles below the exact cap', () => {
    const reference = (sorted: number[], q: number): number => {
      const h = (sorted.length - 1) * q;
      const lower = sorted[Math.floor(h)] as number;
      const upper = sorted[Math.min(Math.floor(h) + 1, sorted.length - 1)] as number;
      return lower + (h - Math.floor(h)) * (upper - lower);
    };
    const values = fc.array(fc.oneof(fc.integer({ min: -20, max: 20 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })), {
      minLength: 1,
      maxLength: 2000,
    });
    fc.assert(
      fc.property(values, (numbers) => {
        const [column] = compactResult(
          [{ name: 'x' }],
          numbers.map((x) => ({ x })),
        ).columns;
        const sorted = [...numbers].sort((a, b) => a - b);
        const round = (value: number) => Number(value.toPrecision(6));
        const exact =
          sorted.every((value) => Number.isSafeInteger(value)) &&
          [0.25, 0.5, 0.75].every((q) => Number.isSafeInteger(reference(sorted, q)));
        for (const [key, q] of [
          ['p25', 0.25],
          ['median', 0.5],
          ['p75', 0.75],
        ] as const) {
          const expected = exact ? reference(sorted, q) : round(reference(sorted, q));
          // One unit in the 6th significant digit of slack: the two interpolation formulas may round apart.
          expect(Math.abs((column?.[key] ?? Number.NaN) - expected)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(expected)));
        }
      }),
      { numRuns: 80 },
    );
  });

  it('orders quantiles: min ≤ p25 ≤ median ≤ p75 ≤ max', () => {
    const numbers = fc.array(fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.constant(Number.NaN)), { minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(numbers, (values) => {
        const [column] = compactResult(
          [{ name: 'x' }],
          values.map((x) => ({ x })),
        ).columns;
        if (column?.min === undefined) return;
        const ordered = [column.min, column.p25, column.median, column.p75, column.max] as number[];
        for (let index = 1; index < ordered.length; index += 1) expect(ordered[index]).toBeGreaterThanOrEqual(ordered[index - 1] as number);
      }),
    );
  });

  it(`never shows a value of a column with more than ${TOP_VALUE_CARDINALITY} distinct values as a top value`, () => {
    const values = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 20 }), { minLength: TOP_VALUE_CARDINALITY + 1, maxLength: 60 });
    fc.assert(
      fc.property(values, fc.integer({ min: 1, max: 5 }), (distinctValues, repeat) => {
        const rows = distinctValues.flatMap((value) => Array.from({ length: repeat }, () => ({ secret: value })));
        const [column] = compactResult([{ name: 'secret', type: 'VARCHAR' }], rows).columns;
        expect(column?.top).toBeUndefined();
      }),
    );
  });

  it('keeps the digest size bounded whatever the row count', () => {
    const wideRow = fc.array(fc.string({ minLength: 0, maxLength: 500 }), { minLength: 60, maxLength: 60 });
    fc.assert(
      fc.property(fc.array(wideRow, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 400 }), (templates, repeat) => {
        const columns = Array.from({ length: 60 }, (_, index) => ({ name: `column_with_a_long_name_${index}` }));
        const rows: Row[] = [];
        for (let index = 0; index < repeat; index += 1) {
          const template = templates[index % templates.length] as string[];
          rows.push(Object.fromEntries(columns.map((column, position) => [column.name, template[position] ?? null])));
        }
        // 40 summaries of ≤ ~1 KB (three 64-char top values) + 20 rows × 20 cells of ≤ ~100 bytes + names.
        expect(Buffer.byteLength(JSON.stringify(compactResult(columns, rows)))).toBeLessThan(100_000);
      }),
      { numRuns: 40 },
    );
  });

  it('is deterministic: the same input gives byte-identical output', () => {
    fc.assert(
      fc.property(table, ({ columns, rows }) => {
        const first = JSON.stringify(compactResult(columns, rows));
        const second = JSON.stringify(compactResult(structuredClone(columns), structuredClone(rows)));
        expect(second).toBe(first);
      }),
    );
  });
});
