/**
 * The embedded store's files after crashes: a journal or steps file cut short, a journal left behind by
 * a fold, a store written by an older version, and a process killed while it writes.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSchema } from '../../../src/domain/index.js';
import { createEmbeddedRunStore } from '../../../src/store/index.js';
import { realisticLlmCall, realisticRun, realisticStep } from '../../support/realistic-run.js';
import { makeRun } from './contract.js';
import { tempDir } from '../../support/temp-dir.js';

const CHILD = fileURLToPath(new URL('./embedded-crash-child.ts', import.meta.url));

const freshDir = () => tempDir('assay-store-journal-');
const runFile = (dir: string, id: string, name: string) => join(dir, 'runs', id, name);
const addCall = (index: number) => (run: ReturnType<typeof realisticRun>) => ({
  ...run,
  telemetry: { ...run.telemetry, llm_calls: [...run.telemetry.llm_calls, realisticLlmCall(index)] },
});

describe('the embedded store after a crash', () => {
  it('drops a journal line cut short, keeps every update before it, and writes run.json whole before appending again', async () => {
    const dir = freshDir();
    const store = createEmbeddedRunStore({ dir });
    await store.createRun(realisticRun('r'));
    await store.updateRun('r', addCall(1));
    const kept = await store.updateRun('r', addCall(2));
    await store.close();
    appendFileSync(runFile(dir, 'r', 'run.journal'), '{"ops":[{"op":"set","path":["status"],"val');

    const reopened = createEmbeddedRunStore({ dir });
    expect(await reopened.getRun('r')).toEqual(kept);
    const next = await reopened.updateRun('r', addCall(3));
    expect(existsSync(runFile(dir, 'r', 'run.journal'))).toBe(false);
    expect(runSchema.parse(JSON.parse(readFileSync(runFile(dir, 'r', 'run.json'), 'utf8')))).toEqual(next);
    const later = await reopened.updateRun('r', addCall(4));
    await reopened.close();
    const third = createEmbeddedRunStore({ dir });
    expect(await third.getRun('r')).toEqual(later);
    await third.close();
  });

  it('ignores a journal left behind by a fold that stopped before removing it', async () => {
    const dir = freshDir();
    const store = createEmbeddedRunStore({ dir });
    await store.createRun(realisticRun('r'));
    await store.updateRun('r', addCall(1));
    await store.updateRun('r', (run) => ({ ...run, progress: 90 }));
    const journal = runFile(dir, 'r', 'run.journal');
    copyFileSync(journal, `${journal}.saved`);
    // a finished run is folded into run.json, and its journal removed
    const finished = await store.updateRun('r', (run) => ({ ...run, status: 'completed', phase: 'complete', progress: 100 }));
    expect(existsSync(journal)).toBe(false);
    await store.close();
    copyFileSync(`${journal}.saved`, journal);

    const reopened = createEmbeddedRunStore({ dir });
    expect(await reopened.getRun('r')).toEqual(finished);
    expect(existsSync(journal)).toBe(false);
    await reopened.close();
  });

  it('reads a store an older version wrote (run.json without later defaults, one file per step) and carries on', async () => {
    const dir = freshDir();
    const { recoveries: _recoveries, schema_budget: _budget, ...older } = makeRun('old');
    mkdirSync(join(dir, 'runs', 'old', 'steps'), { recursive: true });
    writeFileSync(runFile(dir, 'old', 'run.json'), JSON.stringify(older, null, 1));
    for (const step of [1, 2])
      writeFileSync(join(dir, 'runs', 'old', 'steps', `0000${step}.json`), JSON.stringify(realisticStep('old', step), null, 1));

    const store = createEmbeddedRunStore({ dir });
    expect((await store.getRun('old'))?.recoveries).toBe(0);
    expect((await store.listSteps('old')).map((step) => step.query_purpose)).toEqual([
      realisticStep('old', 1).query_purpose,
      realisticStep('old', 2).query_purpose,
    ]);
    const updated = await store.updateRun('old', (run) => ({ ...run, status: 'running' }));
    await store.upsertStep({ ...realisticStep('old', 2), query_purpose: 'redone' });
    await store.upsertStep(realisticStep('old', 3));
    const last = await store.updateRun('old', (run) => ({ ...run, progress: 40 }));
    await store.close();

    expect(updated.status).toBe('running');
    const reopened = createEmbeddedRunStore({ dir });
    expect(await reopened.getRun('old')).toEqual(last);
    expect((await reopened.listSteps('old')).map((step) => [step.step, step.query_purpose])).toEqual([
      [1, realisticStep('old', 1).query_purpose],
      [2, 'redone'],
      [3, realisticStep('old', 3).query_purpose],
    ]);
    await reopened.close();
  });

  it('drops a steps line cut short and appends after it safely', async () => {
    const dir = freshDir();
    const store = createEmbeddedRunStore({ dir });
    await store.createRun(makeRun('s'));
    await store.upsertStep(realisticStep('s', 1));
    await store.upsertStep(realisticStep('s', 2));
    await store.close();
    appendFileSync(runFile(dir, 's', 'steps.jsonl'), '{"run_id":"s","step":3,"act');

    const reopened = createEmbeddedRunStore({ dir });
    expect((await reopened.listSteps('s')).map((step) => step.step)).toEqual([1, 2]);
    await reopened.upsertStep(realisticStep('s', 3));
    await reopened.close();
    const third = createEmbeddedRunStore({ dir });
    expect((await third.listSteps('s')).map((step) => step.step)).toEqual([1, 2, 3]);
    await third.close();
  });

  it('loses nothing that was written when its process is killed mid-run', async () => {
    const dir = freshDir();
    const setup = createEmbeddedRunStore({ dir });
    await setup.createRun({ ...realisticRun('crash'), steps_completed: 0, phase: 'exploration' });
    await setup.close();

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, 'crash'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let reported = 0;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        for (const match of chunk.toString().matchAll(/done (\d+)/g)) reported = Math.max(reported, Number(match[1]));
        if (reported >= 25) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', (code) => reject(new Error(`the writer exited on its own (${code}): ${stderr}`)));
    });
    await new Promise((resolve) => child.once('exit', resolve));

    // the killed process's lock is stale: this process takes it over
    const store = createEmbeddedRunStore({ dir });
    const run = await store.getRun('crash');
    const counted = run?.steps_completed ?? 0;
    expect(counted).toBeGreaterThanOrEqual(reported);
    expect(run?.telemetry.llm_calls.length).toBe(realisticRun('x').telemetry.llm_calls.length + counted);
    const steps = (await store.listSteps('crash')).map((step) => step.step);
    expect(steps.slice(0, counted)).toEqual(Array.from({ length: counted }, (_, index) => index + 1));
    // and it carries on from there
    const next = await store.updateRun('crash', (current) => ({ ...current, steps_completed: counted + 1 }));
    await store.close();
    const reopened = createEmbeddedRunStore({ dir });
    expect(await reopened.getRun('crash')).toEqual(next);
    await reopened.close();
  }, 60_000);
});
