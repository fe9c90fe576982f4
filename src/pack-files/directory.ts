/**
 * The filesystem adapter of the pack-file port: packs as directories (`<root>/<slug>/pack.json` and
 * `prompts/*.md`), the shipped ones under `domain-packs/`, found by walking up from this module so the
 * same code works from `src/` and from the build in `dist/src/`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError, PackError } from '../errors/index.js';
import type { PackFileSource, PackLibrary } from './port.js';

const PACKS_DIR_NAME = 'domain-packs';
const PROMPTS_DIR = 'prompts';
/** src/pack-files → the repository is 2 levels up, dist/src/pack-files → 3; a little headroom for other layouts. */
const PACK_ROOT_SEARCH_DEPTH = 6;

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The shipped `domain-packs/` directory: the nearest one above this module. */
export function shippedPackRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  let directory = here;
  for (let level = 0; level < PACK_ROOT_SEARCH_DEPTH; level += 1) {
    const candidate = join(directory, PACKS_DIR_NAME);
    if (isDirectory(candidate)) return candidate;
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  throw new PackError(
    `no ${PACKS_DIR_NAME}/ directory found above ${here}: install Assay with its ${PACKS_DIR_NAME}/ beside src/ (or dist/), or name a pack directory`,
  );
}

/** One pack directory's files. The directory is read when a file is asked for, not before. */
export function directoryPackFiles(directory: string): PackFileSource {
  return {
    label: directory,
    read(path) {
      const file = join(directory, path);
      return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    },
    promptFiles() {
      const prompts = join(directory, PROMPTS_DIR);
      return isDirectory(prompts) ? readdirSync(prompts) : [];
    },
  };
}

/**
 * The packs in `root`, one directory per slug (hidden directories, `.name`, are not packs). Without
 * `root`, the shipped `domain-packs/`, looked up at first use: a process that never loads a pack
 * never needs one.
 */
export function directoryPackLibrary(root?: string): PackLibrary {
  let resolved: string | undefined = root === undefined ? undefined : resolve(root);
  const location = (): string => {
    resolved ??= shippedPackRoot();
    return resolved;
  };
  const slugs = (): string[] => {
    const directory = location();
    if (!isDirectory(directory)) throw new PackError(`domain pack directory ${directory} does not exist`);
    return readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  };
  return {
    get location() {
      return location();
    },
    slugs,
    pack(slug) {
      return slugs().includes(slug) ? directoryPackFiles(join(location(), slug)) : undefined;
    },
    directory(path) {
      const absolute = resolve(path);
      if (!isDirectory(absolute)) throw new NotFoundError(`domain pack directory ${absolute} does not exist`, { pack: absolute });
      return directoryPackFiles(absolute);
    },
  };
}
