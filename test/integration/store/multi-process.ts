/**
 * The store contract across OS processes: several processes update one run and add steps at the same
 * time; afterwards nothing is lost (every increment counted, every step stored once).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPostgresRunStore } from '../../../src/store/postgres.js';
import { makeRun } from './contract.js';

const CHILD = fileURLToPath(new URL('./multi-process-child.ts', import.meta.url));
const PROCESSES = 4;
const INCREMENTS = 50;

function runChild(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

export function multiProcessContract(name: string, spec: () => { url: string; schema: string } | undefined): void {
  const target = spec();
  describe.skipIf(target === undefined)(`RunStore across ${PROCESSES} OS processes: ${name}`, () => {
    it(`loses none of ${PROCESSES * INCREMENTS} interleaved updates of one run and stores every step once`, async () => {
      if (!target) return;
      const store = await createPostgresRunStore(target);
      try {
        await store.createRun(makeRun('shared'));
        const results = await Promise.all(
          Array.from({ length: PROCESSES }, (_, worker) =>
            runChild([JSON.stringify(target), 'shared', String(worker), String(INCREMENTS)]),
          ),
        );
        for (const result of results) expect(result.code, result.stderr).toBe(0);
        expect((await store.getRun('shared'))?.telemetry.schema_lookup_calls).toBe(PROCESSES * INCREMENTS);
        const steps = (await store.listSteps('shared')).map((step) => step.step);
        expect(steps).toEqual(Array.from({ length: PROCESSES * INCREMENTS }, (_, index) => index + 1));
      } finally {
        await store.close();
      }
    }, 60_000);
  });
}
