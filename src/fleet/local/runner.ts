/**
 * The in-process runner: the same phase functions and the same fan-out/gather semantics as the
 * fleet (areas in parallel, each area's verifications after it, recommendations once every area
 * has settled, finalize always), with bounded concurrency. Used by `assay demo` and `assay run`.
 */
import type { DiscoveryResult, Run } from '../../domain/index.js';
import { CancelledError, describeError } from '../../errors/index.js';
import { analyzeArea } from '../../discovery/analyze-area.js';
import type { DiscoveryDeps } from '../../discovery/context.js';
import { exploreStep } from '../../discovery/explore-step.js';
import { finalizeRun } from '../../discovery/finalize.js';
import { prepareRun } from '../../discovery/prepare.js';
import { recommend } from '../../discovery/recommend.js';
import { verifyInsight } from '../../discovery/verify-insight.js';
import { createLimiter } from './limiter.js';

export type RunnerEvent =
  | { type: 'phase'; phase: Run['phase']; detail: string }
  | { type: 'step'; step: number; maxSteps: number; action: string; error?: string | undefined }
  | { type: 'area'; areaId: string; status: string; insights: number; error?: string | undefined }
  | { type: 'verified'; insightId: string; status: string }
  | { type: 'done'; result: DiscoveryResult };

export interface LocalRunnerOptions {
  /** Areas and verifications in flight at once. */
  concurrency: number;
  onEvent?: (event: RunnerEvent) => void;
  signal?: AbortSignal;
}

async function markCancelled(deps: DiscoveryDeps, runId: string): Promise<void> {
  await deps.store.updateRun(runId, (run) => (run.status === 'cancelled' ? run : { ...run, status: 'cancelled', error: run.error ?? 'cancelled' }));
}

export async function runDiscoveryLocally(deps: DiscoveryDeps, runId: string, options: LocalRunnerOptions): Promise<DiscoveryResult> {
  const emit = options.onEvent ?? (() => undefined);
  const { signal } = options;
  try {
    emit({ type: 'phase', phase: 'prepare', detail: 'schema, pack and previous context' });
    try {
      await prepareRun(deps, runId, signal);
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      deps.logger.error({ runId, err: error }, 'prepare failed');
      return await finalizeRun(deps, runId, { fatalError: `prepare failed: ${describeError(error)}` });
    }

    emit({ type: 'phase', phase: 'exploration', detail: 'exploring the warehouse' });
    const run = await deps.store.getRun(runId);
    const maxSteps = run?.settings.max_steps ?? 0;
    for (let stepNumber = 1; stepNumber <= maxSteps; stepNumber++) {
      const outcome = await exploreStep(deps, runId, stepNumber, signal);
      emit({ type: 'step', step: stepNumber, maxSteps, action: outcome.step.action, error: outcome.step.error });
      if (outcome.finished) break;
    }

    emit({ type: 'phase', phase: 'analysis', detail: 'analysing areas and verifying insights' });
    await deps.store.updateRun(runId, (current) => ({ ...current, phase: 'analysis', phase_detail: 'analysing areas', progress: Math.max(current.progress, 62) }));
    const limit = createLimiter(options.concurrency);
    const areas = (await deps.store.getRun(runId))?.areas ?? [];
    await Promise.all(
      areas.map(async (area) => {
        const outcome = await limit(() => analyzeArea(deps, runId, area.area_id, signal));
        emit({ type: 'area', areaId: area.area_id, status: outcome.status, insights: outcome.insight_ids.length, error: outcome.error });
        // an area's verifications are its children: they start as soon as the area settles
        await Promise.all(
          outcome.insight_ids.map(async (insightId) => {
            const validation = await limit(() => verifyInsight(deps, runId, insightId, signal));
            emit({ type: 'verified', insightId, status: validation.status });
          }),
        );
      }),
    );

    emit({ type: 'phase', phase: 'recommendations', detail: 'writing recommendations' });
    await recommend(deps, runId, signal);
    emit({ type: 'phase', phase: 'finalize', detail: 'writing the result' });
    const result = await finalizeRun(deps, runId);
    emit({ type: 'done', result });
    return result;
  } catch (error) {
    if (!(error instanceof CancelledError)) throw error;
    await markCancelled(deps, runId);
    const result = await finalizeRun(deps, runId);
    emit({ type: 'done', result });
    return result;
  }
}
