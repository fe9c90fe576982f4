import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalFiles, journalLine, readJournal } from '../../../src/store/journal.js';

describe('readJournal', () => {
  it('reads every line, with or without a final newline', () => {
    expect(readJournal(`${journalLine({ a: 1 })}${journalLine([2])}`)).toEqual({ entries: [{ a: 1 }, [2]], torn: false });
    expect(readJournal('{"a":1}\n{"b":2}')).toEqual({ entries: [{ a: 1 }, { b: 2 }], torn: false });
    expect(readJournal('')).toEqual({ entries: [], torn: false });
  });

  it('keeps the lines before a cut-short one and says the file is torn', () => {
    const whole = `${journalLine({ ops: [1] })}${journalLine({ ops: [2] })}`;
    for (let cut = 1; cut < journalLine({ ops: [3] }).length - 1; cut++) {
      const text = `${whole}${journalLine({ ops: [3] }).slice(0, cut)}`;
      expect(readJournal(text)).toEqual({ entries: [{ ops: [1] }, { ops: [2] }], torn: true });
    }
  });

  it('writes values holding newlines on one line', () => {
    const line = journalLine({ text: 'two\nlines' });
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(readJournal(line).entries).toEqual([{ text: 'two\nlines' }]);
  });
});

describe('JournalFiles', () => {
  let dir = '';
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends in order through one open handle, syncs only what was appended, and reopens after close', async () => {
    dir = await mkdtemp(join(tmpdir(), 'assay-journal-'));
    const files = new JournalFiles();
    const path = join(dir, 'a.jsonl');
    await files.append(path, journalLine(1));
    await files.append(path, journalLine(2));
    expect(await files.sync(path)).toBe(true);
    expect(await files.sync(path)).toBe(false);
    await files.close(path);
    await files.append(path, journalLine(3));
    await files.syncAll();
    expect(await files.sync(path)).toBe(false);
    await files.closeAll();
    expect(readJournal(await readFile(path, 'utf8')).entries).toEqual([1, 2, 3]);
  });

  it('keeps at most 64 handles open, closing idle ones without losing what they wrote', async () => {
    dir = await mkdtemp(join(tmpdir(), 'assay-journal-'));
    const files = new JournalFiles();
    const paths = Array.from({ length: 80 }, (_, index) => join(dir, `${index}.jsonl`));
    for (const path of paths) await files.append(path, journalLine(path));
    for (const path of paths) await files.append(path, journalLine('again'));
    await files.syncAll();
    await files.closeAll();
    for (const path of paths) expect(readJournal(await readFile(path, 'utf8')).entries).toEqual([path, 'again']);
  });
});
