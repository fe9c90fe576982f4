import { describe, expect, it } from 'vitest';
import {
  CELL_MAX_CHARS,
  COMPACT_INLINE_THRESHOLD,
  DIGEST_MAX_COLUMNS,
  HEAD_TAIL_ROW_COUNT,
  ROW_MAX_COLUMNS,
  TOP_VALUE_CARDINALITY,
  columnsFromRows,
  compactResult,
} from '../../../src/compaction/compact-result.js';
import { EXACT_DISTINCT_CAP } from '../../../src/compaction/distinct-counter.js';
import { QUANTILE_EXACT_CAP } from '../../../src/compaction/quantile-sample.js';
import { compactResultSchema, type Row } from '../../../src/domain/index.js';

function rowsOf(count: number, make: (index: number) => Row): Row[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

describe('compactResult', () => {
  describe('when a numeric column has known values', () => {
    it('reports type-7 quartiles and exact min/max', () => {
      const digest = compactResult(
        [{ name: 'x' }],
        [1, 2, 3, 4].map((x) => ({ x })),
      );
      expect(digest.columns[0]).toEqual({
        name: 'x',
        kind: 'number',
        null_count: 0,
        distinct: 4,
        min: 1,
        p25: 1.75,
        median: 2.5,
        p75: 3.25,
        max: 4,
      });
    });

    it('rounds non-integer statistics to 6 significant digits, all together', () => {
      const digest = compactResult([{ name: 'x' }], [{ x: 0.1 + 0.2 }, { x: 1 / 3 }]);
      expect(digest.columns[0]).toMatchObject({ min: 0.3, max: 0.333333, median: 0.316667 });
    });
  });

  describe('when cells are NaN or infinite', () => {
    it('counts them as nulls and keeps them out of the statistics', () => {
      const digest = compactResult(
        [{ name: 'x' }],
        [{ x: 5 }, { x: Number.NaN }, { x: Number.POSITIVE_INFINITY }, { x: Number.NEGATIVE_INFINITY }, { x: 7 }],
      );
      expect(digest.columns[0]).toMatchObject({ kind: 'number', null_count: 3, distinct: 2, min: 5, max: 7, median: 6 });
      expect(digest.all_rows?.[1]).toEqual({ x: null });
    });
  });

  describe('when the engine type is given', () => {
    it('uses it, coercing exact-decimal strings to numbers', () => {
      const digest = compactResult(
        [{ name: 'amount', type: 'DECIMAL(18,2)' }],
        [{ amount: '10.50' }, { amount: '2.25' }, { amount: 'NaN' }],
      );
      expect(digest.columns[0]).toMatchObject({ kind: 'number', null_count: 1, min: 2.25, max: 10.5 });
    });

    it('marks the column mixed when a value contradicts the type', () => {
      const digest = compactResult([{ name: 'n', type: 'BIGINT' }], [{ n: 1 }, { n: 'abc' }]);
      expect(digest.columns[0]).toMatchObject({ kind: 'mixed', distinct: 2 });
      expect(digest.columns[0]?.min).toBeUndefined();
    });

    it('keeps a date-looking varchar a string', () => {
      const digest = compactResult([{ name: 'd', type: 'VARCHAR' }], [{ d: '2024-01-01' }]);
      expect(digest.columns[0]?.kind).toBe('string');
    });
  });

  describe('when the kind is inferred from values', () => {
    it('recognises ISO-8601 dates and timestamps, ordered by instant not by text', () => {
      const digest = compactResult(
        [{ name: 't' }],
        [{ t: '2024-03-01T10:00:00+02:00' }, { t: '2024-03-01 09:00:00Z' }, { t: '2024-02-29' }, { t: null }],
      );
      expect(digest.columns[0]).toMatchObject({
        kind: 'timestamp',
        null_count: 1,
        distinct: 3,
        min_time: '2024-02-29',
        max_time: '2024-03-01 09:00:00Z',
      });
    });

    it('calls a column of numbers and strings mixed, and an all-null column null', () => {
      const digest = compactResult(
        [{ name: 'm' }, { name: 'z' }],
        [
          { m: 1, z: null },
          { m: 'a', z: null },
        ],
      );
      expect(digest.columns.map((column) => column.kind)).toEqual(['mixed', 'null']);
    });

    it('treats a missing key as null', () => {
      const digest = compactResult([{ name: 'a' }, { name: 'b' }], [{ a: 1 }, { a: 2, b: true }]);
      expect(digest.columns[1]).toMatchObject({ kind: 'boolean', null_count: 1, distinct: 1 });
    });
  });

  describe('when a string column has few distinct values', () => {
    it('lists the top 3 by count, ties by value', () => {
      const values = ['b', 'a', 'c', 'a', 'b', 'd', 'c'];
      const digest = compactResult(
        [{ name: 's' }],
        values.map((s) => ({ s })),
      );
      expect(digest.columns[0]?.top).toEqual([
        { value: 'a', count: 2 },
        { value: 'b', count: 2 },
        { value: 'c', count: 2 },
      ]);
    });
  });

  describe('when a string column has more than TOP_VALUE_CARDINALITY distinct values', () => {
    it('shows no top values at all', () => {
      const rows = rowsOf(500, (index) => ({ email: `user${index % (TOP_VALUE_CARDINALITY + 1)}@example.com` }));
      const digest = compactResult([{ name: 'email' }], rows);
      expect(digest.columns[0]?.distinct).toBe(TOP_VALUE_CARDINALITY + 1);
      expect(digest.columns[0]?.top).toBeUndefined();
    });
  });

  describe('when the result is small', () => {
    it(`inlines up to ${COMPACT_INLINE_THRESHOLD} rows in all_rows and leaves head_rows empty`, () => {
      const digest = compactResult(
        [{ name: 'i' }],
        rowsOf(COMPACT_INLINE_THRESHOLD, (i) => ({ i })),
      );
      expect(digest.all_rows).toHaveLength(COMPACT_INLINE_THRESHOLD);
      expect(digest.head_rows).toEqual([]);
      expect(digest.tail_rows).toBeUndefined();
    });
  });

  describe('when the result is larger than the inline threshold', () => {
    it('keeps the first and last rows only', () => {
      const digest = compactResult(
        [{ name: 'i' }],
        rowsOf(COMPACT_INLINE_THRESHOLD + 1, (i) => ({ i })),
      );
      expect(digest.all_rows).toBeUndefined();
      expect(digest.head_rows.map((row) => row.i)).toEqual([0, 1, 2, 3, 4]);
      expect(digest.tail_rows?.map((row) => row.i)).toEqual([16, 17, 18, 19, 20]);
      expect(digest.head_rows).toHaveLength(HEAD_TAIL_ROW_COUNT);
    });

    it('accepts a streamed iterable', () => {
      function* generate(): Generator<Row> {
        for (let i = 0; i < 1000; i += 1) yield { i };
      }
      const digest = compactResult([{ name: 'i' }], generate());
      expect(digest.row_count).toBe(1000);
      expect(digest.tail_rows?.at(-1)).toEqual({ i: 999 });
    });
  });

  describe('when a cell is huge', () => {
    it('cuts it with a marker naming the cut length', () => {
      const digest = compactResult([{ name: 'blob' }], [{ blob: 'x'.repeat(10_000) }]);
      const cell = digest.all_rows?.[0]?.blob as string;
      expect(cell).toBe(`${'x'.repeat(CELL_MAX_CHARS)}…(+${10_000 - CELL_MAX_CHARS} chars)`);
    });
  });

  describe('when the result is wide', () => {
    it('summarises the least-null columns in result order and names the omitted ones', () => {
      const columns = Array.from({ length: 250 }, (_, index) => ({ name: `c${index}` }));
      // Columns with an odd index are entirely null, so the densest ones are the even ones.
      const rows = rowsOf(30, (row) => Object.fromEntries(columns.map((column, index) => [column.name, index % 2 === 0 ? row : null])));
      const digest = compactResult(columns, rows);
      expect(digest.columns).toHaveLength(DIGEST_MAX_COLUMNS);
      expect(digest.columns.map((column) => column.name).slice(0, 3)).toEqual(['c0', 'c2', 'c4']);
      expect(digest.column_count).toBe(250);
      expect(digest.omitted_columns?.[0]).toBe('c1');
      expect(Object.keys(digest.head_rows[0] ?? {})).toHaveLength(ROW_MAX_COLUMNS);
    });
  });

  describe('when a column has more distinct values than the exact cap', () => {
    it('switches to an estimate within 3 % and says so', () => {
      const count = EXACT_DISTINCT_CAP * 5;
      const digest = compactResult(
        [{ name: 'id' }],
        rowsOf(count, (index) => ({ id: `id-${index}` })),
      );
      const column = digest.columns[0];
      expect(column?.distinct_approx).toBe(true);
      expect(Math.abs((column?.distinct ?? 0) - count) / count).toBeLessThan(0.03);
    });
  });

  describe('when a column has thousands of distinct strings, below the exact cap', () => {
    it('still counts them exactly (by fingerprint past the first 2,048)', () => {
      const rows = rowsOf(12_000, (index) => ({ email: `user${index % 7_000}@example.com` }));
      const column = compactResult([{ name: 'email', type: 'VARCHAR' }], rows).columns[0];
      expect(column?.distinct).toBe(7_000);
      expect(column?.distinct_approx).toBeUndefined();
    });
  });

  describe('when timestamps are written differently', () => {
    it('counts distinct instants, not distinct texts', () => {
      const digest = compactResult(
        [{ name: 't', type: 'TIMESTAMP WITH TIME ZONE' }],
        [{ t: '2024-03-01T10:00:00+02:00' }, { t: '2024-03-01 08:00:00Z' }, { t: '2024-03-01T08:00:00.000Z' }, { t: '2024-03-02' }],
      );
      expect(digest.columns[0]).toMatchObject({
        kind: 'timestamp',
        distinct: 2,
        min_time: '2024-03-01T10:00:00+02:00',
        max_time: '2024-03-02',
      });
    });
  });

  describe('when a numeric column has more values than the quantile cap', () => {
    it('estimates quartiles within 2 % of rank from the reservoir, with exact min and max', () => {
      const count = QUANTILE_EXACT_CAP * 10;
      const digest = compactResult(
        [{ name: 'v' }],
        rowsOf(count, (index) => ({ v: (index * 7919) % count })),
      );
      const column = digest.columns[0];
      expect(column).toMatchObject({ quantiles_approx: true, min: 0, max: count - 1 });
      expect(Math.abs((column?.median ?? 0) - count / 2) / count).toBeLessThan(0.02);
      expect(Math.abs((column?.p25 ?? 0) - count / 4) / count).toBeLessThan(0.02);
    });
  });

  it('produces a document the domain schema accepts', () => {
    const digest = compactResult(
      [{ name: 'a' }, { name: 'b' }],
      rowsOf(50, (i) => ({ a: i, b: i % 2 === 0 })),
    );
    expect(() => compactResultSchema.parse(digest)).not.toThrow();
  });

  it('derives columns from rows in first-seen key order', () => {
    expect(columnsFromRows([{ b: 1 }, { a: 2, b: 3 }])).toEqual([{ name: 'b' }, { name: 'a' }]);
  });
});
