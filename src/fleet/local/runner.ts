/**
 * The in-process driver of the run pipeline (`src/discovery/pipeline`): the same state machine, phase
 * functions, error policy and reconcilers as the BullMQ coordinator, with bounded concurrency — areas
 * in parallel, each area's verifications after it, recommendations once every area has settled,
 * finalize always. Used by `assay demo`, `assay run` and the API's local runner.
 *
 * Retries follow the policy's budgets: a rate limit waits the provider's retry-after, other retryable
 * failures back off exponentially, and what still fails after the last attempt is recorded on the run
 * by the pipeline's reconcilers — a run never stays `running` because one unit of work failed.
 */
import type { DiscoveryResult, Run } from '../../domain/index.js';
import { CancelledError, describeError } from '../../errors/index.js';
import { analyzeArea } from '../../discovery/phases/analyze-area.js';
import { requireRun, type DiscoveryDeps } from '../../discovery/context.js';
import { exploreStep } from '../../discovery/phases/explore-step.js';
import { mineRun } from '../../discovery/phases/mine-run.js';
import { finalizeRun } from '../../discovery/phases/finalize.js';
import {
  MAX_RATE_LIMIT_WAITS,
  PIPELINE_START,
  STAGE_RETRY,
  classifyStageError,
  coordinationFailed,
  countRecovery,
  failureAfterAttempts,
  nextStage,
  recoveryOf,
  type InsightVerdict,
  type PipelineWork,
  type StageResult,
  type Transition,
} from '../../discovery/pipeline/index.js';
import { prepareRun } from '../../discovery/phases/prepare.js';
import { recommend } from '../../discovery/phases/recommend.js';
import { checkInsight } from '../../discovery/phases/verify-insight.js';
import { abortableSleep } from '../../llm/retry.js';
import { createLimiter, type Limiter } from '../../concurrency/index.js';

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
  /** First retry backoff for every unit of work, instead of the policy's (tests use a few ms). */
  retryBackoffMs?: number;
  /** Injectable wait (tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

type Attempted<T> = { ok: true; value: T } | { ok: false; failure: string };

/** Runs one unit of work under the error policy: cancellation propagates, everything else settles. */
async function underPolicy<T>(
  work: PipelineWork,
  task: () => Promise<T>,
  options: LocalRunnerOptions,
  deps: DiscoveryDeps,
): Promise<Attempted<T>> {
  const budget = STAGE_RETRY[work];
  const sleep = options.sleep ?? abortableSleep;
  let rateLimitWaits = 0;
  for (let attempt = 1; ; ) {
    try {
      return { ok: true, value: await task() };
    } catch (error) {
      const classified = classifyStageError(error);
      if (classified.kind === 'cancelled')
        throw error instanceof CancelledError ? error : new CancelledError(classified.reason, { cause: error });
      if (classified.kind === 'final') return { ok: false, failure: classified.reason };
      if (classified.kind === 'rate_limited' && rateLimitWaits < MAX_RATE_LIMIT_WAITS) {
        // like the fleet's queue pause: a provider's rate limit is waited out, not counted as an attempt
        rateLimitWaits++;
        deps.logger.warn({ work, waitMs: classified.retryAfterMs }, 'provider rate limit: waiting before retrying');
        await sleep(classified.retryAfterMs, options.signal);
        continue;
      }
      if (attempt >= budget.attempts) return { ok: false, failure: failureAfterAttempts(classified.reason, attempt) };
      const delayMs = (options.retryBackoffMs ?? budget.backoffDelayMs) * 2 ** (attempt - 1);
      deps.logger.warn({ work, attempt, delayMs, reason: classified.reason }, 'retrying after a failure');
      attempt++;
      await sleep(delayMs, options.signal);
    }
  }
}

async function analyzeAllAreas(
  deps: DiscoveryDeps,
  runId: string,
  options: LocalRunnerOptions,
  limit: Limiter,
  emit: (event: RunnerEvent) => void,
): Promise<StageResult> {
  const { signal } = options;
  const failures = new Map<string, string>();
  const verdicts: InsightVerdict[] = [];
  const verificationFailures = new Map<string, string>();
  const areas = (await requireRun(deps, runId)).areas;
  await Promise.all(
    areas.map(async (area) => {
      const outcome = await limit(() => underPolicy('analyze', () => analyzeArea(deps, runId, area.area_id, signal), options, deps));
      if (!outcome.ok) {
        failures.set(area.area_id, outcome.failure);
        emit({ type: 'area', areaId: area.area_id, status: 'failed', insights: 0, error: outcome.failure });
        return;
      }
      emit({
        type: 'area',
        areaId: area.area_id,
        status: outcome.value.status,
        insights: outcome.value.insight_ids.length,
        error: outcome.value.error,
      });
      // an area's verifications are its children: they start as soon as the area settles
      await Promise.all(
        outcome.value.insight_ids.map(async (insightId) => {
          const verified = await limit(() => underPolicy('verify', () => checkInsight(deps, runId, insightId, signal), options, deps));
          // the verdicts are stored with the stage's transition, in one update, as the fleet's coordinator does
          if (verified.ok) {
            verdicts.push(verified.value);
            emit({ type: 'verified', insightId, status: verified.value.validation.status });
            return;
          }
          verificationFailures.set(insightId, verified.failure);
          emit({ type: 'verified', insightId, status: 'error' });
        }),
      );
    }),
  );
  return { stage: 'analyze', failures, verifications: { verdicts, failures: verificationFailures, settledAt: deps.now().toISOString() } };
}

/**
 * Applies a transition's update as the fleet's coordinator job does: retried under the `coordinate`
 * budget; when the attempts run out the run is taken up again under the one recovery policy (counted
 * in `run.recoveries`), and past its cap ended. Returns the reason to end the run with, if it must end.
 */
async function applyTransition(
  deps: DiscoveryDeps,
  runId: string,
  update: (run: Run) => Run,
  options: LocalRunnerOptions,
): Promise<string | undefined> {
  for (;;) {
    const applied = await underPolicy('coordinate', () => deps.store.updateRun(runId, update), options, deps);
    if (applied.ok) return undefined;
    const verdict = recoveryOf(await requireRun(deps, runId), coordinationFailed(applied.failure));
    if (verdict.action === 'fail') return verdict.reason;
    deps.logger.warn({ runId, failure: applied.failure }, 'the run could not move to its next stage; taking it up again');
    await deps.store.updateRun(runId, countRecovery);
  }
}

const PHASE_EVENTS: Partial<Record<Transition['command']['do'], RunnerEvent & { type: 'phase' }>> = {
  prepare: { type: 'phase', phase: 'prepare', detail: 'schema, pack and previous context' },
  mine: { type: 'phase', phase: 'analysis', detail: 'mining the warehouse for findings' },
  analyze: { type: 'phase', phase: 'analysis', detail: 'analysing areas and verifying insights' },
  recommend: { type: 'phase', phase: 'recommendations', detail: 'writing recommendations' },
  finalize: { type: 'phase', phase: 'finalize', detail: 'writing the result' },
};

export async function runDiscoveryLocally(deps: DiscoveryDeps, runId: string, options: LocalRunnerOptions): Promise<DiscoveryResult> {
  const emit = options.onEvent ?? (() => undefined);
  const { signal } = options;
  const limit = createLimiter(options.concurrency);
  let transition: Transition = PIPELINE_START;
  try {
    for (;;) {
      const run = await requireRun(deps, runId);
      if (run.status === 'cancelled') throw new CancelledError(`run ${runId} was cancelled`);
      const fatalError = transition.update ? await applyTransition(deps, runId, transition.update, options) : undefined;
      const command: Transition['command'] = fatalError === undefined ? transition.command : { do: 'finalize', fatalError };
      const phaseEvent = PHASE_EVENTS[command.do];
      if (phaseEvent) emit(phaseEvent);
      if (command.do === 'explore' && command.step === 1) emit({ type: 'phase', phase: 'exploration', detail: 'exploring the warehouse' });

      let result: StageResult;
      switch (command.do) {
        case 'prepare': {
          const prepared = await underPolicy('prepare', () => prepareRun(deps, runId, signal), options, deps);
          result = { stage: 'prepare', failure: prepared.ok ? undefined : prepared.failure };
          if (!prepared.ok) deps.logger.error({ runId, failure: prepared.failure }, 'prepare failed');
          break;
        }
        case 'explore': {
          const explored = await underPolicy('explore', () => exploreStep(deps, runId, command.step, signal), options, deps);
          if (explored.ok)
            emit({
              type: 'step',
              step: command.step,
              maxSteps: run.settings.max_steps,
              action: explored.value.step.action,
              error: explored.value.step.error,
            });
          else emit({ type: 'step', step: command.step, maxSteps: run.settings.max_steps, action: 'error', error: explored.failure });
          result = explored.ok
            ? { stage: 'explore', step: command.step, finished: explored.value.finished }
            : { stage: 'explore', step: command.step, finished: true, failure: explored.failure };
          break;
        }
        case 'mine': {
          const mined = await underPolicy('mine', () => mineRun(deps, runId, signal), options, deps);
          result = { stage: 'mine', failure: mined.ok ? undefined : mined.failure };
          break;
        }
        case 'analyze':
          result = await analyzeAllAreas(deps, runId, options, limit, emit);
          break;
        case 'recommend': {
          const recommended = await underPolicy('recommend', () => recommend(deps, runId, signal), options, deps);
          result = { stage: 'recommend', failure: recommended.ok ? undefined : recommended.failure };
          break;
        }
        case 'finalize': {
          const final = await finalizeRun(deps, runId, command.fatalError === undefined ? {} : { fatalError: command.fatalError });
          emit({ type: 'done', result: final });
          return final;
        }
      }
      transition = nextStage(result, run.settings.max_steps);
    }
  } catch (error) {
    const cancelled = error instanceof CancelledError;
    if (!cancelled) deps.logger.error({ runId, err: error }, 'run failed unexpectedly; finalizing it as failed');
    // a run never stays `running`: cancelled runs are finalized as cancelled, anything else as failed with the reason
    await deps.store.updateRun(runId, (run) =>
      cancelled ? (run.status === 'cancelled' ? run : { ...run, status: 'cancelled', error: run.error ?? 'cancelled' }) : run,
    );
    const result = await finalizeRun(deps, runId, cancelled ? {} : { fatalError: `the run failed unexpectedly: ${describeError(error)}` });
    emit({ type: 'done', result });
    return result;
  }
}
