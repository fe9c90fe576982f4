import { describe, expect, it } from 'vitest';
import type { DiscoveryDeps } from '../../../src/discovery/context.js';
import { timedPhase, timedSql, updateRunTimed } from '../../../src/discovery/phases/phase-timing.js';
import type { Run } from '../../../src/domain/index.js';
import { realisticRun } from '../../support/realistic-run.js';

/** A store that holds one run and counts its writes; `failWrites` makes the next writes throw. */
function countingStore(run: Run) {
  let stored = structuredClone(run);
  const state = { writes: 0, failWrites: 0 };
  const deps = {
    store: {
      async updateRun(_id: string, mutate: (current: Run) => Run) {
        if (state.failWrites > 0) {
          state.failWrites -= 1;
          throw new Error('store down');
        }
        state.writes += 1;
        stored = mutate(structuredClone(stored));
        return structuredClone(stored);
      },
    },
    logger: { debug: () => undefined },
  } as unknown as DiscoveryDeps;
  return { deps, state, current: () => stored };
}

const tick = (ms: number) => new Promise((done) => setTimeout(done, ms));

function startRun(): Run {
  const run = realisticRun('run-timing');
  return { ...run, telemetry: { ...run.telemetry, phase_durations_ms: {} } };
}

describe('phase timings', () => {
  it('a phase without a write of its own records its time in one update at its end', async () => {
    const { deps, state, current } = countingStore(startRun());
    const phase = timedPhase('analysis', async () => {
      await tick(5);
      return 'done';
    });
    expect(await phase(deps, 'run-timing')).toBe('done');
    expect(state.writes).toBe(1);
    expect(current().telemetry.phase_durations_ms.analysis).toBeGreaterThan(0);
  });

  it('a phase ending on a timed write makes exactly one write, carrying its change and its time', async () => {
    const { deps, state, current } = countingStore(startRun());
    const phase = timedPhase('verification', async (innerDeps: DiscoveryDeps, runId: string) => {
      await timedSql(() => tick(3));
      await updateRunTimed(innerDeps, runId, (run) => ({ ...run, phase_detail: 'verified' }));
    });
    await phase(deps, 'run-timing');
    expect(state.writes).toBe(1);
    expect(current().phase_detail).toBe('verified');
    expect(current().telemetry.phase_durations_ms.verification).toBeGreaterThan(0);
    expect(current().telemetry.phase_durations_ms.verification_sql).toBeGreaterThan(0);
  });

  it('warehouse time after the timed write is still recorded, in a second write', async () => {
    const { deps, state, current } = countingStore(startRun());
    const phase = timedPhase('verification', async (innerDeps: DiscoveryDeps, runId: string) => {
      await updateRunTimed(innerDeps, runId, (run) => run);
      await timedSql(() => tick(3));
    });
    await phase(deps, 'run-timing');
    expect(state.writes).toBe(2);
    expect(current().telemetry.phase_durations_ms.verification_sql).toBeGreaterThan(0);
  });

  it('a failed timed write leaves the whole time to the phase end, and a throwing phase still records', async () => {
    const { deps, state, current } = countingStore(startRun());
    state.failWrites = 1;
    const phase = timedPhase('verification', async (innerDeps: DiscoveryDeps, runId: string) => {
      await tick(3);
      await updateRunTimed(innerDeps, runId, (run) => run);
    });
    await expect(phase(deps, 'run-timing')).rejects.toThrow('store down');
    expect(state.writes).toBe(1);
    expect(current().telemetry.phase_durations_ms.verification).toBeGreaterThan(0);
  });

  it('outside a timed phase updateRunTimed is a plain update', async () => {
    const { deps, state, current } = countingStore(startRun());
    await updateRunTimed(deps, 'run-timing', (run) => ({ ...run, phase_detail: 'plain' }));
    expect(state.writes).toBe(1);
    expect(current().phase_detail).toBe('plain');
    expect(current().telemetry.phase_durations_ms).toEqual({});
  });
});
