import { describe, expect, it } from 'vitest';
import { parseRecommendations } from '../../../src/discovery/parsing/output-parser.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { insight, recommendationsRequest } from './prompts.js';

const insights = [
  insight({
    id: 'conversion-1',
    name: 'mobile: checkout abandonment 2.5× the other device type values (67% vs 27%)',
    description: 'Weak spot: by device type …',
    severity: 'critical',
    affected_count: 10_520,
    validation: {
      status: 'confirmed',
      verified_count: 10_000,
      original_count: 10_520,
      query: '',
      reasoning: '',
      validated_at: '',
      lookups_used: 0,
    },
  }),
  insight({
    id: 'revenue-1',
    name: 'Electronics: refund rate rising month over month: 3.5% → 24%',
    severity: 'critical',
    affected_count: 3_253,
  }),
  insight({
    id: 'revenue-2',
    name: 'Electronics: refund rate 4.6× the other product category values (15% vs 3.3%)',
    description: 'Weak spot: …',
    severity: 'critical',
    affected_count: 3_253,
  }),
  insight({
    id: 'retention-1',
    name: 'Paid Social: repeat rate 3.1× lower than the other acquisition channel name values (28% vs 85%)',
    description: 'Weak spot: …',
    severity: 'high',
    affected_count: 1_597,
  }),
  insight({
    id: 'retention-2',
    name: 'SPRINGVIP25: week-5 retention 2.8× the other acquisition promotion code values (49% vs 18%)',
    description: 'Strength: …',
    severity: 'medium',
    affected_count: 467,
  }),
  insight({
    id: 'revenue-3',
    name: 'Southeast: order status cancelled rate 4.2× the other shipping region values (14% vs 3.5%)',
    severity: 'high',
    affected_count: 2_479,
    validation: {
      status: 'rejected',
      verified_count: 0,
      original_count: 2_479,
      query: '',
      reasoning: '',
      validated_at: '',
      lookups_used: 0,
    },
  }),
];

async function recommendations() {
  const parsed = parseRecommendations(await createOfflineAnalyst()(recommendationsRequest(insights)));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.items;
}

describe('when writing recommendations from verified insights', () => {
  it('gives one per distinct insight subject, most severe first, each linked to known insights', async () => {
    const items = await recommendations();
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(items.map((item) => item.priority)).toEqual([...items.map((item) => item.priority)].sort((a, b) => a - b));
    const known = new Set(insights.map((item) => item.id));
    for (const item of items) {
      expect(item.related_insight_ids.length).toBeGreaterThan(0);
      for (const id of item.related_insight_ids) expect(known.has(id)).toBe(true);
      expect(item.actions?.length).toBeGreaterThan(0);
      expect(item.success_metrics?.length).toBeGreaterThan(0);
    }
    expect(items.find((item) => item.related_insight_ids.includes('revenue-1'))?.related_insight_ids).toEqual(['revenue-1', 'revenue-2']);
  });

  it('never builds on a rejected insight', async () => {
    expect((await recommendations()).flatMap((item) => item.related_insight_ids)).not.toContain('revenue-3');
  });

  it('sizes a segment no larger than the verified count', async () => {
    const checkout = (await recommendations()).find((item) => item.related_insight_ids.includes('conversion-1'));
    expect(checkout?.segment_size).toBe(10_000);
    expect(checkout?.category).toBe('checkout');
  });

  it('treats a strong segment as something to learn from, not to fix', async () => {
    expect((await recommendations()).find((item) => item.related_insight_ids.includes('retention-2'))?.title).toMatch(
      /^Learn from SPRINGVIP25/,
    );
  });
});

describe('when the insights come from data with no funnel, orders or players', () => {
  const generic = [
    insight({
      id: 'durations-1',
      name: 'Hardware: average closing time (from opened to closed) significantly higher than the other category values (51.6 days vs 7.3 days, 7.1×)',
      description: 'By category (step 3), Hardware has an average closing time of 51.6 days over 177 tickets …',
      severity: 'critical',
      affected_count: 177,
    }),
    insight({
      id: 'concentration-1',
      name: 'Luke Wilson and Beth Anglin: significantly more tickets than the other assigned to values (150 and 116; median 87)',
      severity: 'medium',
      affected_count: 266,
    }),
    insight({
      id: 'trends-1',
      name: 'Hardware: increased tickets from 2023-06 to 2023-08, 5.0× its median month (45 vs 9 per month)',
      severity: 'high',
      affected_count: 135,
    }),
    insight({
      id: 'concentration-2',
      name: 'Cancelled: significantly more tickets than the other state values (200 of 500, 40%; median 80)',
      severity: 'medium',
      affected_count: 200,
    }),
  ];

  it('writes recommendations in the data’s words, with no e-commerce or game copy', async () => {
    const parsed = parseRecommendations(await createOfflineAnalyst()(recommendationsRequest(generic)));
    if (!parsed.ok) throw new Error(parsed.reason);
    const text = JSON.stringify(parsed.items);
    expect(text).not.toMatch(/checkout|order|revenue|player|booster|difficulty|refund|delivery|campaign|install/i);
    expect(parsed.items.map((item) => item.title)).toEqual(
      expect.arrayContaining(['Review the imbalance towards Luke Wilson and Beth Anglin', 'Explain the change over time in Hardware']),
    );
  });
});
