import { describe, expect, it } from 'vitest';
import { renderClaim } from '../../../src/discovery/claims/claim-text.js';
import { parseRecommendations } from '../../../src/discovery/parsing/output-parser.js';
import { toRecommendations } from '../../../src/discovery/phases/recommend.js';
import { type Claim, type Insight, claimSchema } from '../../../src/domain/index.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { insight, recommendationsRequest } from './prompts.js';

const confirmed = (count: number): Insight['validation'] => ({
  status: 'confirmed',
  verified_count: count,
  original_count: count,
  query: '',
  reasoning: '',
  validated_at: '',
  lookups_used: 0,
});

function rateGap(options: {
  table: string;
  noun: string;
  measure: string;
  outcome: string;
  better?: 'higher' | 'lower';
  column: string;
  label: string;
  value: string;
  rate: number;
  rest: number;
  rows: number;
}): Claim {
  return claimSchema.parse({
    kind: 'difference',
    noun: options.noun,
    metric: {
      kind: 'rate',
      table: options.table,
      condition: { column: options.outcome, op: '=', value: true },
      label: options.measure,
      ...(options.better ? { better: options.better } : {}),
    },
    segment: { column: options.column, value: options.value, label: options.label },
    comparison: { kind: 'rest' },
    value: options.rate,
    comparison_value: options.rest,
    direction: options.rate > options.rest ? 'higher' : 'lower',
    test: { name: 'two_proportion_z', statistic: 30, p_value: 1e-12 },
    n: { segment: options.rows, comparison: 20_000 },
  });
}

function fromClaim(id: string, claim: Claim, overrides: Partial<Insight> = {}): Insight {
  const text = renderClaim(claim);
  return insight({
    id,
    name: text.title,
    description: text.description,
    claim,
    affected_count: claim.n?.segment ?? null,
    validation: confirmed(claim.n?.segment ?? 0),
    ...overrides,
  });
}

const mobileAbandons = rateGap({
  table: 'main.sessions',
  noun: 'sessions',
  measure: 'checkout abandonment rate',
  outcome: 'checkout_abandonment',
  better: 'lower',
  column: 'device_type',
  label: 'device',
  value: 'mobile',
  rate: 0.666,
  rest: 0.27,
  rows: 10_520,
});
const springRetains = rateGap({
  table: 'main.customers',
  noun: 'customers',
  measure: 'repeat rate',
  outcome: 'repeat',
  better: 'higher',
  column: 'promotion_code',
  label: 'promotion code',
  value: 'SPRINGVIP25',
  rate: 0.49,
  rest: 0.18,
  rows: 467,
});
const hardwareTickets = rateGap({
  table: 'main.incidents',
  noun: 'incidents',
  measure: 'reopened rate',
  outcome: 'reopened',
  column: 'category',
  label: 'category',
  value: 'Hardware',
  rate: 0.31,
  rest: 0.12,
  rows: 177,
});

const insights = [
  fromClaim('conversion-1', mobileAbandons, { severity: 'high' }),
  fromClaim('retention-1', springRetains, { severity: 'high' }),
  fromClaim('durations-1', hardwareTickets, { severity: 'medium' }),
  fromClaim(
    'revenue-3',
    { ...mobileAbandons, segment: { column: 'region', value: 'Southeast', label: 'region' } },
    {
      validation: { ...confirmed(0), status: 'rejected' } as Insight['validation'],
    },
  ),
];

async function recommendations(from: readonly Insight[] = insights) {
  const parsed = parseRecommendations(await createOfflineAnalyst()(recommendationsRequest(from)));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.items;
}

const about = async (id: string) => (await recommendations()).find((item) => item.related_insight_ids.includes(id));

describe('when writing recommendations from the claims of verified insights', () => {
  it('frames a problem as something to find out and fix, naming the segment, the measure and the rounded numbers', async () => {
    const problem = await about('conversion-1');
    expect(problem?.title).toBe(
      'Find out why sessions whose device is mobile have a higher checkout abandonment rate (66.6% vs 27.0%) and fix it',
    );
    expect(problem?.category).toBe('checkout');
    expect(problem?.expected_impact?.estimated_improvement).toBe('9.90 to 19.8 percentage points');
  });

  it('frames a strength as something to learn from and extend', async () => {
    expect((await about('retention-1'))?.title).toBe(
      'Learn from customers whose promotion code is SPRINGVIP25 (repeat rate 49.0% vs 18.0%) and extend what works to the other customers',
    );
  });

  it('asks to look into a gap on a measure with no known good side, without calling it a problem', async () => {
    const gap = await about('durations-1');
    expect(gap?.title).toBe('Look into why incidents whose category is Hardware have a higher reopened rate (31.0% vs 12.0%)');
    expect(JSON.stringify(gap)).not.toMatch(/fix it|Learn from/);
  });

  it('puts problems before strengths of the same severity, and never says "Act on the gap"', async () => {
    const items = await recommendations();
    const order = items.map((item) => item.related_insight_ids[0]);
    expect(order.indexOf('conversion-1')).toBeLessThan(order.indexOf('retention-1'));
    expect(JSON.stringify(items)).not.toMatch(/Act on the gap/);
  });

  it('never builds on a rejected insight', async () => {
    expect((await recommendations()).flatMap((item) => item.related_insight_ids)).not.toContain('revenue-3');
  });

  it('writes only numbers the claims hold, so the engine keeps every recommendation', async () => {
    const { recommendations: kept, rejected } = toRecommendations(await recommendations(), insights);
    expect(rejected).toEqual([]);
    expect(kept).toHaveLength(3);
  });

  it('writes in the data’s own words, with no e-commerce or game copy for other data', async () => {
    const text = JSON.stringify(await recommendations([fromClaim('durations-1', hardwareTickets)]));
    expect(text).not.toMatch(/checkout|order|revenue|player|booster|difficulty|refund|delivery|campaign|install/i);
    expect(text).toMatch(/incidents whose category is Hardware/);
  });
});

describe('when a model writes a recommendation with numbers its insights do not hold', () => {
  it('leaves it out and says which numbers and insights', () => {
    const { recommendations: kept, rejected } = toRecommendations(
      [
        {
          title: 'Cut mobile checkout abandonment from 66.6% to 35%',
          description: 'Mobile sessions abandon checkout at 66.6% against 27.0% elsewhere.',
          priority: 1,
          related_insight_ids: ['conversion-1'],
        },
        {
          title: 'Simplify mobile checkout',
          description: 'Mobile sessions abandon checkout at 66.6% against 27.0% for the other sessions, over 10,520 sessions.',
          priority: 2,
          related_insight_ids: ['conversion-1'],
        },
      ],
      insights,
    );
    expect(kept.map((item) => item.title)).toEqual(['Simplify mobile checkout']);
    expect(rejected).toEqual([
      {
        title: 'Cut mobile checkout abandonment from 66.6% to 35%',
        reason: 'states 35%, which no claim of its insights (conversion-1) holds',
      },
    ]);
  });

  it('reads a negative segment size (a signed value copied from a claim) as unknown instead of failing the phase', () => {
    const { recommendations: kept } = toRecommendations(
      [{ title: 'Simplify mobile checkout', description: '', priority: 1, segment_size: -0.17, related_insight_ids: ['conversion-1'] }],
      insights,
    );
    expect(kept.map((item) => item.segment_size)).toEqual([null]);
  });
});
