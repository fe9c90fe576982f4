import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResultJsonReader } from '../../../src/cli/result-json-reader.js';
import type { ResultColumn } from '../../../src/compaction/compact-result.js';
import type { Row } from '../../../src/domain/index.js';
import { ValidationError } from '../../../src/errors/index.js';

interface Read {
  /** Handler calls in order: `rows` (rowsStart), `row`, `columns`. */
  events: string[];
  rows: Row[];
  columns: ResultColumn[] | undefined;
}

/** Feed `text` to a reader in chunks of the given sizes (cycled); the whole text at once when none. */
function read(text: string, sizes: readonly number[] = [], source = 'stdin'): Read {
  const result: Read = { events: [], rows: [], columns: undefined };
  const reader = new ResultJsonReader(source, {
    rowsStart: () => result.events.push('rows'),
    row: (row) => {
      result.events.push('row');
      result.rows.push(row);
    },
    columns: (columns) => {
      result.events.push('columns');
      result.columns = columns;
    },
  });
  if (sizes.length === 0) reader.write(text);
  else {
    let offset = 0;
    for (let chunk = 0; offset < text.length; chunk += 1) {
      const size = sizes[chunk % sizes.length] as number;
      reader.write(text.slice(offset, offset + size));
      offset += size;
    }
  }
  reader.end();
  return result;
}

function failure(text: string, sizes: readonly number[] = []): ValidationError {
  try {
    read(text, sizes);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`read ${JSON.stringify(text)} without an error`);
}

/** Text that is hard to scan: quotes, backslashes, brackets, unicode escapes and characters outside the BMP. */
const TRICKY_TEXT = ['say "hi"', 'C:\\dir\\', '\\"', '{[}]', ']}', 'naïve ☃ 𝄞 😀', '\u2028', '\\u0041', '', ',', ':'];

describe('ResultJsonReader', () => {
  it('reads a top-level array of rows, each as soon as it is complete', () => {
    const result = read(' [ {"a": 1, "b": "x"} ,\n{"a": 2}\t] \n');
    expect(result.events).toEqual(['rows', 'row', 'row']);
    expect(result.rows).toEqual([{ a: 1, b: 'x' }, { a: 2 }]);
    expect(result.columns).toBeUndefined();
  });

  it('reads an empty array and an object with an empty rows array', () => {
    expect(read('[]').events).toEqual(['rows']);
    expect(read('{"rows":[ ]}').events).toEqual(['rows']);
  });

  it('reads columns before or after the rows, in document order, and skips other members', () => {
    const columns = '[{"name":"a","type":"BIGINT"},"b"]';
    const skipped = '"meta": {"x": [1, {"y": "]}\\"{"}], "z": null}, "rowCount": 2, "truncated": false, "note": "rows"';
    const before = read(`{${skipped}, "columns": ${columns}, "rows": [{"a": "7", "b": true}]}`);
    expect(before.events).toEqual(['columns', 'rows', 'row']);
    expect(before.columns).toEqual([{ name: 'a', type: 'BIGINT' }, { name: 'b' }]);
    const after = read(`{"rows": [{"a": "7", "b": true}], ${skipped}, "columns": ${columns}}`);
    expect(after.events).toEqual(['rows', 'row', 'columns']);
    expect(after.rows).toEqual([{ a: '7', b: true }]);
  });

  it('turns nested cells into their JSON text and leaves flat rows as parsed', () => {
    expect(read('[{"a": [1, {"b": "}"}], "c": {"d": null}, "e": "[x]"}]').rows).toEqual([
      { a: '[1,{"b":"}"}]', c: '{"d":null}', e: '[x]' },
    ]);
  });

  it('reads a key spelled with escapes as the key it spells', () => {
    expect(read('{"r\\u006fws": [{"a": 1}]}').rows).toEqual([{ a: 1 }]);
  });

  describe('when the text arrives in small chunks', () => {
    const document = (rows: Row[]) =>
      `{"columns": ["a", {"name": "b\\"", "type": "VARCHAR"}], "meta": {"s": "}]\\\\", "n": [1, 2.5e3, true]},\n "rows": [ ${rows
        .map((row) => JSON.stringify(row, null, rows.length % 2 === 0 ? 1 : 0))
        .join(' ,\r\n ')} ] }`;
    const row = fc.dictionary(
      fc.oneof(fc.constantFrom(...TRICKY_TEXT), fc.string({ maxLength: 6 })),
      fc.oneof(
        fc.constantFrom(...TRICKY_TEXT),
        fc.string({ unit: 'binary', maxLength: 12 }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
      ),
      { maxKeys: 5 },
    ) as fc.Arbitrary<Row>;

    it('reads every row and the columns exactly as one JSON.parse of the whole document, whatever the chunk sizes (1 to 7 characters)', () => {
      fc.assert(
        fc.property(
          fc.array(row, { maxLength: 8 }),
          fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }),
          (rows, sizes) => {
            const text = document(rows);
            const whole = JSON.parse(text) as { columns: unknown; rows: Row[] };
            const result = read(text, sizes);
            expect(result.rows).toEqual(whole.rows);
            expect(result.columns).toEqual([{ name: 'a' }, { name: 'b"', type: 'VARCHAR' }]);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('splits nowhere it matters: every split of a tricky document into two chunks reads the same', () => {
      const text = `[{"q": "a\\"b", "bs": "\\\\", "braces": "{[]}", "u": "\\u00e9\\ud834\\udd1e", "snow": "☃😀", "n": -1.5e-3, "t": true}, {"x": null}]`;
      const expected = JSON.parse(text) as Row[];
      for (let split = 1; split < text.length; split += 1) {
        const result = new ResultJsonReader('stdin', { rowsStart: () => {}, row: (value) => rows.push(value), columns: () => {} });
        const rows: Row[] = [];
        result.write(text.slice(0, split));
        result.write(text.slice(split));
        result.end();
        expect(rows, `split at ${split}`).toEqual(expected);
      }
    });
  });

  describe('when the input is wrong', () => {
    it.each([
      ['empty', '', /stdin is not valid JSON \(the input is empty\)/],
      ['a scalar', '42', /^stdin: expected a JSON array of row objects/],
      ['a string', '"rows"', /^stdin: expected a JSON array of row objects/],
      ['an object without rows', '{"columns": []}', /^stdin: expected a JSON array of row objects/],
      ['rows that are no array', '{"rows": {"a": 1}}', /"rows" must be an array of row objects/],
      ['rows twice', '{"rows": [], "rows": []}', /"rows" appears twice/],
      ['columns twice', '{"columns": [], "rows": [], "columns": []}', /"columns" appears twice/],
      ['bad columns', '{"columns": [3], "rows": []}', /"columns" entry 0 must be a name/],
      ['columns that are no array', '{"rows": [], "columns": {"a": 1}}', /"columns" must be an array/],
      ['an unterminated document', '[{"a": 1}', /the input ends at byte 9 before the JSON is complete/],
      ['an unterminated row', '[{"a": 1}, {"b": "x', /the input ends at byte 19 before the JSON is complete inside \[1\]/],
      ['a trailing comma', '[{"a": 1},]', /unexpected "]" at byte 10/],
      ['missing commas', '[{"a": 1} {"a": 2}]', /unexpected "\{" at byte 10/],
      ['mismatched brackets', '[{"a": [1}]', /unexpected "}" at byte 9/],
      ['data after the document', '[] []', /unexpected "\[" at byte 3/],
      ['a bad character at the top', 'x', /unexpected "x" at byte 0/],
      ['a missing colon', '{"rows" []}', /unexpected "\[" at byte 8/],
    ])('rejects %s with a ValidationError saying what was expected', (_, text, message) => {
      const error = failure(text);
      expect(error.message).toMatch(message);
      expect(error.message).toContain('expected a JSON array of row objects');
    });

    it('names the row that is not valid JSON and the byte it starts at, counting bytes, not characters', () => {
      // The bad row starts at character 51; the four non-ASCII characters before it take 6 more bytes.
      const error = failure('{"note": "ünïcødé ☃", "rows": [{"a": 1}, {"a": 1}, {"a": tru}]}', [3]);
      expect(error.message).toMatch(/^stdin is not valid JSON \(rows\[2\], which starts at byte 57: .+\); expected/);
      expect(error.issues).toEqual([{ path: 'rows[2]', message: 'not JSON' }]);
    });

    it('counts every row that is not an object and lists the first 20', () => {
      const text = `[${Array.from({ length: 30 }, (_, index) => (index % 2 === 0 ? '{"a": 1}' : `[${index}]`)).join(',')}, "x", 3, null]`;
      const error = failure(text, [5]);
      expect(error.message).toMatch(/^stdin: 18 row\(s\) are not objects \(first at \[1\]\); expected/);
      expect(error.issues).toHaveLength(18);
      expect(error.issues[0]).toEqual({ path: '[1]', message: 'expected an object mapping column name to value' });
      const many = failure(`{"rows": [${Array.from({ length: 25 }, () => '1').join(',')}]}`);
      expect(many.message).toMatch(/25 row\(s\) are not objects \(first at rows\[0\]\)/);
      expect(many.issues).toHaveLength(20);
      expect(many.issues[19]?.path).toBe('rows[19]');
    });

    it('hands over no row once one was not an object', () => {
      const rows: Row[] = [];
      const reader = new ResultJsonReader('stdin', { rowsStart: () => {}, row: (row) => rows.push(row), columns: () => {} });
      reader.write('[{"a": 1}, 2, {"a": 3}]');
      expect(() => reader.end()).toThrow(/1 row\(s\) are not objects \(first at \[1\]\)/);
      expect(rows).toEqual([{ a: 1 }]);
    });
  });
});
