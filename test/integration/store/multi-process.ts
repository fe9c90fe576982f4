/**
 * The store contract across OS processes: several processes update one run and add steps at the same
 * time; afterwards nothing is lost (every increment counted, every insight and validation kept, every
 * step stored once).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPostgresRunStore } from '../../../src/store/postgres.js';
import { runSchema } from '../../../src/domain/index.js';
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
        const areas = Array.from({ length: PROCESSES }, (_, worker) => ({
          area_id: `area-${worker}`,
          area_name: `Area ${worker}`,
          status: 'running',
        }));
        await store.createRun(runSchema.parse({ ...makeRun('shared'), areas }));
        const results = await Promise.all(
          Array.from({ length: PROCESSES }, (_, worker) =>
            runChild([JSON.stringify(target), 'shared', String(worker), String(INCREMENTS)]),
          ),
        );
        for (const result of results) expect(result.code, result.stderr).toBe(0);
        const run = await store.getRun('shared');
        expect(run?.telemetry.schema_lookup_calls).toBe(PROCESSES * INCREMENTS);
        for (const [worker, area] of (run?.areas ?? []).entries()) {
          expect(area.insights.map((insight) => insight.id)).toEqual(
            Array.from({ length: INCREMENTS }, (_, index) => `w${worker}-${index}`),
          );
          const validated = area.insights.flatMap((insight, position) => (insight.validation ? [position] : []));
          expect(validated).toEqual(Array.from({ length: INCREMENTS / 2 - 1 }, (_, half) => 2 * half + 1));
        }
        expect(run?.areas).toHaveLength(PROCESSES);
        const steps = (await store.listSteps('shared')).map((step) => step.step);
        expect(steps).toEqual(Array.from({ length: PROCESSES * INCREMENTS }, (_, index) => index + 1));
      } finally {
        await store.close();
      }
    }, 60_000);
  });
}
