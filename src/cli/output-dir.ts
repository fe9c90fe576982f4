/**
 * `--out` is checked before a run exists, so a bad output directory is reported at once instead of
 * after the whole run. Nothing is created here: the directory is made when the artefacts are written.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ValidationError } from '../errors/index.js';

function unusable(flag: string, given: string, why: string): ValidationError {
  return new ValidationError(`${flag} ${given}: ${why}; choose a directory you can write to`, [{ path: flag, message: why }]);
}

/**
 * Resolves `given` and checks that it is, or could be created as, a writable directory: the path
 * itself when it exists, else its nearest existing ancestor. Returns the absolute path.
 */
export async function checkOutputDir(given: string, flag = '--out'): Promise<string> {
  const target = resolve(given);
  let probe = target;
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(probe)).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a part of the path is a file; going up finds it and says which
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(probe) !== probe) {
        probe = dirname(probe);
        continue;
      }
      throw unusable(flag, given, `it cannot be read (${code ?? 'unknown error'})`);
    }
    if (!isDirectory) {
      throw unusable(flag, given, probe === target ? 'it is a file, not a directory' : `${probe} is a file, not a directory`);
    }
    try {
      await access(probe, constants.W_OK | constants.X_OK);
    } catch {
      throw unusable(flag, given, probe === target ? 'it is not writable' : `${probe} is not writable, so it cannot be created`);
    }
    return target;
  }
}
