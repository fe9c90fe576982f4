import { describe, expect, it } from 'vitest';
import { type AreaRun, type Run, runSchema } from '../../../src/domain/index.js';
import { assertResumable, reopenRun, whyNotResumable } from '../../../src/runs/reopen-run.js';

const NOW = new Date('2026-11-27T10:00:00.000Z');

function area(id: string, status: AreaRun['status'], insights: Array<Record<string, unknown>> = []): Record<string, unknown> {
  return {
    area_id: id,
    area_name: id,
    status,
    ...(status === 'failed' ? { error: 'analysis failed: 429' } : {}),
    insights: insights.map((insight, index) => ({
      id: `${id}-${index + 1}`,
      analysis_area: id,
      name: `insight ${index + 1}`,
      description: 'd',
      severity: 'medium',
      affected_count: 10,
      risk_score: 0.5,
      confidence: 0.5,
      metrics: {},
      indicators: [],
      target_segment: 'all',
      source_steps: [1],
      discovered_at: '2026-11-27T09:04:00.000Z',
      ...insight,
    })),
  };
}

function run(overrides: Record<string, unknown>): Run {
  return runSchema.parse({
    id: 'run-1',
    project_id: 'p',
    status: 'failed',
    phase: 'complete',
    progress: 100,
    run_type: 'partial',
    settings: { max_steps: 10, min_steps: 0, llm: 'offline:analyst', pack: 'ecommerce', analysis_budget_tokens: 1000 },
    steps_completed: 4,
    created_at: '2026-11-27T09:00:00.000Z',
    updated_at: '2026-11-27T09:10:00.000Z',
    completed_at: '2026-11-27T09:10:00.000Z',
    ...overrides,
  });
}

const validation = (status: string) => ({
  status,
  verified_count: 10,
  original_count: 10,
  query: '',
  reasoning: 'r',
  validated_at: '2026-11-27T09:05:00.000Z',
});

describe('when a run is reopened to be resumed', () => {
  it('keeps completed and skipped areas and their checked insights, and reopens failed ones', () => {
    const reopened = reopenRun(
      run({
        areas: [area('kept', 'completed', [{ validation: validation('confirmed') }]), area('quiet', 'skipped'), area('broken', 'failed')],
        recommendations: [],
        recommendation_log: { status: 'completed' },
        error: 'area broken failed',
      }),
      NOW,
    );
    expect(reopened.areas.map((entry) => [entry.area_id, entry.status, entry.error])).toEqual([
      ['kept', 'completed', undefined],
      ['quiet', 'skipped', undefined],
      ['broken', 'pending', undefined],
    ]);
    expect(reopened.areas[0]?.insights[0]?.validation?.status).toBe('confirmed');
    expect(reopened).toMatchObject({ status: 'pending', phase: 'prepare', progress: 60, updated_at: NOW.toISOString() });
    expect(reopened.error).toBeUndefined();
    expect(reopened.run_type).toBeUndefined();
    expect(reopened.completed_at).toBeUndefined();
    // an area analysed again can change the insights the recommendations read
    expect(reopened.recommendation_log.status).toBe('pending');
  });

  it('checks an insight again whose verification ended in an error, and writes the recommendations again', () => {
    const reopened = reopenRun(
      run({
        status: 'completed',
        areas: [area('a', 'completed', [{ validation: validation('error') }, { validation: validation('confirmed') }])],
        recommendation_log: { status: 'completed' },
      }),
      NOW,
    );
    expect(reopened.areas[0]?.insights.map((insight) => insight.validation?.status)).toEqual([undefined, 'confirmed']);
    expect(reopened.recommendation_log.status).toBe('pending');
  });

  it('keeps the recommendations of a cancelled run whose analysis had settled', () => {
    const recommendation = { id: 'rec-1', title: 't', priority: 1, related_insight_ids: ['a-1'] };
    const reopened = reopenRun(
      run({
        status: 'cancelled',
        areas: [area('a', 'completed')],
        recommendations: [recommendation],
        recommendation_log: { status: 'completed' },
      }),
      NOW,
    );
    expect(reopened.recommendations).toHaveLength(1);
    expect(reopened.recommendation_log.status).toBe('completed');
  });

  it('lets a cancelled exploration go on, but not one a model failure ended (its error step is stored)', () => {
    expect(reopenRun(run({ status: 'cancelled', exploration_done_reason: 'cancelled' }), NOW).exploration_done_reason).toBeUndefined();
    const failed = reopenRun(run({ exploration_done_reason: 'llm_error', error: 'exploration stopped at step 4: 401' }), NOW);
    expect(failed.exploration_done_reason).toBe('llm_error');
    expect(failed.error).toBe('exploration stopped at step 4: 401');
  });
});

describe('when a run is asked to resume', () => {
  it('refuses a run still in progress and a run with nothing left to do, saying why', () => {
    expect(() => assertResumable(run({ status: 'running', run_type: undefined, completed_at: undefined }))).toThrowError(
      'run run-1 cannot be resumed: it is still running',
    );
    expect(whyNotResumable(run({ status: 'completed', run_type: 'full' }))).toMatch(/nothing left to do/);
    expect(
      whyNotResumable(
        run({
          status: 'completed',
          run_type: 'partial',
          areas: [area('a', 'completed'), area('b', 'skipped')],
          recommendation_log: { status: 'completed' },
        }),
      ),
    ).toMatch(/a skipped area needs a new, longer run/);
  });

  it('accepts cancelled, failed and partial runs with unfinished work', () => {
    expect(whyNotResumable(run({ status: 'cancelled' }))).toBeUndefined();
    expect(whyNotResumable(run({ status: 'failed' }))).toBeUndefined();
    expect(whyNotResumable(run({ status: 'completed', run_type: 'partial', areas: [area('a', 'failed')] }))).toBeUndefined();
  });
});
