import { describe, expect, it } from 'vitest';
import { parseResultJson } from '../../../src/cli/commands/compact.js';
import { ValidationError } from '../../../src/errors/index.js';

describe('assay compact input', () => {
  it('accepts an array of row objects and derives the columns', () => {
    expect(parseResultJson('[{"a":1,"b":{"x":2}},{"c":null}]', 'stdin')).toEqual({
      columns: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
      rows: [{ a: 1, b: '{"x":2}' }, { c: null }],
    });
  });

  it('accepts {columns, rows} with typed and bare column names', () => {
    const parsed = parseResultJson('{"columns":[{"name":"a","type":"BIGINT"},"b"],"rows":[{"a":"7","b":true}]}', 'f.json');
    expect(parsed.columns).toEqual([{ name: 'a', type: 'BIGINT' }, { name: 'b' }]);
  });

  it.each([
    ['not JSON', '{', /is not valid JSON/],
    ['a scalar', '42', /expected a JSON array of row objects/],
    ['rows that are not objects', '[1, {"a": 1}]', /1 row\(s\) are not objects \(first at \[0\]\)/],
    ['bad columns', '{"columns": [3], "rows": []}', /"columns" entry 0 must be a name/],
  ])('rejects %s with a ValidationError saying what was expected', (_, text, message) => {
    expect(() => parseResultJson(text, 'stdin')).toThrow(ValidationError);
    expect(() => parseResultJson(text, 'stdin')).toThrow(message);
  });
});
