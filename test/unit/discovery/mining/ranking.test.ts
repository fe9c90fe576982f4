import { describe, expect, it } from 'vitest';
import { claimSchema, type Claim } from '../../../../src/domain/index.js';
import { rankFindings, type ScoredInput } from '../../../../src/discovery/mining/ranking.js';

function difference(overrides: Partial<Claim> & { value: number; comparison_value: number }, segmentRows = 1_200): Claim {
  return claimSchema.parse({
    kind: 'difference',
    metric: {
      kind: 'rate',
      table: 'main.orders',
      condition: { column: 'order_status', op: '=', value: 'cancelled' },
      label: 'cancellation rate',
    },
    segment: { column: 'region', value: 'Southeast', label: 'region' },
    comparison: { kind: 'rest' },
    direction: overrides.value > overrides.comparison_value ? 'higher' : 'lower',
    test: { name: 'two_proportion_z', statistic: 12, p_value: 1e-12 },
    n: { segment: segmentRows, comparison: 10_000 },
    ...overrides,
  });
}

function candidate(claim: Claim, subject: string, strength = 0.9): ScoredInput {
  return {
    claim,
    effect: { name: 'ratio', value: claim.value / Math.max(claim.comparison_value, 1e-9) },
    coverage: 0.1,
    strength,
    columns: [claim.segment?.column ?? '', claim.metric.condition?.column ?? ''],
    subject,
    test: 0,
    q: 1e-10,
    relevance: 0,
  };
}

const rank = (inputs: ScoredInput[]) => rankFindings(inputs, new Map(), 20).map((finding) => finding.claim);

describe('ranking mined findings', () => {
  it('keeps a tendency and drops a rule: every one of many rows of a segment on one side is the data restating itself', () => {
    const tendency = difference({ value: 0.145, comparison_value: 0.035 });
    const rule = difference({
      metric: {
        kind: 'rate',
        table: 'main.orders',
        condition: { column: 'device_type', op: '=', value: 'desktop' },
        filters: [],
        label: 'desktop',
      },
      segment: { column: 'device', value: 'mobile', label: 'device' },
      value: 0,
      comparison_value: 0.807,
    });
    expect(rank([candidate(tendency, 'southeast'), candidate(rule, 'mobile')])).toEqual([expect.objectContaining({ value: 0.145 })]);
  });

  it('reads whether a column is filled in as a flag: every delivered order shipped is a definition', () => {
    const shipped = difference({
      metric: {
        kind: 'rate',
        table: 'main.orders',
        condition: { column: 'shipped_at', op: 'not_null' },
        filters: [],
        label: 'share shipped',
      },
      segment: { column: 'order_status', value: 'delivered', label: 'order status' },
      value: 1,
      comparison_value: 0.139,
    });
    expect(rank([candidate(shipped, 'delivered')])).toEqual([]);
  });

  it('keeps an all-or-none segment too small to be a rule of the data', () => {
    const few = difference({ value: 1, comparison_value: 0.2 }, 12);
    expect(rank([candidate(few, 'southeast')])).toHaveLength(1);
  });

  it('states once a fact measured on the same rows under two names (region and shipping region)', () => {
    const region = difference({ value: 0.145, comparison_value: 0.035 });
    const shipping = difference({
      segment: { column: 'shipping_region', value: 'Southeast', label: 'shipping region' },
      value: 0.145,
      comparison_value: 0.035,
    });
    const other = difference({ segment: { column: 'region', value: 'West', label: 'region' }, value: 0.09, comparison_value: 0.04 }, 900);
    const kept = rank([
      candidate(region, 'region southeast', 0.9),
      candidate(shipping, 'shipping region southeast', 0.8),
      candidate(other, 'west', 0.5),
    ]);
    expect(kept.map((claim) => claim.segment?.column)).toEqual(['region', 'region']);
    expect(kept.map((claim) => claim.segment?.value)).toEqual(['Southeast', 'West']);
  });

  it('states a fact seen from both sides once, from the problem’s side, with the better score of the two', () => {
    const abandonment = (value: string, rate: number, rest: number, rows: number) =>
      difference(
        {
          metric: {
            kind: 'rate',
            table: 'main.sessions',
            condition: { column: 'checkout_abandonment', op: '=', value: false },
            filters: [],
            label: 'checkout abandonment rate',
            better: 'lower',
          },
          segment: { column: 'device_type', value, label: 'device' },
          value: rate,
          comparison_value: rest,
          n: { segment: rows, comparison: 21_916 - rows },
        },
        rows,
      );
    const desktop = candidate(abandonment('desktop', 0.228, 0.613, 8_701), 'desktop', 0.95);
    const mobile = candidate(abandonment('mobile', 0.666, 0.27, 10_520), 'mobile', 0.6);
    const findings = rankFindings([desktop, mobile], new Map(), 20);
    expect(findings.map((finding) => finding.claim.segment?.value)).toEqual(['mobile']);
    const alone = rankFindings([desktop], new Map(), 20);
    expect(findings[0]?.score).toBe(alone[0]?.score);
  });
});
