/**
 * Temporary directories that go away with the test file: `test/support/cleanup-setup.ts` removes
 * them after the file's last hook, and an exit hook catches scripts run outside vitest (benchmarks).
 * A test run leaves nothing in TMPDIR (`.ci/run` counts what is left).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];
let hooked = false;

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeTempDirs);
  }
  return dir;
}

/** Removes every directory `tempDir` made so far (also called at exit). */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
