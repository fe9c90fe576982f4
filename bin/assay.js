#!/usr/bin/env node
// Launcher: runs the built CLI when dist/ holds a build of the current sources (`npm run build`, which
// `npm ci` runs too), else the TypeScript sources through tsx's loader registered in this process (no
// second process: same pid, signals, stdio and exit code as the built CLI).
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isFreshBuild, staleBuildNotice } from './fresh-build.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
let entry = join(root, 'dist', 'src', 'cli', 'main.js');
if (!isFreshBuild(root)) {
  // said once per change of the sources, on stderr: stdout stays the command's
  const notice = staleBuildNotice(root);
  if (notice) process.stderr.write(`${notice}\n`);
  const { register } = await import('tsx/esm/api');
  // the repository's tsconfig, whatever directory the command runs from
  register({ tsconfig: join(root, 'tsconfig.json') });
  entry = join(root, 'src', 'cli', 'main.ts');
}
const { main } = await import(pathToFileURL(entry).href);
process.exit(await main(process.argv));
