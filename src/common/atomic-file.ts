import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

let sequence = 0;

export interface AtomicWriteOptions {
  /**
   * Also fsync the directory after the rename, so the new name itself survives a power loss (not only
   * the contents). For writes that must survive a crash of the machine; a process crash needs neither.
   */
  syncDirectory?: boolean;
}

/** Crash-safe write: temp file in the same directory, fsync, rename over the target (then, if asked, fsync the directory). */
export async function writeFileAtomic(path: string, contents: string, options: AtomicWriteOptions = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${sequence++}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(contents, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  if (options.syncDirectory) await syncDirectory(dirname(path));
}

/** fsync of a file's data (fdatasync), for appends that reached a point that must survive a crash. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** fsync of a directory, so names created or renamed in it are durable. A no-op where the platform cannot (Windows). */
export async function syncDirectory(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!['EISDIR', 'EINVAL', 'EPERM', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

/** Reads a text file; null when it does not exist. */
export async function readTextFile(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Reads and parses a JSON file; null when it does not exist. */
export async function readJsonFile(path: string): Promise<unknown | null> {
  const text = await readTextFile(path);
  return text === null ? null : (JSON.parse(text) as unknown);
}
