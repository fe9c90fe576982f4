/**
 * The embedded store belongs to one process: its per-run locks live in memory, so two processes on the
 * same directory would overwrite each other's updates. Opening takes `<dir>/store.lock` (created
 * exclusively, holding the pid); a lock whose process is gone is taken over. Opens within the process
 * share the lock (reference-counted), and it is released when the last one closes or the process exits.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';

const LOCK_FILE = 'store.lock';
const held = new Map<string, number>();
let exitHookInstalled = false;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const dir of held.keys()) rmSync(join(dir, LOCK_FILE), { force: true });
  });
}

function tryCreate(path: string): boolean {
  try {
    const fd = openSync(path, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Takes (or shares) the directory's lock; returns the release function. Throws ConfigError when another live process holds it. */
export function lockStoreDirectory(dir: string): () => void {
  const count = held.get(dir);
  if (count !== undefined) {
    held.set(dir, count + 1);
    return once(dir);
  }
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path)) {
      held.set(dir, 1);
      releaseAllOnExit();
      return once(dir);
    }
    const owner = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    if (Number.isInteger(owner) && owner !== process.pid && processAlive(owner)) {
      throw new ConfigError(
        `the embedded store in ${dir} is in use by process ${owner}: it serves one process only. ` +
          'To run several processes (API and workers), use a shared store: ASSAY_STORE=postgres://… (or MONGO_URL=mongodb://…)',
        { details: { storeHeldBy: owner } },
      );
    }
    // left by a process that is gone (or by this one before a restart of the same pid): take it over
    rmSync(path, { force: true });
  }
  throw new ConfigError(`could not take the embedded store lock ${path}: another process keeps taking it`);
}

function once(dir: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const count = (held.get(dir) ?? 1) - 1;
    if (count > 0) {
      held.set(dir, count);
      return;
    }
    held.delete(dir);
    rmSync(join(dir, LOCK_FILE), { force: true });
  };
}
