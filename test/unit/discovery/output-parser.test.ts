import { describe, expect, it } from 'vitest';
import { parseInsights, parseRecommendations } from '../../../src/discovery/parsing/output-parser.js';

const insight = {
  name: 'Mobile checkout abandonment 3x desktop',
  description: 'd',
  severity: 'high',
  affected_count: 1200,
  source_steps: [3, 5],
};

describe('parseInsights', () => {
  it('reads a fenced insights object', () => {
    const result = parseInsights(`\`\`\`json\n${JSON.stringify({ insights: [insight] })}\n\`\`\``);
    expect(result).toMatchObject({ ok: true, items: [{ name: insight.name, severity: 'high', source_steps: [3, 5] }] });
  });

  it('coerces numbers written as strings, severity case and percentages', () => {
    const result = parseInsights(
      JSON.stringify({ insights: [{ ...insight, severity: 'HIGH', affected_count: '1,200', confidence: 85, source_steps: ['3'] }] }),
    );
    expect(result).toMatchObject({ ok: true, items: [{ severity: 'high', affected_count: 1200, confidence: 0.85, source_steps: [3] }] });
  });

  it('accepts an empty list as a valid "nothing found"', () => {
    expect(parseInsights('{"insights": []}')).toEqual({ ok: true, items: [], dropped: [] });
  });

  it('drops invalid entries but keeps valid ones, saying why', () => {
    const result = parseInsights(JSON.stringify({ insights: [insight, { name: '', severity: 'urgent' }] }));
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.items).toHaveLength(1);
      expect(result.dropped[0]?.reason).toMatch(/severity|name/);
    }
  });

  it('asks for a retry when every entry is invalid or the list is missing', () => {
    expect(parseInsights(JSON.stringify({ insights: [{ severity: 'urgent' }] })).ok).toBe(false);
    expect(parseInsights('{"findings": []}')).toMatchObject({ ok: false, reason: expect.stringMatching(/"insights" array/) });
    expect(parseInsights('Here are my thoughts about churn.')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no parseable JSON/),
    });
  });

  it('accepts a bare array of insights', () => {
    expect(parseInsights(JSON.stringify([insight]))).toMatchObject({ ok: true, items: [{ name: insight.name }] });
  });
});

describe('parseRecommendations', () => {
  it('validates priority 1-5 and keeps effort and success metrics', () => {
    const result = parseRecommendations(
      JSON.stringify({
        recommendations: [
          {
            title: 'Simplify mobile checkout',
            priority: '1',
            effort: 'Medium',
            success_metrics: ['mobile conversion'],
            related_insight_ids: ['conversion-1'],
          },
          { title: 'Bad priority', priority: 9 },
        ],
      }),
    );
    expect(result).toMatchObject({ ok: true, items: [{ priority: 1, effort: 'medium', success_metrics: ['mobile conversion'] }] });
    if (result.ok) expect(result.dropped).toHaveLength(1);
  });
});
