import { describe, expect, it } from 'vitest';
import { runSchema, type Run } from '../../../../src/domain/index.js';
import {
  failRecommendations,
  failUnsettledAreas,
  failVerification,
  settleVerifications,
  stopExplorationAt,
  type InsightVerdict,
} from '../../../../src/discovery/pipeline/index.js';

const STAMP = '2026-11-23T09:00:00.000Z';

function area(areaId: string, status: Run['areas'][number]['status'], extra: Record<string, unknown> = {}) {
  return { area_id: areaId, area_name: areaId, status, ...extra };
}

function insight(id: string, validation?: Record<string, unknown>) {
  return {
    id,
    analysis_area: 'conversion',
    name: id,
    severity: 'high',
    affected_count: 120,
    discovered_at: STAMP,
    ...(validation ? { validation } : {}),
  };
}

function runWith(fields: Record<string, unknown>): Run {
  return runSchema.parse({
    id: 'r1',
    project_id: 'shop',
    status: 'running',
    phase: 'analysis',
    settings: { max_steps: 8, min_steps: 0, llm: 'offline:analyst', pack: 'ecommerce', analysis_budget_tokens: 200_000 },
    created_at: STAMP,
    updated_at: STAMP,
    ...fields,
  });
}

describe('reconciling a run after a unit of work failed for good without recording its outcome', () => {
  it('fails only the areas that never settled, with the job failure when there is one', () => {
    const run = runWith({
      areas: [area('done', 'completed'), area('crashed', 'running'), area('lost', 'pending'), area('empty', 'skipped')],
    });
    const reconciled = failUnsettledAreas(run, new Map([['crashed', 'disk full']]));
    expect(reconciled.areas.map((entry) => [entry.area_id, entry.status, entry.error])).toEqual([
      ['done', 'completed', undefined],
      ['crashed', 'failed', 'analysis failed: disk full'],
      ['lost', 'failed', 'analysis failed: it settled without recording an outcome'],
      ['empty', 'skipped', undefined],
    ]);
  });

  it('ends exploration at the failed step once, keeping an earlier reason', () => {
    const stopped = stopExplorationAt(runWith({}), 3, 'warehouse down');
    expect([stopped.exploration_done_reason, stopped.error]).toEqual(['llm_error', 'exploration stopped at step 3: warehouse down']);
    const finishedEarlier = runWith({ exploration_done_reason: 'done' });
    expect(stopExplorationAt(finishedEarlier, 3, 'warehouse down')).toBe(finishedEarlier);
  });

  it('gives an unvalidated insight an error validation and never overwrites a real one or the claimed count', () => {
    const confirmed = { status: 'confirmed', verified_count: 118, original_count: 120, validated_at: STAMP };
    const run = runWith({
      areas: [
        area('conversion', 'completed', {
          insights: [insight('conversion-1'), insight('conversion-2', confirmed)],
          insight_ids: ['conversion-1', 'conversion-2'],
        }),
      ],
    });
    const once = failVerification(run, 'conversion-1', 'disk full', new Date(STAMP));
    const twice = failVerification(once, 'conversion-2', 'disk full', new Date(STAMP));
    const [first, second] = twice.areas[0]!.insights;
    expect(first?.validation).toMatchObject({
      status: 'error',
      verified_count: null,
      original_count: 120,
      reasoning: 'verification failed: disk full',
    });
    expect(first?.affected_count).toBe(120);
    expect(second?.validation).toMatchObject({ status: 'confirmed', verified_count: 118 });
  });

  it('fails recommendations only while they are still pending', () => {
    expect(failRecommendations(runWith({}), 'timeout').recommendation_log).toMatchObject({
      status: 'failed',
      error: 'recommendations failed: timeout',
    });
    const written = runWith({ recommendation_log: { status: 'completed' } });
    expect(failRecommendations(written, 'timeout')).toBe(written);
  });
});

describe("storing an analysis stage's verifications in one update", () => {
  const confirmed = {
    status: 'confirmed',
    verified_count: 118,
    original_count: 120,
    query: 'SELECT 1',
    reasoning: 'ok',
    validated_at: STAMP,
  };
  const verdict = (insightId: string, extra: Partial<InsightVerdict> = {}): InsightVerdict => ({
    insightId,
    validation: { ...confirmed, lookups_used: 0 } as InsightVerdict['validation'],
    durationsMs: { verification: 12.5, verification_sql: 4 },
    ...extra,
  });
  const analysed = (status: Run['status'] = 'running') =>
    runWith({
      status,
      areas: [
        area('conversion', 'completed', {
          insights: [insight('conversion-1'), insight('conversion-2'), insight('conversion-3')],
          insight_ids: ['conversion-1', 'conversion-2', 'conversion-3'],
        }),
        area('revenue', 'running', { insights: [insight('revenue-1')], insight_ids: ['revenue-1'] }),
      ],
    });
  const outcomes = (verdicts: InsightVerdict[], failures: Array<[string, string]> = []) => ({
    verdicts,
    failures: new Map(failures),
    settledAt: STAMP,
  });

  it('gives each insight its verdict and rewrite, adds their durations, and marks the ones without one as errors, saying why', () => {
    const rewrite = {
      name: 'Mobile converts 12% less',
      description: 'recounted',
      text_source: 'claim' as const,
      affected_count: 90,
      supporting_claims: [],
    };
    const settled = settleVerifications(
      analysed(),
      outcomes([verdict('conversion-1'), verdict('conversion-2', { rewrite })], [['conversion-3', 'disk full (after 3 attempts)']]),
      new Map([['revenue', 'the model replied nonsense']]),
    );
    const [first, second, third] = settled.areas[0]!.insights;
    expect(first?.validation).toMatchObject({ status: 'confirmed', verified_count: 118 });
    expect(second).toMatchObject({ name: 'Mobile converts 12% less', affected_count: 90, validation: { status: 'confirmed' } });
    expect(third?.validation).toMatchObject({ status: 'error', reasoning: 'verification failed: disk full (after 3 attempts)' });
    // an area whose analysis failed keeps its insights as they are: failUnsettledAreas says why
    expect(settled.areas[1]!.insights[0]?.validation).toBeUndefined();
    expect(settled.telemetry.phase_durations_ms).toMatchObject({ verification: 25, verification_sql: 8 });
  });

  it('keeps a validation already stored (a repeated delivery changes nothing) and counts its time once', () => {
    const once = settleVerifications(analysed(), outcomes([verdict('conversion-1')]), new Map());
    const again = settleVerifications(
      once,
      outcomes([verdict('conversion-1', { validation: { ...once.areas[0]!.insights[0]!.validation!, status: 'rejected' } })]),
      new Map(),
    );
    expect(again.areas[0]!.insights[0]?.validation?.status).toBe('confirmed');
    expect(again.telemetry.phase_durations_ms.verification).toBe(12.5);
  });

  it('records no failure for a verification that did not happen in a cancelled run', () => {
    const settled = settleVerifications(analysed('cancelled'), outcomes([]), new Map());
    expect(settled.areas.flatMap((entry) => entry.insights).every((entry) => entry.validation === undefined)).toBe(true);
  });
});
