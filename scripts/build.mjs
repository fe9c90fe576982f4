#!/usr/bin/env node
// `npm run build`: compiles src into dist/ (tsconfig.build.json) and stamps the build
// (dist/.build-stamp, mtime = the build's start) so bin/assay.js runs it only while no source changed
// after it. The domain packs stay where they are (domain-packs/, found above the compiled modules). The one build path: npm ci's
// `prepare`, `npm run build` and the Dockerfile's build stage all run this file.
//
// `--if-possible` (npm's `prepare`, run by `npm ci`): a checkout without sources or without TypeScript
// (a production install) skips the build, and a failed build leaves the CLI on the sources instead
// of failing the install.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const ifPossible = process.argv.includes('--if-possible');
const dist = join(root, 'dist');

/** The compiler's own launcher (its package exports no path to it: found beside its package.json). */
function resolveTsc() {
  try {
    const manifest = createRequire(import.meta.url).resolve('typescript/package.json');
    const tsc = join(dirname(manifest), 'bin', 'tsc');
    return existsSync(tsc) ? tsc : undefined;
  } catch {
    return undefined;
  }
}

const tsc = resolveTsc();
if (!existsSync(join(root, 'src')) || tsc === undefined) {
  const why = tsc === undefined ? 'TypeScript is not installed' : 'there are no sources';
  if (!ifPossible) {
    process.stderr.write(`assay build: ${why}\n`);
    process.exit(1);
  }
  process.stdout.write(`assay build skipped: ${why}\n`);
  process.exit(0);
}

const startedAt = new Date();
try {
  rmSync(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
} catch (error) {
  rmSync(join(dist, '.build-stamp'), { force: true });
  if (!ifPossible) throw error;
  process.stdout.write('assay build failed: bin/assay.js runs the TypeScript sources instead (npm run build shows why)\n');
  process.exit(0);
}
const stamp = join(dist, '.build-stamp');
writeFileSync(stamp, `${JSON.stringify({ built_at: startedAt.toISOString(), node: process.version })}\n`);
utimesSync(stamp, startedAt, startedAt);
process.stdout.write(`assay build: dist/ in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(1)} s\n`);
