/**
 * Append-only JSON-lines files, as the embedded stores use them: one JSON value per line, appended with
 * a single write. A crash can only cut the last line short (appends are sequential), so a reader keeps
 * every line up to the first one that does not parse and reports that the file ended torn; the writer
 * then rewrites the file whole before appending again, so nothing is ever appended after a torn line.
 */
import { closeSync, fdatasync as fdatasyncCallback, openSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';

export interface JournalContents {
  entries: unknown[];
  /** A line did not parse: the file ends in (or holds) a torn write, and everything from it on was dropped. */
  torn: boolean;
}

export function readJournal(text: string): JournalContents {
  const entries: unknown[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    try {
      entries.push(JSON.parse(line) as unknown);
    } catch {
      return { entries, torn: true };
    }
  }
  return { entries, torn: false };
}

/** One journal line (JSON never contains a raw newline). */
export function journalLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Append descriptors kept open at once; the least recently used idle one is closed past this. */
const OPEN_JOURNALS = 64;

const fdatasync = promisify(fdatasyncCallback);

/**
 * Journals open for appending, so an append is one write instead of open, write and close. An append
 * is a synchronous write of one line: it only copies the line to the page cache (microseconds, a tenth
 * of an asynchronous write's cost), and a line is never half in the file when the call returns. The
 * fsync is asynchronous. Callers serialise the appends of one path (the store's per-run lock). Close a
 * path before removing or replacing its file: a descriptor keeps writing to the file it opened.
 */
export class JournalFiles {
  private readonly open = new Map<string, { fd: number; busy: number }>();
  /** Paths appended to since their last fsync. */
  private readonly unsynced = new Set<string>();

  private acquire(path: string): { fd: number; busy: number } {
    let journal = this.open.get(path);
    if (journal) this.open.delete(path);
    else journal = { fd: openSync(path, 'a'), busy: 0 };
    // most recently used last
    this.open.set(path, journal);
    return journal;
  }

  async append(path: string, text: string): Promise<void> {
    const journal = this.acquire(path);
    this.unsynced.add(path);
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(journal.fd, bytes, written, bytes.length - written);
    this.closeIdleBeyond(OPEN_JOURNALS);
  }

  /** fdatasync of the path if anything was appended to it since the last one; true when it synced. */
  async sync(path: string): Promise<boolean> {
    if (!this.unsynced.has(path)) return false;
    const journal = this.acquire(path);
    journal.busy++;
    try {
      this.unsynced.delete(path);
      await fdatasync(journal.fd);
    } catch (error) {
      this.unsynced.add(path);
      throw error;
    } finally {
      journal.busy--;
    }
    return true;
  }

  async syncAll(): Promise<void> {
    for (const path of [...this.unsynced]) await this.sync(path);
  }

  /** Closes the path's descriptor and forgets it (call before the file is removed or replaced). */
  async close(path: string): Promise<void> {
    this.unsynced.delete(path);
    const journal = this.open.get(path);
    if (!journal) return;
    this.open.delete(path);
    closeSync(journal.fd);
  }

  async closeAll(): Promise<void> {
    for (const path of [...this.open.keys()]) await this.close(path);
  }

  private closeIdleBeyond(limit: number): void {
    for (const [path, journal] of this.open) {
      if (this.open.size <= limit) return;
      if (journal.busy > 0) continue;
      // unsynced appends stay known: sync() opens the file again
      this.open.delete(path);
      closeSync(journal.fd);
    }
  }
}
