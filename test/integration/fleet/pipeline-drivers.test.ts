/**
 * One pipeline, two drivers: the same fault schedule run through the in-process runner and through
 * the BullMQ fleet (real redis-server) must leave the same run document — same statuses, errors,
 * insights, validations, recommendations and steps — because both drive one state machine under one
 * error policy.
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '../../../src/domain/index.js';
import { LlmAuthError, LlmRateLimitError } from '../../../src/errors/index.js';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import type { OfflineBrain } from '../../../src/llm/providers/offline.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, QUERY_REVENUE, nextStep, phaseOf, scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet } from './fleet-harness.js';
import { useRedisServer } from './redis-lifecycle.js';
import { redisServerMissing } from './redis-server.js';

const redis = useRedisServer();
const AREAS = ['conversion', 'revenue'];

/**
 * The schedule, keyed by what a call is about (never by global order, which concurrency changes):
 * - exploration step 2: a 429 on its first ask (rate limit → wait, retry)
 * - analysis of conversion: a 429 on its first call
 * - analysis of revenue: a malformed reply every time (final: reformat retries, then the area fails)
 * - recommendations: an authentication error (final: recorded, never retried)
 * - store: the first write that starts analysing conversion fails, and so does the first write of a validation
 */
function faultSchedule() {
  const seen = new Map<string, number>();
  const once = (key: string) => {
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count === 1;
  };
  const { brain: scripted } = scriptedBrain({ exploration: { 1: QUERY_DEVICE, 2: QUERY_REVENUE } });
  const rateLimit = () => new LlmRateLimitError('429 too many requests', { provider: 'offline', status: 429, retryAfterMs: 20 });
  const brain: OfflineBrain = (request: LlmRequest) => {
    const phase = phaseOf(request);
    const prompt = request.messages.map((message) => message.content).join('\n');
    if (phase === 'exploration' && nextStep(request) === 2 && once('explore-2')) throw rateLimit();
    if (phase === 'analysis' && prompt.includes('Funnel Conversion') && once('analysis-conversion')) throw rateLimit();
    if (phase === 'analysis' && !prompt.includes('Funnel Conversion')) return 'the revenue looks fine to me';
    if (phase === 'recommendations') throw new LlmAuthError('401 invalid x-api-key', { provider: 'offline', status: 401 });
    return scripted(request) as string;
  };
  const breakStore = (harness: Harness) => {
    const store = harness.deps.store;
    harness.deps.store = {
      ...store,
      updateRun: (id: string, mutate: (run: Run) => Run) =>
        store.updateRun(id, (run) => {
          const next = mutate(run);
          const starting = next.areas.some(
            (area) =>
              area.area_id === 'conversion' &&
              area.status === 'running' &&
              run.areas.find((before) => before.area_id === 'conversion')?.status !== 'running',
          );
          if (starting && once('store-area-start')) throw new Error('disk full (area start)');
          const validating = next.areas.some((area) =>
            area.insights.some(
              (insight) =>
                insight.validation &&
                !run.areas.find((before) => before.area_id === area.area_id)?.insights.find((old) => old.id === insight.id)?.validation,
            ),
          );
          if (validating && once('store-validation')) throw new Error('disk full (validation)');
          return next;
        }),
    };
  };
  return { brain, breakStore };
}

/** The run document without what legitimately differs between drivers (times, durations, ids of jobs, latency). */
function comparable(run: Run, steps: readonly { step: number; action: string; error?: string | undefined; query?: string | undefined }[]) {
  const callsByPhase: Record<string, number> = {};
  for (const call of run.telemetry.llm_calls) callsByPhase[call.phase] = (callsByPhase[call.phase] ?? 0) + 1;
  return {
    status: run.status,
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

describe.skipIf(redisServerMissing)('when the same fault schedule runs through the in-process runner and the BullMQ fleet', () => {
  it('both drivers leave the same run document', async () => {
    const local = faultSchedule();
    const harness = await createHarness(local.brain);
    local.breakStore(harness);
    const localRun = await harness.newRun({ maxSteps: 4, areas: AREAS });
    await runDiscoveryLocally(harness.deps, localRun.id, { concurrency: 2, retryBackoffMs: 5 });
    const localDoc = comparable((await harness.deps.store.getRun(localRun.id)) as Run, await harness.deps.store.listSteps(localRun.id));
    await harness.close();

    const remote = faultSchedule();
    const fleet = redis.track(await createFleet(redis.url, remote.brain, { wrapStore: remote.breakStore }));
    await fleet.startWorkers();
    const fleetRun = await fleet.harness.newRun({ maxSteps: 4, areas: AREAS });
    await fleet.launcher.launch(fleetRun.id);
    const finished = await fleet.waitForRunEnd(fleetRun.id, 30_000);
    const fleetDoc = comparable(finished, await fleet.harness.deps.store.listSteps(fleetRun.id));

    expect(fleetDoc).toEqual(localDoc);
    // and the schedule did what it says
    expect(localDoc.run_type).toBe('partial');
    expect(localDoc.areas.find((area) => area.id === 'revenue')).toMatchObject({ status: 'failed' });
    expect(localDoc.areas.find((area) => area.id === 'revenue')?.error).toMatch(/unusable/);
    expect(localDoc.areas.find((area) => area.id === 'conversion')).toMatchObject({ status: 'completed' });
    expect(localDoc.areas.find((area) => area.id === 'conversion')?.insights[0]?.validation?.status).toBe('adjusted');
    expect(localDoc.recommendation_log).toMatchObject({ status: 'failed' });
    expect(localDoc.recommendation_log.error).toMatch(/401/);
    expect(localDoc.steps.map((step) => step.action)).toEqual(['query', 'query', 'done']);
  });
});
