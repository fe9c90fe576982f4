import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

let sequence = 0;

/** Crash-safe write: temp file in the same directory, fsync, rename over the target. */
export async function writeFileAtomic(path: string, contents: string): Promise<void> {
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
}

/** Reads and parses a JSON file; null when it does not exist. */
export async function readJsonFile(path: string): Promise<unknown | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
