#!/usr/bin/env node
// Launcher: runs the built CLI when dist/ holds a build of the current sources (`npm run build`, which
// `npm ci` runs too), else the TypeScript sources through tsx's loader registered in this process (no
// second process: same pid, signals, stdio and exit code as the built CLI). tsx is a development
// dependency: without it (a production install) a stale or missing build is an error that says to build.
// It is the `bin` of its own package (bin/package.json, a `file:bin` dependency of the root package), so
// npx finds it in node_modules/.bin at once instead of installing the root package into its cache.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isFreshBuild, staleBuildNotice } from './fresh-build.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
let entry = join(root, 'dist', 'src', 'cli', 'main.js');
if (!isFreshBuild(root)) {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes("'tsx'")) throw error;
    // a production install (npm ci --omit=dev) has no tsx: it runs only a build
    process.stderr.write(
      `assay: ${join(root, 'dist')} holds no build of the current sources, and tsx (a development dependency) is not installed to run them.\n` +
        'Build the CLI: npm ci && npm run build (or run the built image, whose entry point is dist/src/cli/main.js).\n',
    );
    process.exit(78);
  }
  // said once per change of the sources, on stderr: stdout stays the command's
  const notice = staleBuildNotice(root);
  if (notice) process.stderr.write(`${notice}\n`);
  const { register } = tsx;
  // the repository's tsconfig, whatever directory the command runs from
  register({ tsconfig: join(root, 'tsconfig.json') });
  entry = join(root, 'src', 'cli', 'main.ts');
}
const { main, exitWhenWritten, endQuietlyWhenReaderCloses } = await import(pathToFileURL(entry).href);
endQuietlyWhenReaderCloses();
// exits once stdout and stderr are flushed: a reader on a pipe gets the whole output
await exitWhenWritten(await main(process.argv));
