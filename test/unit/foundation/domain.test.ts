import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canStartDiscovery,
  discoveryResultSchema,
  explorationStepSchema,
  insightSchema,
  projectSchema,
  recommendationSchema,
  runSchema,
} from '../../../src/domain/index.js';

const now = '2026-11-23T09:00:00.000Z';

function roundTrip<T>(schema: { parse: (value: unknown) => T }, value: unknown): T {
  const parsed = schema.parse(value);
  return schema.parse(JSON.parse(JSON.stringify(parsed)));
}

describe('domain model', () => {
  it('round-trips a run through JSON with defaults filled', () => {
    const run = runSchema.parse({
      id: 'run-1',
      project_id: 'p1',
      status: 'pending',
      phase: 'prepare',
      settings: { max_steps: 10, min_steps: 2, llm: 'offline:analyst', pack: 'ecommerce', analysis_budget_tokens: 200_000 },
      created_at: now,
      updated_at: now,
    });
    expect(run.telemetry.analysis_step_index_upserts).toBe(0);
    expect(run.counters.total_queries).toBe(0);
    expect(roundTrip(runSchema, run)).toEqual(run);
  });

  it('refuses a run id with a colon (BullMQ job ids embed run ids)', () => {
    const attempt = runSchema.safeParse({
      id: 'run:1',
      project_id: 'p',
      status: 'pending',
      phase: 'prepare',
      settings: {},
      created_at: now,
      updated_at: now,
    });
    expect(attempt.success).toBe(false);
  });

  it('keeps both the original and the executed SQL of a fixed step', () => {
    const step = roundTrip(explorationStepSchema, {
      run_id: 'r',
      step: 3,
      action: 'query',
      timestamp: now,
      query: 'SELECT devise FROM main.sessions',
      executed_query: 'SELECT device FROM main.sessions',
      fix_attempts: 1,
      fixed: true,
      row_count: 2,
    });
    expect(step.query).not.toEqual(step.executed_query);
    expect(step.fixed).toBe(true);
  });

  it('accepts every step action including complete_rejected and error', () => {
    for (const action of ['query', 'lookup_schema', 'search_tables', 'done', 'complete_rejected', 'error']) {
      expect(explorationStepSchema.safeParse({ run_id: 'r', step: 1, action, timestamp: now }).success).toBe(true);
    }
  });

  it('treats a project without a state as ready', () => {
    const project = projectSchema.parse({
      id: 'shop',
      name: 'Shop',
      domain: 'ecommerce',
      warehouse: { url: 'duckdb::memory:' },
      llm: 'offline:analyst',
      created_at: now,
      updated_at: now,
    });
    expect(project.state).toBe('ready');
    expect(canStartDiscovery(project)).toBe(true);
    expect(canStartDiscovery({ state: 'pack_generation' })).toBe(false);
  });

  it('round-trips arbitrary insights and recommendations', () => {
    const insightArb = fc.record({
      id: fc.stringMatching(/^[a-z]{3,8}-[1-9]$/),
      analysis_area: fc.constantFrom('churn', 'revenue'),
      name: fc.string({ minLength: 1, maxLength: 40 }),
      description: fc.string({ maxLength: 80 }),
      severity: fc.constantFrom('critical', 'high', 'medium', 'low'),
      affected_count: fc.option(fc.nat(), { nil: null }),
      confidence: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
      source_steps: fc.array(fc.integer({ min: 1, max: 100 }), { maxLength: 5 }),
      discovered_at: fc.constant(now),
    });
    fc.assert(
      fc.property(insightArb, (insight) => {
        expect(roundTrip(insightSchema, insight)).toEqual(insightSchema.parse(insight));
      }),
    );
    const rec = recommendationSchema.parse({
      id: 'rec-1',
      title: 'Fix mobile checkout',
      priority: 1,
      related_insight_ids: ['conversion-1'],
    });
    expect(roundTrip(recommendationSchema, rec)).toEqual(rec);
    expect(rec.effort).toBeNull();
  });

  it('rejects a recommendation priority outside 1..5', () => {
    expect(recommendationSchema.safeParse({ id: 'r', title: 't', priority: 9 }).success).toBe(false);
  });

  it('round-trips a result document', () => {
    const result = discoveryResultSchema.parse({
      run_id: 'r',
      project_id: 'p',
      domain: 'ecommerce',
      discovery_date: '2026-11-23',
      run_type: 'partial',
      total_steps: 5,
      duration_ms: 1200,
      insights: [],
      recommendations: [],
      summary: {
        text: 's',
        key_findings: [],
        total_insights: 0,
        total_recommendations: 0,
        queries_executed: 3,
        errors: ['area revenue failed'],
      },
      analysis_log: [{ area_id: 'revenue', area_name: 'Revenue', status: 'failed', error: 'timeout' }],
      recommendation_log: {},
      validation_log: [],
      telemetry: {},
    });
    expect(roundTrip(discoveryResultSchema, result)).toEqual(result);
  });
});
