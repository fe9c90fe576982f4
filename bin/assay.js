#!/usr/bin/env node
// Thin launcher: runs the TypeScript CLI through tsx so `npx assay` works without a build step.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const built = join(root, 'dist', 'src', 'cli', 'main.js');
const { existsSync } = await import('node:fs');
if (existsSync(built)) {
  const { main } = await import(built);
  process.exit(await main(process.argv));
} else {
  const tsx = join(root, 'node_modules', '.bin', 'tsx');
  const result = spawnSync(tsx, [join(root, 'src', 'cli', 'main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
