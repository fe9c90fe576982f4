#!/usr/bin/env node
// Launcher: runs the built CLI when there is one, else the TypeScript sources through tsx's loader
// registered in this process (no second process: same pid, signals, stdio and exit code as the built CLI).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const built = join(root, 'dist', 'src', 'cli', 'main.js');
let entry = built;
if (!existsSync(built)) {
  const { register } = await import('tsx/esm/api');
  // the repository's tsconfig, whatever directory the command runs from
  register({ tsconfig: join(root, 'tsconfig.json') });
  entry = join(root, 'src', 'cli', 'main.ts');
}
const { main } = await import(pathToFileURL(entry).href);
process.exit(await main(process.argv));
