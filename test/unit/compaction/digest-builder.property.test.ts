import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPACT_INLINE_THRESHOLD,
  DIGEST_MAX_COLUMNS,
  type ResultColumn,
  columnsFromRows,
  compactResult,
  createDigestBuilder,
} from '../../../src/compaction/compact-result.js';
import type { Cell, Row } from '../../../src/domain/index.js';

const cell: fc.Arbitrary<Cell> = fc.oneof(
  fc.constant(null),
  fc.double(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('12.50', '-7', 'NaN', 'Infinity', 'a', 'b', ''),
  fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
);

/**
 * Column names: plain ones, integer-like ones (which every object lists first, in numeric order, whatever
 * the insertion order), the empty name and non-ASCII ones. `__proto__` is left out: as a key of an object
 * literal it sets the prototype instead of making a column.
 */
function namePool(width: number): string[] {
  const special = ['10', '2', '', 'naïve', 'with space'];
  return [...special, ...Array.from({ length: Math.max(0, width - special.length) }, (_, index) => `c${index}`)].slice(0, width);
}

/**
 * Rows that do not agree on their keys: most have every column in order (the feed's fast path), others
 * a shuffled subset (missing keys, other orders), and the set of keys may grow late in the result.
 */
function heterogeneousRows(maxWidth: number, maxRows: number): fc.Arbitrary<Row[]> {
  return fc.integer({ min: 1, max: maxWidth }).chain((width) => {
    const names = namePool(width);
    const fullRow = fc.array(cell, { minLength: width, maxLength: width }).map((cells) => names.map((name, index) => [name, cells[index]]));
    const partialRow = fc
      .shuffledSubarray(names)
      .chain((keys) =>
        fc.array(cell, { minLength: keys.length, maxLength: keys.length }).map((cells) => keys.map((key, index) => [key, cells[index]])),
      );
    // The first rows may know only some columns: the rest arrive later.
    const early = fc.integer({ min: 0, max: width }).map((count) => new Set(names.slice(0, count)));
    return fc
      .tuple(
        early,
        fc.integer({ min: 0, max: maxRows }),
        fc.array(fc.oneof({ weight: 3, arbitrary: fullRow }, { weight: 2, arbitrary: partialRow }), { maxLength: maxRows }),
      )
      .map(([earlyNames, earlyCount, entries]) =>
        entries.map(
          (pairs, index) =>
            Object.fromEntries(index < earlyCount ? pairs.filter(([name]) => earlyNames.has(name as string)) : pairs) as Row,
        ),
      );
  });
}

const TYPES = [undefined, 'BIGINT', 'DOUBLE', 'DECIMAL(18,2)', 'VARCHAR', 'TIMESTAMP', 'DATE', 'BOOLEAN', 'STRUCT(a INT)'];

/** A declared column list for `rows`: some of their columns, some they lack, a repeated one, any types. */
function declaredColumns(rows: Row[]): fc.Arbitrary<ResultColumn[]> {
  const names = [...columnsFromRows(rows).map((column) => column.name), 'absent', 'also_absent'];
  return fc.array(
    fc
      .record({ name: fc.constantFrom(...names), type: fc.constantFrom(...TYPES) })
      .map(({ name, type }) => (type === undefined ? { name } : { name, type })),
    { maxLength: names.length + 2 },
  );
}

function built(rows: readonly Row[], columns?: readonly ResultColumn[]) {
  const builder = createDigestBuilder(columns);
  for (const row of rows) builder.add(row);
  return builder.finish();
}

function* streamOf(rows: readonly Row[]): Generator<Row> {
  yield* rows;
}

describe('createDigestBuilder', () => {
  it('without a column list, finds the columns as it goes and builds the digest of compactResult(columnsFromRows(rows), rows)', () => {
    fc.assert(
      fc.property(heterogeneousRows(12, 300), (rows) => {
        expect(built(rows)).toStrictEqual(compactResult(columnsFromRows(rows), rows));
      }),
      { numRuns: 150 },
    );
  });

  it(`does so for results wider than DIGEST_MAX_COLUMNS (${DIGEST_MAX_COLUMNS}), where the densest columns are chosen`, () => {
    fc.assert(
      fc.property(heterogeneousRows(70, 60), (rows) => {
        expect(built(rows)).toStrictEqual(compactResult(columnsFromRows(rows), rows));
      }),
      { numRuns: 40 },
    );
  });

  it('does so past 128 columns, where rows are read by name instead of by walking their keys', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 129, max: 150 })
          .chain((width) =>
            fc
              .array(fc.shuffledSubarray(namePool(width), { minLength: 100 }), { minLength: 1, maxLength: 30 })
              .map((keyLists) =>
                keyLists.map(
                  (keys, row) =>
                    Object.fromEntries(keys.map((key, index) => [key, (row * 7 + index) % 5 === 0 ? null : row + index])) as Row,
                ),
              ),
          ),
        (rows) => {
          expect(built(rows)).toStrictEqual(compactResult(columnsFromRows(rows), rows));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('with a column list, builds the digest compactResult gives for the same rows in an array and in a stream', () => {
    const withColumns = heterogeneousRows(50, 120).chain((rows) => fc.tuple(fc.constant(rows), declaredColumns(rows)));
    fc.assert(
      fc.property(withColumns, ([rows, columns]) => {
        const digest = built(rows, columns);
        expect(digest).toStrictEqual(compactResult(columns, rows));
        expect(digest).toStrictEqual(compactResult(columns, streamOf(rows)));
      }),
      { numRuns: 120 },
    );
  });

  describe('when a column first appears in a later row', () => {
    it('counts it null in every row before, and keeps the columns in first-seen order', () => {
      const rows: Row[] = [
        ...Array.from({ length: 300 }, (_, index): Row => ({ id: index })),
        { late: 'x', id: 300 },
        { id: 301, later: true },
      ];
      const digest = built(rows);
      expect(digest.columns.map((column) => [column.name, column.null_count])).toEqual([
        ['id', 0],
        ['late', 301],
        ['later', 301],
      ]);
      expect(digest.tail_rows?.at(-2)).toEqual({ id: 300, late: 'x', later: null });
    });
  });

  it('builds the digest of no rows, with and without columns', () => {
    expect(built([])).toStrictEqual(compactResult([], []));
    expect(built([], [{ name: 'a', type: 'BIGINT' }])).toStrictEqual(compactResult([{ name: 'a', type: 'BIGINT' }], []));
    expect(built([]).all_rows).toEqual([]);
  });

  it('refuses rows after finish, and a second finish', () => {
    const builder = createDigestBuilder();
    builder.add({ a: 1 });
    expect(builder.finish().row_count).toBe(1);
    expect(() => builder.add({ a: 2 })).toThrow(/after finish/);
    expect(() => builder.finish()).toThrow(/twice/);
  });

  it(`shows the first rows of a small result whole (≤ ${COMPACT_INLINE_THRESHOLD} rows) with the columns found later`, () => {
    const digest = built([{ a: 1 }, { b: 'two' }]);
    expect(digest.all_rows).toEqual([
      { a: 1, b: null },
      { a: null, b: 'two' },
    ]);
  });
});
