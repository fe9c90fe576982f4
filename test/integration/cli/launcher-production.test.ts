/**
 * A production install (`npm ci --omit=dev`) has no tsx: when its build is missing or older than the
 * sources, bin/assay.js must say to build instead of crashing on the missing loader.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp-dir.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

describe('when the launcher finds no fresh build and no tsx (a production install)', () => {
  const root = tempDir('assay-launcher-prod-');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('exits 78 saying to run npm run build, without running anything', () => {
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'src'));
    for (const file of ['assay.js', 'fresh-build.js', 'package.json']) copyFileSync(join(REPO_ROOT, 'bin', file), join(root, 'bin', file));
    writeFileSync(join(root, 'src', 'main.ts'), 'export {};\n');
    // an empty node_modules between the launcher and any tsx further up the tree
    mkdirSync(join(root, 'node_modules'));
    const result = spawnSync(process.execPath, [join(root, 'bin', 'assay.js'), '--version'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(78);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/holds no build of the current sources, and tsx \(a development dependency\) is not installed/);
    expect(result.stderr).toMatch(/npm run build/);
    expect(result.stderr).not.toMatch(/runs them through tsx|Cannot find package/);
  });
});
