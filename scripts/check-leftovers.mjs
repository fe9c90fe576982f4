#!/usr/bin/env node
// Counts what a command left behind: `snapshot FILE` records the entries of TMPDIR and the untracked
// or ignored files of the working tree (node_modules/ and dist/ aside); `compare FILE` lists what is
// new since then, with sizes, and exits 1 if anything is. `.ci/run` wraps `npm test` in the two, with
// a TMPDIR of its own, so "the tests leave nothing behind" is a check rather than a hope.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Build output and installed packages are expected to change under a test run; nothing else is. */
const EXPECTED_DIRS = ['node_modules', 'dist'];

/**
 * tsx's compile cache (`tsx-<uid>`, made by processes the tests start with `--import tsx`): a cache
 * every later run reuses, of bounded size, not something a test forgot.
 */
const EXPECTED_TMP = [/^tsx-\d+$/];

function tmpEntries() {
  return readdirSync(tmpdir())
    .filter((name) => !EXPECTED_TMP.some((pattern) => pattern.test(name)))
    .map((name) => `tmp:${name}`);
}

function worktreeEntries() {
  const output = execFileSync(
    'git',
    ['status', '--porcelain', '--untracked-files=all', '--ignored', '--', '.', ...EXPECTED_DIRS.map((dir) => `:!${dir}`)],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  return output
    .split('\n')
    .filter((line) => line.startsWith('?? ') || line.startsWith('!! '))
    .map((line) => line.slice(3))
    .map((path) => `worktree:${path}`);
}

function sizeOf(path) {
  try {
    const stats = statSync(path);
    if (!stats.isDirectory()) return stats.size;
    return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
  } catch {
    return 0;
  }
}

function pathOf(entry) {
  return entry.startsWith('tmp:') ? join(tmpdir(), entry.slice(4)) : entry.slice('worktree:'.length);
}

const [mode, file] = process.argv.slice(2);
if ((mode !== 'snapshot' && mode !== 'compare') || !file) {
  process.stderr.write('usage: check-leftovers.mjs snapshot|compare FILE\n');
  process.exit(2);
}
const now = [...tmpEntries(), ...worktreeEntries()];
if (mode === 'snapshot') {
  writeFileSync(file, `${JSON.stringify(now)}\n`);
  process.exit(0);
}
const before = new Set(JSON.parse(readFileSync(file, 'utf8')));
const left = now.filter((entry) => !before.has(entry));
if (left.length === 0) {
  process.stdout.write(`leftovers: none (TMPDIR ${tmpdir()} and the working tree are as they were)\n`);
  process.exit(0);
}
const bytes = left.reduce((sum, entry) => sum + sizeOf(pathOf(entry)), 0);
process.stdout.write(`leftovers: ${left.length} new entries, ${(bytes / 1024 / 1024).toFixed(1)} MB\n`);
for (const entry of left.slice(0, 50)) process.stdout.write(`  ${entry} (${(sizeOf(pathOf(entry)) / 1024).toFixed(0)} KB)\n`);
if (left.length > 50) process.stdout.write(`  … and ${left.length - 50} more\n`);
process.exit(1);
