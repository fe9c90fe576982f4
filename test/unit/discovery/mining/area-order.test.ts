import { describe, expect, it } from 'vitest';
import { claimSchema, type MinedFinding } from '../../../../src/domain/index.js';
import { findingsForArea } from '../../../../src/discovery/mining/evidence.js';

function finding(id: string, score: number, areaFit: number | undefined, area = 'retention'): MinedFinding {
  return {
    id,
    kind: 'difference',
    claim: claimSchema.parse({
      kind: 'difference',
      metric: { kind: 'mean', table: 'main.customers', column: 'orders', label: 'orders' },
      segment: { column: 'channel', value: id, label: 'channel' },
      comparison: { kind: 'rest' },
      value: 2,
      comparison_value: 1,
      direction: 'higher',
    }),
    effect: { name: 'ratio', value: 2 },
    coverage: 0.1,
    strength: 0.8,
    relevance: 0,
    score,
    columns: ['channel', 'orders'],
    area_id: area,
    ...(areaFit === undefined ? {} : { area_fit: areaFit }),
    noun: 'customers',
    statement: id,
  };
}

const mining = (findings: MinedFinding[]) => ({
  status: 'completed' as const,
  queries: 0,
  failed_queries: 0,
  skipped_queries: 0,
  tables: [],
  tested: 0,
  significant: 0,
  fdr: 0.05,
  duration_ms: 0,
  findings,
  notes: [],
});

describe("an area's findings", () => {
  it('come in score order raised by their fit to the area: a close fit outranks a slightly higher score', () => {
    const state = mining([finding('off-topic', 1, 0.2), finding('on-topic', 0.9, 1), finding('elsewhere', 2, 1, 'revenue')]);
    expect(findingsForArea(state, 'retention', 5).map((item) => item.id)).toEqual(['on-topic', 'off-topic']);
  });

  it('keep the score order when no fit was measured', () => {
    const state = mining([finding('second', 0.9, undefined), finding('first', 1, undefined)]);
    expect(findingsForArea(state, 'retention', 1).map((item) => item.id)).toEqual(['first']);
  });
});
