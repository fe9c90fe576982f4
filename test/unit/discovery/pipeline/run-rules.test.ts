import { describe, expect, it } from 'vitest';
import { runSchema, type Run } from '../../../../src/domain/index.js';
import { failRecommendations, failUnsettledAreas, failVerification, stopExplorationAt } from '../../../../src/discovery/pipeline/index.js';

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
