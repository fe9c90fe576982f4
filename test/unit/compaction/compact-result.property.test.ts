import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOP_VALUE_CARDINALITY, compactResult } from '../../../src/compaction/compact-result.js';
import { parseIsoTimestamp } from '../../../src/compaction/iso-timestamp.js';
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

  it('reads a streamed result exactly as the same rows in an array, wide ones included', () => {
    const wide = fc.integer({ min: 1, max: 60 }).chain((width) =>
      fc.record({
        width: fc.constant(width),
        rows: fc.array(fc.array(cell, { minLength: width, maxLength: width }), { maxLength: 40 }),
      }),
    );
    fc.assert(
      fc.property(wide, ({ width, rows }) => {
        const columns = Array.from({ length: width }, (_, index) => ({
          name: `c${index}`,
          ...(index % 3 === 0 ? { type: 'DOUBLE' } : {}),
        }));
        const table = rows.map((cells) => Object.fromEntries(columns.map((column, index) => [column.name, cells[index] ?? null])) as Row);
        function* stream(): Generator<Row> {
          yield* table;
        }
        expect(JSON.stringify(compactResult(columns, stream()))).toBe(JSON.stringify(compactResult(columns, table)));
      }),
      { numRuns: 60 },
    );
  });

  it('reads decimal text in a number column as Number() does', () => {
    const decimal = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }).map((value) => value.toFixed(2)),
      fc.integer().map(String),
      fc.stringMatching(/^-?[0-9]{0,17}(\.[0-9]{0,9})?$/),
    );
    fc.assert(
      fc.property(fc.array(decimal, { minLength: 1, maxLength: 50 }), (texts) => {
        const fromText = compactResult(
          [{ name: 'amount', type: 'DECIMAL(18,2)' }],
          texts.map((amount) => ({ amount })),
        ).columns[0];
        // The same values handed over as numbers (what Number() reads), unreadable text as a contradiction.
        const fromNumbers = compactResult(
          [{ name: 'amount', type: 'DECIMAL(18,2)' }],
          texts.map((amount) => {
            const value = amount.trim() === '' ? Number.NaN : Number(amount);
            return { amount: Number.isFinite(value) ? value : amount };
          }),
        ).columns[0];
        expect(fromText).toEqual(fromNumbers);
      }),
    );
  });

  it('reads ISO-8601 text as the full pattern does (the fast path for common shapes agrees with it)', () => {
    const pattern = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;
    const reference = (value: string): number | undefined => {
      if (value.length < 10 || value.length > 40) return undefined;
      const match = pattern.exec(value);
      if (!match) return undefined;
      const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', offset] = match;
      if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > 31) return undefined;
      if (Number(hour) > 24 || Number(minute) > 59 || Number(second) > 60) return undefined;
      const digits = offset === undefined || /^[Zz]$/.test(offset) ? '' : offset.slice(1).replace(':', '');
      const offsetMinutes =
        digits === '' ? 0 : (offset?.startsWith('-') ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
      const fractionMs = fraction === '' ? 0 : Number(`0.${fraction}`) * 1000;
      return (
        Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) +
        fractionMs -
        offsetMinutes * 60_000
      );
    };
    const two = (max: number) => fc.integer({ min: 0, max }).map((value) => String(value).padStart(2, '0'));
    const timestamp = fc
      .record({
        year: fc.integer({ min: 0, max: 9999 }).map((value) => String(value).padStart(4, '0')),
        month: two(14),
        day: two(33),
        time: fc.option(fc.tuple(fc.constantFrom('T', ' ', 't'), two(26), two(61), two(62)), { nil: undefined }),
        fraction: fc.option(fc.tuple(fc.constantFrom('.', ','), fc.stringMatching(/^[0-9]{0,11}$/)), { nil: undefined }),
        zone: fc.constantFrom('', 'Z', 'z', ' ', '+02:00', '-0130', 'ZZ', ' Z', '+5'),
      })
      .map(({ year, month, day, time, fraction, zone }) => {
        if (time === undefined) return `${year}-${month}-${day}${zone}`;
        const [separator, hour, minute, second] = time;
        return `${year}-${month}-${day}${separator}${hour}:${minute}:${second}${fraction ? fraction.join('') : ''}${zone}`;
      });
    fc.assert(
      fc.property(timestamp, (value) => {
        expect(parseIsoTimestamp(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });
});
