// Whether dist/ holds a build of the sources as they are now: the launcher runs it only then, so an
// edit after `npm run build` (or a pull) runs the sources through tsx instead of stale JavaScript.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written by scripts/build.mjs when a build succeeds, with the build's start as its mtime. */
export const BUILD_STAMP = join('dist', '.build-stamp');
/** Touched when the launcher has said the build is stale, so it says so once per change, not on every command. */
export const STALE_NOTICE = join('dist', '.stale-notice');
/** What the build compiles (tsconfig.build.json). */
const SOURCE_DIRS = ['src'];

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** True when some source file changed after `sinceMs`. */
function sourcesChangedSince(root, sinceMs) {
  for (const dir of SOURCE_DIRS) {
    const base = join(root, dir);
    // an installed package may ship only the build
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && statSync(join(entry.parentPath, entry.name)).mtimeMs > sinceMs) return true;
    }
  }
  return false;
}

/** True when the stamp exists and no source file changed after the build started. */
export function isFreshBuild(root) {
  const builtAt = mtimeOf(join(root, BUILD_STAMP));
  return builtAt !== undefined && !sourcesChangedSince(root, builtAt);
}

/**
 * The one-line warning for a stale (or missing) build, or undefined when it was already given for the
 * sources as they are: the notice file is touched when the warning is shown, and a source edited
 * after that brings the warning back once.
 */
export function staleBuildNotice(root) {
  const notice = join(root, STALE_NOTICE);
  const noticedAt = mtimeOf(notice);
  if (noticedAt !== undefined && !sourcesChangedSince(root, noticedAt)) return undefined;
  try {
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(notice, `${new Date().toISOString()}\n`);
  } catch {
    // a read-only checkout: the warning then shows every time, which is better than never
  }
  const built = existsSync(join(root, BUILD_STAMP));
  return built
    ? 'assay: sources changed since the last build, so this runs them through tsx (a slower start); `npm run build` makes it fast again'
    : 'assay: there is no build (dist/), so this runs the sources through tsx (a slower start); `npm run build` makes it fast';
}
