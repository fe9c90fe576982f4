/** The verdict rules, in their order, on recounts built by hand: each rule decides when the ones before it pass. */
import { describe, expect, it } from 'vitest';
import type { ClaimRecount } from '../../../../src/discovery/claims/claim-recount.js';
import {
  SAMPLED_VALUE_TOLERANCE,
  VALUE_TOLERANCE,
  VERIFICATION_ALPHA,
  judgeClaim,
} from '../../../../src/discovery/claims/claim-verdict.js';
import { type Claim, type ClaimInput, claimSchema } from '../../../../src/domain/index.js';

const claim = (input: Partial<ClaimInput> = {}): Claim =>
  claimSchema.parse({
    kind: 'difference',
    metric: { kind: 'mean', table: 'main.tickets', column: 'days_open', label: 'days open' },
    segment: { column: 'category', value: 'Network' },
    comparison: { kind: 'rest' },
    value: 4,
    comparison_value: 1,
    direction: 'higher',
    ...input,
  });

const recount = (overrides: Partial<ClaimRecount> = {}): ClaimRecount => ({
  value: 4,
  comparisonValue: 1,
  segmentRows: 80,
  comparisonRows: 320,
  test: { test: 'welch_t', statistic: 30, p_value: 1e-20, df: 120 },
  ...overrides,
});

const judge = (subject: Claim, counted: ClaimRecount, minSupport = 10) => judgeClaim(subject, counted, { minSupport });

describe('the constants', () => {
  it('are the documented ones', () => {
    expect(VALUE_TOLERANCE).toBe(0.05);
    expect(SAMPLED_VALUE_TOLERANCE).toBe(0.15);
    expect(VERIFICATION_ALPHA).toBe(0.05);
  });
});

describe('judgeClaim, rule by rule', () => {
  it('1. rejects a segment with no rows, or nothing to measure', () => {
    expect(judge(claim(), recount({ segmentRows: 0 }))).toMatchObject({
      status: 'rejected',
      reasoning: expect.stringContaining('does not exist'),
    });
    expect(judge(claim(), recount({ value: null })).status).toBe('rejected');
  });

  it('2. rejects a comparison side with nothing to measure', () => {
    expect(judge(claim(), recount({ comparisonValue: null }))).toMatchObject({
      status: 'rejected',
      reasoning: expect.stringContaining('comparison side'),
    });
  });

  it('3. rejects a direction that does not hold, equal values included, before looking at support or significance', () => {
    const reversed = judge(claim({ direction: 'lower', value: 1, comparison_value: 4 }), recount({ segmentRows: 2, test: undefined }));
    expect(reversed).toMatchObject({
      status: 'rejected',
      directionHolds: false,
      reasoning: expect.stringContaining('the direction does not hold'),
    });
    expect(judge(claim(), recount({ value: 1, comparisonValue: 1 })).status).toBe('rejected');
  });

  it('3. needs a trend’s slope and its two ends to go the claimed way', () => {
    const trend = claim({
      kind: 'trend',
      segment: undefined,
      comparison: undefined,
      series: { column: 'opened_at', grain: 'month' },
      value: 40,
      comparison_value: 20,
    });
    const fit = { slope: 2, r2: 0.9, periods: 12, first_period: '2024-01-01', last_period: '2024-12-01' };
    const rising = recount({
      value: 40,
      comparisonValue: 20,
      segmentRows: 12,
      fit,
      test: { test: 'ols_slope', statistic: 9, p_value: 1e-6, df: 10 },
    });
    expect(judge(trend, rising).status).toBe('confirmed');
    expect(judge(trend, { ...rising, fit: { ...fit, slope: -2 } }).status).toBe('rejected');
    expect(judge(trend, { ...rising, value: 15 }).status).toBe('rejected');
  });

  it('4. rejects a segment below the minimum support, whatever its significance', () => {
    const thin = judge(claim(), recount({ segmentRows: 9 }));
    expect(thin).toMatchObject({
      status: 'rejected',
      directionHolds: true,
      reasoning: expect.stringContaining('only 9 rows behind the segment, fewer than the 10 needed'),
    });
    expect(judge(claim(), recount({ segmentRows: 10 })).status).toBe('confirmed');
    expect(judge(claim(), recount({ segmentRows: 30 }), 40).status).toBe('rejected');
  });

  it('4. counts periods for a trend, pairs for a correlation (3 each) and rows inside the window for a shift', () => {
    const trend = claim({
      kind: 'trend',
      segment: undefined,
      comparison: undefined,
      series: { column: 'opened_at', grain: 'month' },
      value: 40,
      comparison_value: 20,
    });
    expect(judge(trend, recount({ value: 40, comparisonValue: 20, segmentRows: 2 })).reasoning).toContain('only 2 periods');
    const correlation = claim({
      kind: 'correlation',
      segment: undefined,
      comparison: undefined,
      x: { column: 'priority' },
      value: 0.8,
      comparison_value: 0,
    });
    expect(judge(correlation, recount({ value: 0.8, comparisonValue: 0, segmentRows: 3 })).status).toBe('confirmed');
    const shift = claim({
      kind: 'shift',
      segment: undefined,
      comparison: undefined,
      series: { column: 'opened_at', grain: 'week' },
      window: { from: '2024-03-11', to: '2024-03-18' },
      value: 1154,
      comparison_value: 346,
    });
    // one period inside the window, but 1,154 rows in it
    expect(judge(shift, recount({ value: 1154, comparisonValue: 346, segmentRows: 1, segmentRecords: 1154 })).status).toBe('confirmed');
    expect(judge(shift, recount({ value: 1154, comparisonValue: 346, segmentRows: 1, segmentRecords: 6 })).status).toBe('rejected');
  });

  it('5. leaves a claim no test applies to unverified', () => {
    expect(judge(claim(), recount({ test: undefined }))).toMatchObject({
      status: 'unverified',
      directionHolds: true,
      reasoning: expect.stringContaining('no significance test'),
    });
  });

  it('6. rejects a difference that is not significant at α = 0.05, and takes p = α as significant', () => {
    const weak = judge(claim(), recount({ test: { test: 'welch_t', statistic: 1.2, p_value: 0.23 } }));
    expect(weak).toMatchObject({
      status: 'rejected',
      directionHolds: true,
      reasoning: expect.stringContaining('not significant (welch_t = 1.200, p = 0.2300)'),
    });
    expect(judge(claim(), recount({ test: { test: 'welch_t', statistic: 2, p_value: 0.05 } })).status).toBe('confirmed');
    expect(judge(claim(), recount({ test: { test: 'welch_t', statistic: 2, p_value: 0.0500001 } })).status).toBe('rejected');
    expect(
      judgeClaim(claim(), recount({ test: { test: 'welch_t', statistic: 2, p_value: 0.03 } }), { minSupport: 10, alpha: 0.01 }).status,
    ).toBe('rejected');
  });

  it('7. confirms both values within 5% of the larger, or within 0.005', () => {
    expect(judge(claim({ value: 4.19 }), recount()).status).toBe('confirmed');
    expect(judge(claim({ value: 3.81 }), recount()).status).toBe('confirmed');
    const rate = claim({ value: 0.006, comparison_value: 0.001 });
    expect(judge(rate, recount({ value: 0.003, comparisonValue: 0.001 })).status).toBe('confirmed');
    expect(judge(claim(), recount()).reasoning).toContain('p < 0.001');
  });

  it('8. adjusts a magnitude off by more than the tolerance on either side, reporting both relative errors', () => {
    const inflated = judge(claim({ value: 12 }), recount());
    expect(inflated).toMatchObject({ status: 'adjusted', directionHolds: true });
    expect(inflated.relativeError).toBeCloseTo(8 / 12, 12);
    expect(inflated.comparisonRelativeError).toBe(0);
    expect(judge(claim({ value: 4.22 }), recount()).status).toBe('adjusted');
    expect(judge(claim({ comparison_value: 0 }), recount()).status).toBe('adjusted');
    expect(judge(claim({ comparison_value: 1.1 }), recount()).status).toBe('adjusted');
  });

  it('8. widens the tolerance to 15% for a claim measured on a sample', () => {
    expect(judge(claim({ value: 4.5, approximate: true }), recount()).status).toBe('confirmed');
    expect(judge(claim({ value: 4.8, approximate: true }), recount()).status).toBe('adjusted');
  });
});

describe('the drivers of a change', () => {
  const driver = (input: Partial<ClaimInput> = {}): Claim =>
    claim({
      kind: 'contribution',
      metric: { kind: 'count', table: 'main.orders', label: 'orders' },
      segment: { column: 'region', value: 'West' },
      series: { column: 'ordered_at', grain: 'month' },
      baseline: { from: '2024-05-01', to: '2024-06-01' },
      window: { from: '2024-06-01', to: '2024-07-01' },
      value: 300,
      comparison_value: 400,
      ...input,
    });
  const counted = (overrides: Partial<ClaimRecount> = {}) =>
    recount({
      value: 300,
      comparisonValue: 400,
      test: { test: 'share_change_z', statistic: 12, p_value: 1e-30 },
      changeTest: { test: 'poisson_rate', statistic: 9, p_value: 1e-18 },
      ...overrides,
    });

  it('confirms a driver whose part, change and share of the change all recount', () => {
    expect(judge(driver(), counted()).status).toBe('confirmed');
  });

  it('adjusts a driver given the wrong share of the change, though each figure alone is near', () => {
    expect(judge(driver({ value: 290, comparison_value: 412 }), counted()).status).toBe('adjusted');
  });

  it('rejects a driver that moved against the whole, or whose share of the total moved against the change', () => {
    expect(judge(driver(), counted({ value: -20 })).status).toBe('rejected');
    expect(judge(driver(), counted({ test: { test: 'share_change_z', statistic: -4, p_value: 1e-4 } })).status).toBe('rejected');
  });

  it('rejects a share that did not move beyond chance, and a change of the whole that is not there', () => {
    expect(judge(driver(), counted({ test: { test: 'share_change_z', statistic: 1.2, p_value: 0.23 } })).reasoning).toMatch(
      /share of the total did not move/,
    );
    const flat = judge(driver(), counted({ changeTest: { test: 'poisson_rate', statistic: 1.1, p_value: 0.27 } }));
    expect(flat).toMatchObject({ status: 'rejected', reasoning: expect.stringMatching(/no change to account for/) });
  });
});

describe('record-level outliers', () => {
  const extreme = (input: Partial<ClaimInput> = {}): Claim =>
    claim({
      kind: 'outlier',
      metric: { kind: 'mean', table: 'main.orders', column: 'amount', label: 'amount' },
      segment: { column: 'amount', from: 5_000 },
      value: 25_000,
      comparison_value: 250,
      share_of_total: 0.1,
      ...input,
    });
  const counted = (overrides: Partial<ClaimRecount> = {}) =>
    recount({
      value: 25_000,
      comparisonValue: 250,
      segmentRows: 3,
      comparisonRows: 2_697,
      test: { test: 'poisson_tail', statistic: 0.002, p_value: 1e-9 },
      shareOfTotal: 0.1,
      fence: 4_445,
      side: 'high',
      ...overrides,
    });

  it('confirms a single extreme row: one row is support enough for an outlier', () => {
    expect(judge(extreme(), counted({ segmentRows: 1 })).status).toBe('confirmed');
  });

  it('adjusts a claim whose rows hold another share of the total', () => {
    expect(judge(extreme({ share_of_total: 0.3 }), counted()).status).toBe('adjusted');
  });

  it('rejects a threshold inside the far-out fence, and low outliers claimed above a threshold', () => {
    expect(judge(extreme(), counted({ fence: 6_000 })).reasoning).toMatch(/inside the far-out fence/);
    expect(judge(extreme({ direction: 'lower' }), counted()).status).toBe('rejected');
  });

  it('leaves a measure without spread unverified', () => {
    expect(judge(extreme(), counted({ fence: undefined })).status).toBe('unverified');
  });
});

describe('the reasoning a reader sees', () => {
  it('states the recount and the claim in the insight’s words: a rate as a percentage, never a raw fraction', () => {
    const rate = claim({
      metric: {
        kind: 'rate',
        table: 'main.customers',
        condition: { column: 'channel_type', op: '=', value: 'earned' },
        label: 'share earned',
      },
      value: 0.4004,
      comparison_value: 0.09979,
    });
    const { reasoning } = judge(
      rate,
      recount({ value: 0.4004, comparisonValue: 0.09979, test: { test: 'two_proportion_z', statistic: 17.7, p_value: 1e-20 } }),
    );
    expect(reasoning).toContain('share earned: recounted 40.0% vs 10.0% (claimed 40.0% vs 10.0%)');
    expect(reasoning).not.toMatch(/0\.4004|0\.09979/);
  });
});
