/**
 * What spent mining's budget is in the log: the 'mining finished' line names the slowest statements,
 * slowest first, with their times — how an operator finds the statement a slow warehouse chokes on.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { createLogger } from '../../../src/logging/index.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, scriptedBrain } from './scripted-brain.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the mining stage’s log line', () => {
  it('names the five slowest statements, slowest first, with their times', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
        done();
      },
    });
    const { brain } = scriptedBrain({ exploration: { 1: QUERY_DEVICE } });
    harness = await createHarness(brain);
    harness.deps.logger = createLogger({ format: 'json', destination: sink });
    const run = await harness.newRun({ maxSteps: 2, areas: ['conversion'] });
    await runDiscoveryLocally(harness.deps, run.id, { concurrency: 1 });

    const finished = lines.find((line) => line.msg === 'mining finished');
    const mining = (await harness.deps.store.getRun(run.id))?.mining;
    expect(mining?.queries).toBeGreaterThan(5);
    const slowest = finished?.slowest as string[];
    expect(slowest).toHaveLength(5);
    const times = slowest.map((entry) =>
      Number(/^(?:profile|top|typical|segments|series|drivers|correlations|outlier)\b.* \((\d+) ms\)$/.exec(entry)?.[1]),
    );
    expect(times.every((ms) => Number.isInteger(ms))).toBe(true);
    expect([...times].sort((left, right) => right - left)).toEqual(times);
    expect(finished).toMatchObject({ runId: run.id, queries: mining?.queries, durationMs: mining?.duration_ms });
  });
});
