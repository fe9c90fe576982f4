/** The mined-findings lines of an analysis prompt, for the drivers of a change and record-level outliers. */
import { describe, expect, it } from 'vitest';
import { findingLine } from '../../../../src/discovery/mining/evidence.js';
import { renderClaim } from '../../../../src/discovery/claims/claim-text.js';
import { type MinedFinding, claimSchema, minedFindingSchema } from '../../../../src/domain/index.js';

function finding(id: string, claimInput: Record<string, unknown>, effect: MinedFinding['effect']): MinedFinding {
  const claim = claimSchema.parse({ noun: 'orders', ...claimInput });
  return minedFindingSchema.parse({
    id,
    kind: claim.kind,
    claim,
    effect,
    coverage: 0.2,
    strength: 0.8,
    relevance: 0.5,
    score: 0.95,
    statement: renderClaim(claim).title,
  });
}

describe('a mined finding as a prompt line', () => {
  it('names the driver by its group, with both windows in the statement', () => {
    const line = findingLine(
      finding(
        'F1',
        {
          kind: 'contribution',
          metric: { kind: 'count', table: 'main.orders', label: 'orders' },
          segment: { column: 'region', value: 'West', label: 'region' },
          series: { column: 'ordered_at', grain: 'month' },
          baseline: { from: '2024-05-01', to: '2024-06-01' },
          window: { from: '2024-06-01', to: '2024-07-01' },
          value: 300,
          comparison_value: 300,
          direction: 'higher',
          test: { name: 'share_change_z', statistic: 12.1, p_value: 1e-30, q_value: 1e-28 },
          n: { segment: 500, comparison: 800 },
        },
        { name: 'share_of_change', value: 1 },
      ),
    );
    expect(line).toBe(
      'F1 | contribution | about region="West" | n=500 vs 800 | q<0.001 | score 0.95 | Number of "orders" per month rose by 300 from May 2024 to June 2024; "orders" whose "region" is "West" account for 100% of the rise (300)',
    );
  });

  it('names outliers by the threshold on their measure', () => {
    const line = findingLine(
      finding(
        'F2',
        {
          kind: 'outlier',
          metric: { kind: 'mean', table: 'main.orders', column: 'amount', label: 'amount (USD)' },
          segment: { column: 'amount', from: 5000, label: 'amount (USD)' },
          comparison: { kind: 'rest' },
          value: 25_000,
          comparison_value: 250,
          share_of_total: 0.1,
          direction: 'higher',
          test: { name: 'poisson_tail', statistic: 0.002, p_value: 1e-9, q_value: 1e-8 },
          n: { segment: 3, comparison: 2_697 },
        },
        { name: 'robust_z', value: 9.8 },
      ),
    );
    expect(line).toMatch(
      /^F2 \| outlier \| about amount>=5000 \| n=3 vs 2,697 \| q<0\.001 \| score 0\.95 \| 3 orders have an amount of \$5,000 or more, far above the rest: \$25,000 on average/,
    );
  });
});
