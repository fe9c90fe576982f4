/**
 * The built CLI (dist/, made by `npm run build` and by `npm ci`'s prepare) is what bin/assay.js runs
 * whenever it is fresh, so the commands a newcomer types first must work from it as they do from the
 * sources: listing packs, generating a demo warehouse and running discovery on it with the offline
 * analyst. Skipped, with the reason, when dist/ holds no fresh build (sources edited since).
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isFreshBuild } from '../../../bin/fresh-build.js';
import { tempDir } from '../../support/temp-dir.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const fresh = isFreshBuild(REPO_ROOT);
if (!fresh) console.info('skipping the built-CLI checks: dist/ holds no build of the current sources (npm run build makes one)');

describe.skipIf(!fresh)('when bin/assay.js runs the built CLI', () => {
  const workDir = tempDir('assay-built-cli-');
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  function assay(args: readonly string[]) {
    const result = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'assay.js'), ...args], {
      cwd: workDir,
      env: { ...process.env, ASSAY_DATA_DIR: join(workDir, 'data'), NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { code: result.status, output: `${result.stdout}${result.stderr}` };
  }

  it('lists the packs, makes a demo warehouse and completes a run on it', () => {
    const packs = assay(['packs', 'list']);
    expect(packs.code, packs.output).toBe(0);
    expect(packs.output).toMatch(/ecommerce/);

    const warehouse = join(workDir, 'shop.duckdb');
    const demo = assay(['demo-data', '--kind', 'ecommerce', '--scale', '0.2', '--out', warehouse]);
    expect(demo.code, demo.output).toBe(0);

    const run = assay(['run', '--warehouse', `duckdb:${warehouse}`, '--pack', 'ecommerce', '--llm', 'offline:analyst', '--max-steps', '4']);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/run run-\S+: completed/);
    // three commands of up to 120 s each (the run mines the warehouse before analysis)
  }, 360_000);
});
