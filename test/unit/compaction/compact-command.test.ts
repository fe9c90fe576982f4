import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { digestResultInput, digestResultStream } from '../../../src/cli/commands/compact.js';
import { main } from '../../../src/cli/main.js';
import { columnsFromRows, compactResult } from '../../../src/compaction/compact-result.js';
import type { Row } from '../../../src/domain/index.js';
import { ValidationError } from '../../../src/errors/index.js';

/** `text` as a stream of byte chunks of `size` bytes, which split multi-byte characters. */
function bytesOf(text: string, size: number): Readable {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) chunks.push(bytes.subarray(offset, offset + size));
  return Readable.from(chunks);
}

function copiesLeft(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('assay-compact-'));
}

/** 30 rows (more than are inlined), with a VARCHAR column of dates and a BIGINT column of decimal text, which only their declared types explain. */
const rows: Row[] = Array.from({ length: 30 }, (_, index) => ({
  id: String(1000 + index),
  day: `2024-01-${String(1 + (index % 28)).padStart(2, '0')}`,
  city: ['Zürich', 'Kraków', '東京'][index % 3] ?? null,
}));
const declared = [
  { name: 'id', type: 'BIGINT' },
  { name: 'day', type: 'VARCHAR' },
  { name: 'city', type: 'VARCHAR' },
];

describe('assay compact input', () => {
  it('accepts an array of row objects, derives the columns, and shows nested cells as JSON text', async () => {
    const digest = await digestResultStream(Readable.from(['[{"a":1,"b":{"x":2}},{"c":null}]']), 'stdin');
    const expectedRows: Row[] = [{ a: 1, b: '{"x":2}' }, { c: null }];
    expect(digest).toStrictEqual(compactResult(columnsFromRows(expectedRows), expectedRows));
    expect(digest.columns.map((column) => column.name)).toEqual(['a', 'b', 'c']);
  });

  it('accepts {columns, rows} with typed and bare column names', async () => {
    const digest = await digestResultStream(
      Readable.from(['{"columns":[{"name":"a","type":"BIGINT"},"b"],"rows":[{"a":"7","b":true}]}']),
      'f.json',
    );
    expect(digest).toStrictEqual(compactResult([{ name: 'a', type: 'BIGINT' }, { name: 'b' }], [{ a: '7', b: true }]));
    expect(digest.columns[0]).toMatchObject({ name: 'a', kind: 'number', min: 7 });
  });

  it.each([
    ['not JSON', '{', /is not valid JSON/],
    ['a scalar', '42', /expected a JSON array of row objects/],
    ['rows that are not objects', '[1, {"a": 1}]', /1 row\(s\) are not objects \(first at \[0\]\)/],
    ['bad columns', '{"columns": [3], "rows": []}', /"columns" entry 0 must be a name/],
  ])('rejects %s with a ValidationError saying what was expected', async (_, text, message) => {
    const reading = digestResultStream(Readable.from([text]), 'stdin');
    await expect(reading).rejects.toThrow(ValidationError);
    await expect(digestResultStream(Readable.from([text]), 'stdin')).rejects.toThrow(message);
  });

  describe('when the input arrives in byte chunks that split characters', () => {
    it('reads it as one piece (the digest of the rows, whatever the chunk size)', async () => {
      const expected = compactResult(declared, rows);
      const text = JSON.stringify({ columns: declared, rows });
      for (const size of [1, 2, 3, 5, 7, 64]) expect(await digestResultStream(bytesOf(text, size), 'stdin')).toStrictEqual(expected);
    });
  });

  describe('when the columns come after the rows', () => {
    const text = JSON.stringify({ rows, rowCount: rows.length, columns: declared });
    const expected = compactResult(declared, rows);

    it('reads stdin again from a temporary copy, with the declared columns and types, and removes the copy', async () => {
      const before = copiesLeft();
      const digest = await digestResultStream(bytesOf(text, 7), 'stdin');
      expect(digest).toStrictEqual(expected);
      // The types decide: dates in a VARCHAR column are strings, decimal text in a BIGINT column numbers.
      expect(digest.columns.map((column) => column.kind)).toEqual(['number', 'string', 'string']);
      expect(copiesLeft()).toEqual(before);
    });

    it('reads a re-readable input again instead of copying it', async () => {
      let opened = 0;
      const digest = await digestResultStream(bytesOf(text, 100), 'rows.json', () => {
        opened += 1;
        return bytesOf(text, 100);
      });
      expect(digest).toStrictEqual(expected);
      expect(opened).toBe(1);
    });

    it('removes the copy when the input turns out to be wrong', async () => {
      const before = copiesLeft();
      await expect(digestResultStream(bytesOf(`{"rows": [{"a": 1}], "columns": ["a"], "rows": []}`, 3), 'stdin')).rejects.toThrow(
        /"rows" appears twice/,
      );
      expect(copiesLeft()).toEqual(before);
    });
  });

  it('reads the rows once when the columns come first or the input is an array', async () => {
    const reread = vi.fn(() => Readable.from(['[]']));
    expect(await digestResultStream(bytesOf(JSON.stringify({ columns: declared, rows }), 50), 'f.json', reread)).toStrictEqual(
      compactResult(declared, rows),
    );
    expect(await digestResultStream(bytesOf(JSON.stringify(rows), 50), 'f.json', reread)).toStrictEqual(
      compactResult(columnsFromRows(rows), rows),
    );
    expect(reread).not.toHaveBeenCalled();
  });

  describe('when the input is a file', () => {
    let directory: string;
    beforeAll(() => {
      directory = mkdtempSync(join(tmpdir(), 'assay-test-compact-'));
    });
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    it('reads the file, twice when its columns come after its rows', async () => {
      const file = join(directory, 'late-columns.json');
      writeFileSync(file, JSON.stringify({ rows, columns: declared }));
      expect(await digestResultInput(file)).toStrictEqual(compactResult(declared, rows));
    });

    it('says which input it cannot read', async () => {
      const missing = join(directory, 'missing.json');
      await expect(digestResultInput(missing)).rejects.toThrow(new RegExp(`cannot read ${missing}: ENOENT`));
      await expect(digestResultInput(directory)).rejects.toThrow(ValidationError);
    });

    it('prints the digest from `assay compact --input`', async () => {
      const file = join(directory, 'rows.json');
      writeFileSync(file, JSON.stringify(rows));
      const written: string[] = [];
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        written.push(String(chunk));
        return true;
      });
      try {
        expect(await main(['node', 'assay', 'compact', '--input', file])).toBe(0);
      } finally {
        write.mockRestore();
      }
      expect(JSON.parse(written.join(''))).toStrictEqual(JSON.parse(JSON.stringify(compactResult(columnsFromRows(rows), rows))));
    });
  });
});
