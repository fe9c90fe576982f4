/**
 * Where a run's time goes: every phase function is wrapped by `timedPhase`, which adds its wall time
 * to `telemetry.phase_durations_ms[phase]` in one store update when it ends (however it ends).
 * Warehouse time inside a phase is added under `<phase>_sql` (`exploration_sql`,
 * `verification_sql`, …) through `timedSql`, in that same update. With concurrent areas or a fleet the values are
 * summed work time, not wall time of the run.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DiscoveryDeps } from '../context.js';

const clock = new AsyncLocalStorage<{ phase: string; timings: Map<string, number> }>();

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

async function record(deps: DiscoveryDeps, runId: string, timings: Map<string, number>): Promise<void> {
  const rounded = [...timings].map(([name, ms]) => [name, Math.round(ms * 10) / 10] as const).filter(([, ms]) => ms > 0);
  if (rounded.length === 0) return;
  try {
    await deps.store.updateRun(runId, (run) => {
      const durations = { ...run.telemetry.phase_durations_ms };
      for (const [name, ms] of rounded) durations[name] = Math.round(((durations[name] ?? 0) + ms) * 10) / 10;
      return { ...run, telemetry: { ...run.telemetry, phase_durations_ms: durations } };
    });
  } catch (error) {
    // timing is telemetry: it must never turn a phase's outcome into a failure
    deps.logger.debug({ runId, err: error }, 'could not record phase timings');
  }
}

export function timedPhase<Args extends unknown[], Result>(
  phase: string,
  work: (deps: DiscoveryDeps, runId: string, ...args: Args) => Promise<Result>,
): (deps: DiscoveryDeps, runId: string, ...args: Args) => Promise<Result> {
  return async (deps, runId, ...args) => {
    const timings = new Map<string, number>();
    const started = performance.now();
    try {
      return await clock.run({ phase, timings }, () => work(deps, runId, ...args));
    } finally {
      timings.set(phase, (timings.get(phase) ?? 0) + performance.now() - started);
      await record(deps, runId, timings);
    }
  };
}
