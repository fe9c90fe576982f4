/**
 * A checkout whose sources are newer than its build runs the sources through tsx, which starts
 * slower: the launcher says so once per change of the sources, not on every command and not never.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isFreshBuild, staleBuildNotice } from '../../../bin/fresh-build.js';

const root = mkdtempSync(join(tmpdir(), 'assay-stale-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function touch(path: string, secondsAgo: number): void {
  writeFileSync(path, 'x');
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, at, at);
}

describe('when the sources change after the build', () => {
  it('warns on the first command, stays quiet after, and warns again after the next edit', () => {
    mkdirSync(join(root, 'dist'), { recursive: true });
    mkdirSync(join(root, 'src'), { recursive: true });
    touch(join(root, 'dist', '.build-stamp'), 60);
    touch(join(root, 'src', 'a.ts'), 120);
    expect(isFreshBuild(root)).toBe(true);

    touch(join(root, 'src', 'a.ts'), 30);
    expect(isFreshBuild(root)).toBe(false);
    expect(staleBuildNotice(root)).toMatch(/^assay: sources changed since the last build, .*`npm run build` makes it fast again$/);
    expect(staleBuildNotice(root)).toBeUndefined();
    expect(staleBuildNotice(root)).toBeUndefined();

    // an edit after the warning: the sources differ from what the warning was about
    writeFileSync(join(root, 'src', 'b.ts'), 'y');
    utimesSync(join(root, 'src', 'b.ts'), new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));
    expect(staleBuildNotice(root)).toMatch(/sources changed since the last build/);
  });

  it('says there is no build at all when dist/ was never built', () => {
    const bare = mkdtempSync(join(root, 'bare-'));
    mkdirSync(join(bare, 'src'));
    touch(join(bare, 'src', 'a.ts'), 10);
    expect(isFreshBuild(bare)).toBe(false);
    expect(staleBuildNotice(bare)).toMatch(/^assay: there is no build \(dist\/\)/);
  });
});
