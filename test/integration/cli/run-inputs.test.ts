/**
 * `assay run` checks every input before it creates anything: a refused run leaves no project, no
 * run, no report and no output directory, and never re-points an existing project. Projects are
 * identified by warehouse and pack, so two warehouses with one pack are two projects.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { runSchema } from '../../../src/domain/index.js';
import { ERROR_MAPPING } from '../../../src/errors/index.js';
import { writeRunLease } from '../../../src/fleet/local/run-lease.js';
import { openRunStore } from '../../../src/store/index.js';
import { runCli } from '../../support/run-cli.js';

let workDir: string;
let social1: string;
let social2: string;
let dataDir: string;
let out: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-run-inputs-'));
  social1 = join(workDir, 'social1.duckdb');
  social2 = join(workDir, 'social2.duckdb');
  await generateDemoWarehouse({ kind: 'social', out: social1, scale: 0.2, truths: false });
  copyFileSync(social1, social2);
}, 60_000);
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

beforeEach(() => {
  dataDir = mkdtempSync(join(workDir, 'data-'));
  out = join(workDir, `out-${readdirSync(workDir).length}`);
  vi.stubEnv('ASSAY_DATA_DIR', dataDir);
  // these tests are about inputs and projects, not findings: a few mining statements keep each run short
  vi.stubEnv('ASSAY_MINING_MAX_QUERIES', '8');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function stored() {
  const store = await openRunStore('embedded', { dataDir });
  try {
    const projects = await store.listProjects();
    const runs = (await Promise.all(projects.map((project) => store.listRuns(project.id)))).flat();
    return { projects, runs };
  } finally {
    await store.close();
  }
}

const run = (...args: string[]) => runCli(['run', '--out', out, '--max-steps', '2', '--quiet', ...args]);

describe('when an input of assay run is wrong', () => {
  it.each([
    ['--max-steps 0', ['--max-steps', '0'], '--max-steps must be a whole number from 1 to 500, got "0"'],
    ['--max-steps abc', ['--max-steps', 'abc'], '--max-steps must be a whole number from 1 to 500, got "abc"'],
    ['--max-steps 100000', ['--max-steps', '100000'], '--max-steps must be a whole number from 1 to 500, got "100000"'],
    ['--min-steps above --max-steps', ['--max-steps', '3', '--min-steps', '5'], '--min-steps (5) must not exceed --max-steps (3)'],
  ])("refuses %s with the API's limits and creates nothing", async (_name, args, message) => {
    const outcome = await run('--warehouse', `duckdb:${social1}`, '--pack', 'social', ...args);
    expect(outcome.code, outcome.stderr).toBe(ERROR_MAPPING.validation.exitCode);
    expect(outcome.stderr).toContain(message);
    expect(outcome.stderr).not.toMatch(/"code":|ZodError/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(join(dataDir, 'store'))).toBe(false);
  });

  it('refuses an --out that is a file before running, and creates nothing', async () => {
    const file = join(workDir, 'not-a-dir');
    writeFileSync(file, 'x');
    const outcome = await runCli([
      'run',
      '--warehouse',
      `duckdb:${social1}`,
      '--pack',
      'social',
      '--out',
      join(file, 'reports'),
      '--quiet',
    ]);
    expect(outcome.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(outcome.stderr).toMatch(/\[validation\] --out .*: .*not-a-dir is a file, not a directory; choose a directory you can write to/);
    expect(existsSync(join(dataDir, 'store'))).toBe(false);
  });

  it('refuses an unknown pack and leaves no project, run or report', async () => {
    const outcome = await run('--warehouse', `duckdb:${social1}`, '--pack', 'nopack');
    expect(outcome.code).toBe(ERROR_MAPPING.not_found.exitCode);
    expect(outcome.stderr).toContain('no domain pack "nopack"');
    expect(await stored()).toEqual({ projects: [], runs: [] });
    expect(existsSync(out)).toBe(false);
  });

  it("refuses an unknown area naming the pack's areas, and creates nothing", async () => {
    const outcome = await run('--warehouse', `duckdb:${social1}`, '--pack', 'social', '--areas', 'nosuch');
    expect(outcome.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(outcome.stderr).toMatch(/pack "social" has no area\(s\) "nosuch" \(areas: /);
    expect(await stored()).toEqual({ projects: [], runs: [] });
  });

  it('explains a warehouse whose tables are all empty instead of running on it', async () => {
    const empty = join(workDir, 'empty.duckdb');
    const instance = await DuckDBInstance.create(empty);
    const connection = await instance.connect();
    await connection.run('CREATE TABLE events (id INTEGER, kind VARCHAR)');
    connection.closeSync();
    instance.closeSync();
    const outcome = await run('--warehouse', `duckdb:${empty}`, '--pack', 'social');
    expect(outcome.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(outcome.stderr).toMatch(/has 1 table\(s\) \(main\.events\) and every one is empty: there is nothing to discover/);
    expect(await stored()).toEqual({ projects: [], runs: [] });
  });
});

describe('when runs name warehouses and projects', () => {
  it('gives two warehouses with the same pack two projects, and reuses a project for its own warehouse', async () => {
    expect((await run('--warehouse', `duckdb:${social1}`, '--pack', 'social')).code).toBe(0);
    expect((await run('--warehouse', `duckdb:${social2}`, '--pack', 'social')).code).toBe(0);
    expect((await run('--warehouse', `duckdb:${social1}`, '--pack', 'social')).code).toBe(0);
    const { projects, runs } = await stored();
    expect(projects.map((project) => project.warehouse.url).sort()).toEqual([`duckdb:${social1}`, `duckdb:${social2}`]);
    const first = projects.find((project) => project.warehouse.url === `duckdb:${social1}`);
    expect(runs.filter((entry) => entry.project_id === first?.id)).toHaveLength(2);
  });

  it('refuses --project on another warehouse and leaves that project as it was', async () => {
    expect((await run('--warehouse', `duckdb:${social1}`, '--pack', 'social', '--project', 'mine')).code).toBe(0);
    const before = await stored();
    const refused = await run('--warehouse', `duckdb:${social2}`, '--pack', 'social', '--project', 'mine');
    expect(refused.code).toBe(ERROR_MAPPING.conflict.exitCode);
    expect(refused.stderr).toContain('a project is never re-pointed');
    expect(await stored()).toEqual(before);
  });

  describe('and the project already has a run in progress', () => {
    let holder: ChildProcess;
    beforeEach(() => {
      // a live process to hold the run's lease, as a running `assay run` would
      holder = spawn('sleep', ['600'], { stdio: 'ignore' });
    });
    afterEach(() => {
      holder.kill('SIGKILL');
    });

    it('refuses the new run, names the run and how to stop it, and changes nothing', async () => {
      expect((await run('--warehouse', `duckdb:${social1}`, '--pack', 'social', '--project', 'busy')).code).toBe(0);
      const store = await openRunStore('embedded', { dataDir });
      const stamp = new Date().toISOString();
      await store.createRun(
        runSchema.parse({
          id: 'run-20261127-000000-abcdef',
          project_id: 'busy',
          status: 'running',
          phase: 'exploration',
          settings: { max_steps: 5, min_steps: 0, llm: 'offline:analyst', pack: 'social', analysis_budget_tokens: 1000 },
          created_at: stamp,
          updated_at: stamp,
        }),
      );
      await store.close();
      await writeRunLease(
        join(dataDir, 'local-runs'),
        'run-20261127-000000-abcdef',
        { instanceId: 'other', pid: holder.pid!, host: (await import('node:os')).hostname() },
        { kind: 'cli' },
      );
      const before = await stored();
      const refused = await run('--warehouse', `duckdb:${social1}`, '--pack', 'social', '--project', 'busy');
      expect(refused.code).toBe(ERROR_MAPPING.conflict.exitCode);
      expect(refused.stderr).toContain(`project busy already has run run-20261127-000000-abcdef in progress by pid ${holder.pid}`);
      expect(refused.stderr).toContain('assay runs cancel run-20261127-000000-abcdef');
      expect(await stored()).toEqual(before);
    });
  });
});
