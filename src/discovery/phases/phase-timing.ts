/**
 * Where a run's time goes: every phase function is wrapped by `timedPhase`, which adds its wall time
 * to `telemetry.phase_durations_ms[phase]` in one store update when it ends (however it ends).
 * Warehouse time inside a phase is added under `<phase>_sql` (`exploration_sql`,
 * `verification_sql`, …) through `timedSql`, in that same update. With concurrent areas or a fleet the values are
 * summed work time, not wall time of the run.
 *
 * A phase whose last act is a store update of its run makes that update with `updateRunTimed`: the
 * timings so far ride along in the same write, and no second write follows. The phase's time is
 * then counted up to that write; the write's own round trip is not.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Run } from '../../domain/index.js';
import type { DiscoveryDeps } from '../context.js';
import { addPhaseDurations } from '../pipeline/run-updates.js';

interface PhaseClock {
  phase: string;
  /** When the time not yet written started. */
  started: number;
  /** `<phase>_sql` and the like, not yet written. */
  timings: Map<string, number>;
  /** Set once `updateRunTimed` has written the timings: the phase's end then writes only what came after. */
  written: boolean;
}

const clock = new AsyncLocalStorage<PhaseClock>();

/** Times a warehouse call and adds it to `<phase>_sql` of the phase in flight (outside a phase: not recorded). */
export async function timedSql<T>(work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const current = clock.getStore();
    if (current) {
      const name = `${current.phase}_sql`;
      current.timings.set(name, (current.timings.get(name) ?? 0) + performance.now() - started);
    }
  }
}

function roundedTimings(timings: ReadonlyMap<string, number>): Array<readonly [string, number]> {
  return [...timings].map(([name, ms]) => [name, Math.round(ms * 10) / 10] as const).filter(([, ms]) => ms > 0);
}

function withTimings(run: Run, timings: ReadonlyArray<readonly [string, number]>): Run {
  return addPhaseDurations(run, Object.fromEntries(timings));
}

async function record(deps: DiscoveryDeps, runId: string, timings: ReadonlyMap<string, number>): Promise<void> {
  const rounded = roundedTimings(timings);
  if (rounded.length === 0) return;
  try {
    await deps.store.updateRun(runId, (run) => withTimings(run, rounded));
  } catch (error) {
    // timing is telemetry: it must never turn a phase's outcome into a failure
    deps.logger.debug({ runId, err: error }, 'could not record phase timings');
  }
}

/**
 * `store.updateRun` that also adds the phase's timings so far (outside a timed phase: a plain update).
 * For a phase's last write: the phase's end then records nothing more unless warehouse time followed.
 */
export async function updateRunTimed(deps: Pick<DiscoveryDeps, 'store'>, runId: string, mutate: (run: Run) => Run): Promise<Run> {
  const current = clock.getStore();
  if (!current) return deps.store.updateRun(runId, mutate);
  const now = performance.now();
  const pending = new Map(current.timings);
  pending.set(current.phase, (pending.get(current.phase) ?? 0) + now - current.started);
  const rounded = roundedTimings(pending);
  const updated = await deps.store.updateRun(runId, (run) => withTimings(mutate(run), rounded));
  current.timings.clear();
  current.started = performance.now();
  current.written = true;
  return updated;
}

export function timedPhase<Args extends unknown[], Result>(
  phase: string,
  work: (deps: DiscoveryDeps, runId: string, ...args: Args) => Promise<Result>,
): (deps: DiscoveryDeps, runId: string, ...args: Args) => Promise<Result> {
  return async (deps, runId, ...args) => {
    const current: PhaseClock = { phase, started: performance.now(), timings: new Map(), written: false };
    try {
      return await clock.run(current, () => work(deps, runId, ...args));
    } finally {
      // after a timed write only warehouse time that came later is left to record
      if (!current.written) current.timings.set(phase, (current.timings.get(phase) ?? 0) + performance.now() - current.started);
      await record(deps, runId, current.timings);
    }
  };
}

/**
 * Runs `work` as phase `phase` and returns its timings instead of writing them: for work whose result
 * is stored later by someone else (a verification's verdict, written with its stage's others in one
 * update), so its time rides along in that write. Warehouse time is measured through `timedSql` as usual.
 */
export async function measuredPhase<Result>(
  phase: string,
  work: () => Promise<Result>,
): Promise<{ value: Result; durationsMs: Record<string, number> }> {
  const current: PhaseClock = { phase, started: performance.now(), timings: new Map(), written: false };
  const value = await clock.run(current, work);
  current.timings.set(phase, (current.timings.get(phase) ?? 0) + performance.now() - current.started);
  return { value, durationsMs: Object.fromEntries(roundedTimings(current.timings)) };
}
