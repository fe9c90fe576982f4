import { describe, expect, it } from 'vitest';
import { runDemoDiscovery } from './demo-discovery.js';

describe('when a full discovery runs on the e-commerce demo with the offline analyst', () => {
  it('finds the planted patterns, confirms its insights and links recommendations to them', async () => {
    const outcome = await runDemoDiscovery('ecommerce', 24);
    const { score, result } = outcome;
    console.log(
      `offline analyst on ecommerce: ${score.found}/${score.planted} planted patterns, ${score.insights} insights, confirmed share ${score.confirmed_share}, ${outcome.elapsedMs} ms`,
    );
    expect(outcome.run.status).toBe('completed');
    expect(score.found).toBe(score.planted);
    expect(score.confirmed_share).toBeGreaterThanOrEqual(0.8);
    const areasWithInsights = new Set(result.insights.map((insight) => insight.analysis_area));
    expect([...areasWithInsights].sort()).toEqual(['conversion', 'retention', 'revenue']);
    expect(result.recommendations.length).toBeGreaterThanOrEqual(3);
    const ids = new Set(result.insights.filter((insight) => insight.validation?.status !== 'rejected').map((insight) => insight.id));
    for (const recommendation of result.recommendations) {
      expect(recommendation.related_insight_ids.length).toBeGreaterThan(0);
      for (const id of recommendation.related_insight_ids) expect(ids.has(id)).toBe(true);
    }
  }, 180_000);
});
