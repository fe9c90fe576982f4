/**
 * The life of an `assay run` as a person meets it: SIGTERM and SIGINT without a terminal cancel it
 * cleanly (run `cancelled`, steps kept, project free, exit 143/130, a resume hint), `assay runs
 * resume` finishes it, a SIGKILLed run is found and marked instead of staying `running`, and
 * `assay runs cancel` stops a run driven by another process. Real processes, real signals.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import type { Run } from '../../../src/domain/index.js';
import { openRunStore } from '../../../src/store/index.js';
import { type FleetProcess, spawnCli } from '../../support/fleet-processes.js';

let workDir: string;
let warehouse: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-run-lifecycle-'));
  warehouse = join(workDir, 'gaming.duckdb');
  await generateDemoWarehouse({ kind: 'gaming', out: warehouse, scale: 0.2, truths: false });
}, 60_000);
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Each case starts two or three CLI processes; on 2 busy cores one can take tens of seconds to start. */
const CASE_TIMEOUT_MS = 180_000;

/** Polls until `check` holds: the condition is the event (a line in the output, a process gone), never a fixed sleep. */
async function waitUntil(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function env(dataDir: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? workDir, ASSAY_DATA_DIR: dataDir, NO_COLOR: '1' };
}

function assay(name: string, dataDir: string, args: readonly string[]): FleetProcess {
  return spawnCli({ name, args, env: env(dataDir), logDir: join(workDir, 'logs'), launcher: true });
}

async function finished(process: FleetProcess): Promise<{ code: number | null; output: string }> {
  const exit = await process.exited;
  return { code: exit.code, output: process.output() };
}

function runIdIn(output: string): string {
  const match = /\brun (run-[0-9]{8}-[0-9]{6}-[0-9a-f]{6})\b/.exec(output);
  if (!match?.[1]) throw new Error(`no run id in:\n${output}`);
  return match[1];
}

async function storedRun(dataDir: string, runId: string): Promise<{ run: Run | null; steps: number }> {
  const store = await openRunStore('embedded', { dataDir });
  try {
    return { run: await store.getRun(runId), steps: (await store.listSteps(runId)).length };
  } finally {
    await store.close();
  }
}

const longRun = (dataDir: string, out: string) => [
  'run',
  '--warehouse',
  `duckdb:${warehouse}`,
  '--pack',
  'gaming',
  '--max-steps',
  '300',
  '--out',
  out,
];

describe.each([
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const)('when an assay run without a terminal receives %s', (signal, exitCode) => {
  const dataDir = () => join(workDir, `data-${signal}`);
  const out = () => join(workDir, `out-${signal}`);
  let runId: string;

  it(
    `cancels the run cleanly, exits ${exitCode}, keeps the steps and says how to resume`,
    async () => {
      const child = assay(`run-${signal}`, dataDir(), longRun(dataDir(), out()));
      await waitUntil('exploration step 3', () => /step 3\/300/.test(child.output()));
      child.kill(signal);
      const { code, output } = await finished(child);
      expect(code, output).toBe(exitCode);
      runId = runIdIn(output);
      expect(output).toContain(`run ${runId}: cancelled by ${signal}`);
      expect(output).toContain(`resume it: assay runs resume ${runId}`);
      const { run, steps } = await storedRun(dataDir(), runId);
      expect(run?.status).toBe('cancelled');
      expect(steps).toBeGreaterThanOrEqual(3);
      expect(run?.steps_completed).toBe(steps);
      // no lease left behind: nothing will later mistake this run for a dead one
      expect(readdirSync(join(dataDir(), 'local-runs'))).toEqual([]);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'leaves the project free: the next run of the same warehouse and pack completes',
    async () => {
      const next = await finished(
        assay(`next-${signal}`, dataDir(), [
          'run',
          '--warehouse',
          `duckdb:${warehouse}`,
          '--pack',
          'gaming',
          '--max-steps',
          '3',
          '--out',
          out(),
        ]),
      );
      expect(next.code, next.output).toBe(0);
      expect(next.output).toMatch(/: completed/);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'resumes the cancelled run from its stored steps to the end',
    async () => {
      const before = await storedRun(dataDir(), runId);
      const resumed = await finished(assay(`resume-${signal}`, dataDir(), ['runs', 'resume', runId, '--out', out(), '--quiet']));
      expect(resumed.code, resumed.output).toBe(0);
      const after = await storedRun(dataDir(), runId);
      expect(after.run?.status).toBe('completed');
      expect(after.steps).toBeGreaterThan(before.steps);
      expect(existsSync(join(out(), runId, 'report.html'))).toBe(true);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('when an assay run is killed outright', () => {
  it(
    'is found by its stale lease and marked failed with how to resume it, and frees its project',
    async () => {
      const dataDir = join(workDir, 'data-kill');
      const out = join(workDir, 'out-kill');
      const child = assay('run-killed', dataDir, longRun(dataDir, out));
      await waitUntil('exploration step 3', () => /step 3\/300/.test(child.output()));
      await child.kill('SIGKILL');
      const listed = await finished(assay('list-after-kill', dataDir, ['runs', 'list']));
      expect(listed.code, listed.output).toBe(0);
      expect(listed.output).toMatch(/note: run (run-\S+) was left running by a process that is gone/);
      expect(listed.output).toContain('failed (interrupted: its process stopped)');
      const runId = /note: run (run-\S+) was left/.exec(listed.output)?.[1] ?? '';
      const { run } = await storedRun(dataDir, runId);
      expect(run?.status).toBe('failed');
      expect(run?.error).toMatch(
        new RegExp(`^interrupted: the \`assay run\` process that ran it \\(pid ${child.pid} on .*assay runs resume ${runId}`),
      );
      const next = await finished(
        assay('next-after-kill', dataDir, [
          'run',
          '--warehouse',
          `duckdb:${warehouse}`,
          '--pack',
          'gaming',
          '--max-steps',
          '2',
          '--out',
          out,
        ]),
      );
      expect(next.code, next.output).toBe(0);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('when assay runs cancel names a run another process is driving', () => {
  it(
    'stops that process cleanly and the run ends cancelled with its steps',
    async () => {
      const dataDir = join(workDir, 'data-cancel');
      const out = join(workDir, 'out-cancel');
      const child = assay('run-to-cancel', dataDir, longRun(dataDir, out));
      await waitUntil('exploration step 3', () => /step 3\/300/.test(child.output()));
      const runId = readdirSync(join(dataDir, 'local-runs'))[0]?.replace(/\.json$/, '') ?? '';
      const cancel = await finished(assay('cancel', dataDir, ['runs', 'cancel', runId]));
      expect(cancel.code, cancel.output).toBe(0);
      expect(cancel.output).toContain(`run ${runId} is cancelled`);
      expect((await child.exited).code).toBe(143);
      const { run, steps } = await storedRun(dataDir, runId);
      expect(run?.status).toBe('cancelled');
      expect(steps).toBeGreaterThanOrEqual(3);
    },
    CASE_TIMEOUT_MS,
  );
});
