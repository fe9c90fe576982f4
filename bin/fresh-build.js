// Whether dist/ holds a build of the sources as they are now: the launcher runs it only then, so an
// edit after `npm run build` (or a pull) runs the sources through tsx instead of stale JavaScript.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Written by scripts/build.mjs when a build succeeds, with the build's start as its mtime. */
export const BUILD_STAMP = join('dist', '.build-stamp');
/** What the build compiles (tsconfig.build.json) plus the prompt templates copied with it. */
const SOURCE_DIRS = ['src', 'queues', 'workers'];

/** True when the stamp exists and no source file changed after the build started. */
export function isFreshBuild(root) {
  let builtAt;
  try {
    builtAt = statSync(join(root, BUILD_STAMP)).mtimeMs;
  } catch {
    return false;
  }
  for (const dir of SOURCE_DIRS) {
    const base = join(root, dir);
    // an installed package may ship only the build
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && statSync(join(entry.parentPath, entry.name)).mtimeMs > builtAt) return false;
    }
  }
  return true;
}
