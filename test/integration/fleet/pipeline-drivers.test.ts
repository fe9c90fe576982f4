/**
 * One pipeline, two drivers: the same fault schedule run through the in-process runner and through
 * the BullMQ fleet (real redis-server) must leave the same run document — same statuses, errors,
 * insights, validations, recommendations and steps — because both drive one state machine under one
 * error policy. Three schedules: faults that retries absorb; faults that exhaust them (a rate limit past
 * the cap, a verification and a stage that keep failing past their attempts); and a transition that
 * never applies, so the run is taken up again until the recovery cap ends it.
 */
import { describe, expect, it } from 'vitest';
import { COORDINATOR_JOB, coordinatorPayloadSchema, coordinatorQueue, maintenanceQueue } from '../../../src/fleet/bullmq/queues/index.js';
import { MAX_RATE_LIMIT_WAITS, MAX_RUN_RECOVERIES, STAGE_RETRY } from '../../../src/discovery/pipeline/index.js';
import type { Run } from '../../../src/domain/index.js';
import { LlmAuthError, LlmRateLimitError, WarehouseError } from '../../../src/errors/index.js';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import type { OfflineBrain } from '../../../src/llm/providers/offline.js';
import { createHarness, failRunUpdates, failRunUpdatesEntering, type Harness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, QUERY_REVENUE, nextStep, phaseOf, scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet, type Fleet } from './fleet-harness.js';
import { useRedisServer } from './redis-lifecycle.js';
import { redisServerMissing } from './redis-server.js';

const redis = useRedisServer();
const AREAS = ['conversion', 'revenue'];
/** Both drivers retry with the policy's attempts (STAGE_RETRY, the queues' contract) and a backoff of a few ms. */
const RETRY_BACKOFF_MS = 5;

interface Schedule {
  brain: OfflineBrain;
  /** Wraps the run's ports (store, warehouse) with the schedule's faults, before any driver uses them. */
  breakPorts(harness: Harness): void;
}

const rateLimit = () => new LlmRateLimitError('429 too many requests', { provider: 'offline', status: 429, retryAfterMs: 1 });

/** Counts calls by what they are about (never by global order, which concurrency changes). */
function counter() {
  const seen = new Map<string, number>();
  return {
    once(key: string) {
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      return count === 1;
    },
    count(key: string) {
      seen.set(key, (seen.get(key) ?? 0) + 1);
    },
    seen(key: string) {
      return seen.get(key) ?? 0;
    },
  };
}

/**
 * Faults the retries absorb, keyed by what a call is about (never by global order, which concurrency changes):
 * - exploration step 2: a 429 on its first ask (rate limit → wait, retry)
 * - analysis of conversion: a 429 on its first call
 * - analysis of revenue: a malformed reply every time (final: reformat retries, then the area fails)
 * - recommendations: an authentication error (final: recorded, never retried)
 * - store: the first write that starts analysing conversion fails, and so does the first write of a validation
 */
function absorbedFaults(): Schedule {
  const { once } = counter();
  const { brain: scripted } = scriptedBrain({ exploration: { 1: QUERY_DEVICE, 2: QUERY_REVENUE } });
  const brain: OfflineBrain = (request: LlmRequest) => {
    const phase = phaseOf(request);
    const prompt = request.messages.map((message) => message.content).join('\n');
    if (phase === 'exploration' && nextStep(request) === 2 && once('explore-2')) throw rateLimit();
    if (phase === 'analysis' && prompt.includes('Funnel Conversion') && once('analysis-conversion')) throw rateLimit();
    if (phase === 'analysis' && !prompt.includes('Funnel Conversion')) return 'the revenue looks fine to me';
    if (phase === 'recommendations') throw new LlmAuthError('401 invalid x-api-key', { provider: 'offline', status: 401 });
    return scripted(request) as string;
  };
  const breakPorts = (harness: Harness) => {
    failRunUpdates(harness, (run, next) => {
      const starting = next.areas.some(
        (area) =>
          area.area_id === 'conversion' &&
          area.status === 'running' &&
          run.areas.find((before) => before.area_id === 'conversion')?.status !== 'running',
      );
      if (starting && once('store-area-start')) return new Error('disk full (area start)');
      const validating = next.areas.some((area) =>
        area.insights.some(
          (insight) =>
            insight.validation &&
            !run.areas.find((before) => before.area_id === area.area_id)?.insights.find((old) => old.id === insight.id)?.validation,
        ),
      );
      if (validating && once('store-validation')) return new Error('disk full (validation)');
      return undefined;
    });
  };
  return { brain, breakPorts };
}

/**
 * Faults that exhaust what the policy gives a unit of work:
 * - exploration step 2: a 429 on every ask — MAX_RATE_LIMIT_WAITS waits, then attempts, then the step
 *   fails and ends exploration (`llm_error`);
 * - analysis of revenue: a retryable warehouse error on every attempt — the area fails "(after 3 attempts)";
 * - every verifier recount: a failure on every attempt — `error` validations, so no insight is left
 *   to recommend from and recommendations are skipped.
 */
function exhaustingFaults(): Schedule & { calls: ReturnType<typeof counter> } {
  const calls = counter();
  const { brain: scripted } = scriptedBrain({ exploration: { 1: QUERY_DEVICE, 2: QUERY_REVENUE } });
  const brain: OfflineBrain = (request: LlmRequest) => {
    const phase = phaseOf(request);
    if (phase === 'exploration' && nextStep(request) === 2) {
      calls.count('explore-2');
      throw rateLimit();
    }
    if (phase === 'analysis' && !request.messages.some((message) => message.content.includes('Funnel Conversion'))) {
      calls.count('analysis-revenue');
      throw new WarehouseError('connection reset by the warehouse');
    }
    return scripted(request) as string;
  };
  const breakPorts = (harness: Harness) => {
    const warehouse = harness.deps.warehouse;
    // the verifier's recounts (and only they) select AS total_rows
    const query: typeof warehouse.query = (sql, options) =>
      sql.includes('AS total_rows') ? Promise.reject(new Error('disk full (recount)')) : warehouse.query(sql, options);
    harness.deps.warehouse = Object.assign(Object.create(warehouse) as typeof warehouse, { query });
  };
  return { brain, breakPorts, calls };
}

/** A transition whose update never applies (the write entering analysis fails every time): the run is taken up again until the cap. */
function lostCoordination(): Schedule {
  const { brain } = scriptedBrain({ exploration: { 1: QUERY_DEVICE, 2: QUERY_REVENUE } });
  const breakPorts = (harness: Harness) => failRunUpdatesEntering(harness, 'analysis', () => new Error('disk full (entering analysis)'));
  return { brain, breakPorts };
}

/** The run document without what legitimately differs between drivers (times, durations, ids of jobs, latency). */
function comparable(run: Run, steps: readonly { step: number; action: string; error?: string | undefined; query?: string | undefined }[]) {
  const callsByPhase: Record<string, number> = {};
  for (const call of run.telemetry.llm_calls) callsByPhase[call.phase] = (callsByPhase[call.phase] ?? 0) + 1;
  return {
    status: run.status,
    recoveries: run.recoveries,
    run_type: run.run_type,
    phase: run.phase,
    error: run.error,
    exploration_done_reason: run.exploration_done_reason,
    areas: run.areas.map((area) => ({
      id: area.area_id,
      status: area.status,
      error: area.error,
      insights: area.insights.map((insight) => ({
        id: insight.id,
        name: insight.name,
        validation: insight.validation && {
          status: insight.validation.status,
          verified: insight.validation.verified_count,
          reasoning: insight.validation.reasoning,
        },
      })),
    })),
    recommendation_log: { status: run.recommendation_log.status, error: run.recommendation_log.error },
    recommendations: run.recommendations.map((recommendation) => recommendation.title),
    steps: steps.map((step) => ({ step: step.step, action: step.action, error: step.error, query: step.query })),
    callsByPhase,
  };
}

type Comparable = ReturnType<typeof comparable>;

async function runLocally(schedule: Schedule): Promise<Comparable> {
  const harness = await createHarness(schedule.brain);
  schedule.breakPorts(harness);
  try {
    const run = await harness.newRun({ maxSteps: 4, areas: AREAS });
    await runDiscoveryLocally(harness.deps, run.id, { concurrency: 2, retryBackoffMs: RETRY_BACKOFF_MS });
    return comparable((await harness.deps.store.getRun(run.id)) as Run, await harness.deps.store.listSteps(run.id));
  } finally {
    await harness.close();
  }
}

/** Runs one pass of the stuck-run reconciler and waits until it has settled. */
async function reconcileOnce(fleet: Fleet): Promise<void> {
  const job = await fleet.producer.queue(maintenanceQueue.name).add(maintenanceQueue.jobName, { task: 'reconcile-runs' });
  for (;;) {
    const state = await job.getState();
    if (state === 'completed') return;
    if (state === 'failed')
      throw new Error(`the reconcile job failed: ${(await fleet.producer.queue(maintenanceQueue.name).getJob(job.id!))?.failedReason}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The fleet on a real redis-server, with every queue's contract attempts and a short backoff. With
 * `reconcile`, the stuck-run reconciler runs (as the maintenance scheduler would) each time the run's
 * coordinator job has failed, until the run ends.
 */
async function runOnFleet(schedule: Schedule, options: { reconcile?: boolean } = {}): Promise<Comparable> {
  const fleet = redis.track(
    await createFleet(redis.url, schedule.brain, {
      wrapStore: schedule.breakPorts,
      jobOptionOverrides: { backoff: { type: 'fixed', delay: RETRY_BACKOFF_MS } },
    }),
  );
  fleet.harness.deps.config = { ...fleet.harness.deps.config, fleet: { ...fleet.harness.deps.config.fleet, stuckRunGraceMs: 0 } };
  await fleet.startWorkers();
  const run = await fleet.harness.newRun({ maxSteps: 4, areas: AREAS });
  const payload = coordinatorPayloadSchema.parse({ runId: run.id });
  // enqueued through the test's producer, so the coordinator too retries with the short backoff
  const coordinators = fleet.producer.queue(coordinatorQueue.name);
  await coordinators.add(COORDINATOR_JOB, payload, { jobId: coordinatorQueue.jobId(payload) });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = (await fleet.harness.deps.store.getRun(run.id)) as Run;
    if (current.phase === 'complete') return comparable(current, await fleet.harness.deps.store.listSteps(run.id));
    if (Date.now() > deadline) throw new Error(`run ${run.id} did not finish (status ${current.status}, phase ${current.phase})`);
    if (options.reconcile && (await coordinators.getJobState(coordinatorQueue.jobId(payload))) === 'failed') await reconcileOnce(fleet);
    else await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(redisServerMissing)('when the same fault schedule runs through the in-process runner and the BullMQ fleet', () => {
  it('both drivers leave the same run document when the retries absorb the faults', async () => {
    const localDoc = await runLocally(absorbedFaults());
    const fleetDoc = await runOnFleet(absorbedFaults());

    expect(fleetDoc).toEqual(localDoc);
    // and the schedule did what it says
    expect(localDoc.run_type).toBe('partial');
    expect(localDoc.recoveries).toBe(0);
    expect(localDoc.areas.find((area) => area.id === 'revenue')).toMatchObject({ status: 'failed' });
    expect(localDoc.areas.find((area) => area.id === 'revenue')?.error).toMatch(/unusable/);
    expect(localDoc.areas.find((area) => area.id === 'conversion')).toMatchObject({ status: 'completed' });
    expect(localDoc.areas.find((area) => area.id === 'conversion')?.insights[0]?.validation?.status).toBe('adjusted');
    expect(localDoc.recommendation_log).toMatchObject({ status: 'failed' });
    expect(localDoc.recommendation_log.error).toMatch(/401/);
    expect(localDoc.steps.map((step) => step.action)).toEqual(['query', 'query', 'done']);
  });

  it('both drivers leave the same run document when rate limits pass the cap and units of work run out of attempts', async () => {
    const local = exhaustingFaults();
    const localDoc = await runLocally(local);
    const remote = exhaustingFaults();
    const fleetDoc = await runOnFleet(remote);

    expect(fleetDoc).toEqual(localDoc);
    // exploration step 2: every wait the cap allows, then every attempt, then the step failed and exploration ended there
    const explore = STAGE_RETRY.explore.attempts;
    expect(local.calls.seen('explore-2')).toBe(MAX_RATE_LIMIT_WAITS + explore);
    expect(remote.calls.seen('explore-2')).toBe(MAX_RATE_LIMIT_WAITS + explore);
    expect(localDoc.exploration_done_reason).toBe('llm_error');
    expect(localDoc.error).toMatch(new RegExp(`^exploration stopped at step 2: .*429.*\\(after ${explore} attempts\\)$`));
    expect(localDoc.steps.map((step) => step.step)).toEqual([1]);
    // every verification failed past its attempts: an error validation saying so
    const validations = localDoc.areas.flatMap((area) => area.insights.map((insight) => insight.validation));
    expect(validations.length).toBeGreaterThan(0);
    for (const validation of validations)
      expect(validation).toMatchObject({
        status: 'error',
        reasoning: `verification failed: disk full (recount) (after ${STAGE_RETRY.verify.attempts} attempts)`,
      });
    // analysis of revenue failed retryably on every attempt
    expect(local.calls.seen('analysis-revenue')).toBe(STAGE_RETRY.analyze.attempts);
    expect(remote.calls.seen('analysis-revenue')).toBe(STAGE_RETRY.analyze.attempts);
    expect(localDoc.areas.find((area) => area.id === 'revenue')).toMatchObject({
      status: 'failed',
      error: `analysis failed: connection reset by the warehouse (after ${STAGE_RETRY.analyze.attempts} attempts)`,
    });
    expect(localDoc.recommendation_log.status).toBe('skipped');
    expect(localDoc).toMatchObject({ status: 'completed', run_type: 'partial', recoveries: 0 });
  });

  it('both drivers end a run whose coordination keeps failing after the same recoveries, with the same error', async () => {
    const localDoc = await runLocally(lostCoordination());
    const fleetDoc = await runOnFleet(lostCoordination(), { reconcile: true });

    expect(fleetDoc).toEqual(localDoc);
    expect(localDoc).toMatchObject({ status: 'failed', run_type: 'failed', recoveries: MAX_RUN_RECOVERIES });
    expect(localDoc.error).toBe(
      `the run could not be recovered after ${MAX_RUN_RECOVERIES} attempts: its coordinator failed: disk full (entering analysis) (after ${STAGE_RETRY.coordinate.attempts} attempts)`,
    );
    // the steps made before the first failure are kept, and never asked for again
    expect(localDoc.steps.map((step) => step.action)).toEqual(['query', 'query', 'done']);
    expect(localDoc.callsByPhase).toEqual({ exploration: 3 });
  });
});
