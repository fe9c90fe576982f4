import { describe, expect, it } from 'vitest';
import { containsKeyword, matchPattern, scoreRun } from '../../../src/eval/score.js';
import { discoveryResultSchema, insightSchema, type ExplorationStep } from '../../../src/domain/index.js';
import type { PlantedPattern } from '../../../src/demo/index.js';

const pattern: PlantedPattern = {
  id: 'mobile-abandon',
  area: 'conversion',
  title: 'Mobile checkout abandonment',
  description: 'd',
  keywords: ['mobile', 'checkout', 'abandon', 'desktop', 'device'],
  tables: ['main.sessions'],
  check: { sql: 'SELECT 1 AS value', expect: { op: '>', value: 0 } },
  evidence_numbers: {},
};

const step = (n: number, sql: string): ExplorationStep => ({
  run_id: 'r',
  step: n,
  action: 'query',
  timestamp: 't',
  thinking: '',
  query_purpose: '',
  fix_attempts: 0,
  fixed: false,
  executed_query: sql,
});
const insight = (id: string, name: string, sourceSteps: number[], status?: 'confirmed' | 'rejected') =>
  insightSchema.parse({
    id,
    analysis_area: 'conversion',
    name,
    severity: 'high',
    source_steps: sourceSteps,
    discovered_at: 't',
    ...(status ? { validation: { status, verified_count: 1, original_count: 1, validated_at: 't' } } : {}),
  });

describe('containsKeyword', () => {
  it('matches at word starts, across underscores and spaces', () => {
    expect(containsKeyword('checkout abandonment on mobile', 'abandon')).toBe(true);
    expect(containsKeyword('paid social customers', 'paid social')).toBe(true);
    expect(containsKeyword('unabandoned', 'abandon')).toBe(false);
  });
});

describe('matchPattern', () => {
  const steps = [step(1, 'SELECT device FROM main.sessions'), step(2, 'SELECT 1 FROM main.orders')];

  it('finds a pattern when a checked insight names it and cites a step on its tables', () => {
    const match = matchPattern(pattern, [insight('conversion-1', 'Mobile checkout abandonment 2.9x desktop', [1], 'confirmed')], steps);
    expect(match).toMatchObject({ found: true, insight_id: 'conversion-1' });
    expect(match.matched_keywords).toEqual(['mobile', 'checkout', 'abandon', 'desktop']);
  });

  it('does not count an insight whose evidence never touched the tables', () => {
    expect(
      matchPattern(pattern, [insight('conversion-1', 'Mobile checkout abandonment 2.9x desktop', [2], 'confirmed')], steps).found,
    ).toBe(false);
  });

  it('needs at least three keywords', () => {
    expect(matchPattern(pattern, [insight('conversion-1', 'Mobile sessions are many', [1], 'confirmed')], steps).found).toBe(false);
  });

  it('counts only a checked fact: an unverified insight finds nothing, however well it names the pattern', () => {
    const unverified = insight('conversion-1', 'Mobile checkout abandonment 2.9x desktop', [1]);
    expect(matchPattern(pattern, [unverified], steps).found).toBe(false);
  });

  it("accepts the claim's own tables as evidence when the insight cites no step", () => {
    const mined = insightSchema.parse({
      ...insight('conversion-1', 'Mobile checkout abandonment 2.9x desktop', [], 'confirmed'),
      claim: {
        kind: 'difference',
        metric: { kind: 'rate', table: 'main.sessions', condition: { column: 'ordered', op: '=', value: false } },
        segment: { column: 'device', value: 'mobile' },
        comparison: { kind: 'rest' },
        value: 0.6,
        comparison_value: 0.2,
        direction: 'higher',
      },
    });
    expect(matchPattern(pattern, [mined], steps).found).toBe(true);
  });
});

describe('scoreRun', () => {
  it('computes recall, confirmed share and linked share', () => {
    const result = discoveryResultSchema.parse({
      run_id: 'r',
      project_id: 'p',
      domain: 'ecommerce',
      discovery_date: '2026-11-23',
      run_type: 'full',
      total_steps: 2,
      duration_ms: 1,
      insights: [
        insight('conversion-1', 'Mobile checkout abandonment vs desktop', [1], 'confirmed'),
        insight('conversion-2', 'Other', [2], 'rejected'),
      ],
      recommendations: [
        { id: 'rec-1', title: 'a', priority: 1, related_insight_ids: ['conversion-1'] },
        { id: 'rec-2', title: 'b', priority: 2, related_insight_ids: [] },
      ],
      summary: { text: '', key_findings: [], total_insights: 2, total_recommendations: 2, queries_executed: 2, errors: [] },
      analysis_log: [],
      recommendation_log: {},
      validation_log: [],
      telemetry: {},
    });
    const score = scoreRun('ecommerce', [pattern, { ...pattern, id: 'other', keywords: ['refund', 'electronics', 'rising'] }], result, [
      step(1, 'SELECT * FROM main.sessions'),
      step(2, 'SELECT 2'),
    ]);
    expect(score).toMatchObject({
      planted: 2,
      found: 1,
      recall: 0.5,
      insights: 2,
      confirmed_share: 0.5,
      recommendations_linked_share: 0.5,
    });
    // the rejected insight is out; the one usable insight found a pattern
    expect(score).toMatchObject({ rejected: 1, precision: 1, found_with_checked_claim: 0 });
  });
});

describe('when the eval is strict', () => {
  const steps = [step(1, 'SELECT device FROM main.sessions')];

  it('never counts a rejected insight, however well it names the pattern (the made-up "desktop is worst" case)', () => {
    const rejected = insight('conversion-1', 'Desktop checkout abandonment is worst, mobile device fine', [1], 'rejected');
    expect(matchPattern(pattern, [rejected], steps).found).toBe(false);
  });

  it('prefers an insight whose claim was recounted and held, and reports it', () => {
    const countOnly = insight('conversion-1', 'Mobile checkout abandonment 2.9x desktop', [1], 'confirmed');
    const recounted = insightSchema.parse({
      ...countOnly,
      id: 'conversion-2',
      validation: {
        status: 'adjusted',
        verified_count: 0.6,
        original_count: 0.7,
        validated_at: 't',
        claim_check: { value: 0.6, comparison_value: 0.2, direction_holds: true, relative_error: 0.14, segment_rows: 40, sql: 'SELECT 1' },
      },
    });
    expect(matchPattern(pattern, [countOnly, recounted], steps)).toMatchObject({
      found: true,
      insight_id: 'conversion-2',
      claim_checked: true,
    });
    expect(matchPattern(pattern, [countOnly], steps)).toMatchObject({ found: true, claim_checked: false });
  });
});
