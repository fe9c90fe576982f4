import { describe, expect, it } from 'vitest';
import { assembleAreaQueryResults } from '../../../src/compaction/area-query-results.js';
import {
  AREA_MIN_SCORE,
  AREA_TOP_K,
  EXACT_MATCH_FLOOR,
  pickStepsForArea,
  type AnalysisAreaIdentity,
  type PickStepsInput,
} from '../../../src/compaction/step-picker.js';
import { renderQueryResults } from '../../../src/compaction/render.js';
import { droppedStepSchema, pickedStepSchema } from '../../../src/domain/run.js';
import { estimateTokens } from '../../../src/llm/tokens.js';
import { lookupStep, queryStep } from './steps.js';

const churn: AnalysisAreaIdentity = {
  id: 'churn',
  name: 'Churn',
  description: 'Players who stop playing',
  keywords: ['churn', 'retention'],
};

function pick(overrides: Partial<PickStepsInput>): ReturnType<typeof pickStepsForArea> {
  return pickStepsForArea({ area: churn, steps: [], hits: [], budgetTokens: 1_000_000, renderTokens: () => 100, ...overrides });
}

describe('pickStepsForArea', () => {
  describe('when vector scores alone decide', () => {
    it('orders by score descending and breaks ties by step ascending', () => {
      const steps = [1, 2, 3, 4].map((n) => queryStep(n));
      const result = pick({
        steps,
        hits: [
          { step: 3, score: 0.7 },
          { step: 1, score: 0.5 },
          { step: 4, score: 0.7 },
          { step: 2, score: 0.9 },
        ],
      });
      expect(result.picked.map((entry) => entry.step)).toEqual([2, 3, 4, 1]);
      expect(result.picked.every((entry) => entry.source === 'vector')).toBe(true);
    });

    it(`drops steps under ${AREA_MIN_SCORE} as below_min_score with their real score`, () => {
      const result = pick({
        steps: [queryStep(1), queryStep(2)],
        hits: [
          { step: 1, score: 0.8 },
          { step: 2, score: 0.12 },
        ],
      });
      expect(result.picked.map((entry) => entry.step)).toEqual([1]);
      expect(result.dropped).toEqual([{ step: 2, score: 0.12, reason: 'below_min_score' }]);
    });

    it(`lets at most ${AREA_TOP_K} steps in on vector score alone`, () => {
      const steps = Array.from({ length: 30 }, (_, index) => queryStep(index + 1));
      const hits = steps.map((step) => ({ step: step.step, score: 0.9 - step.step / 100 }));
      const result = pick({ steps, hits });
      expect(result.picked).toHaveLength(AREA_TOP_K);
      expect(result.dropped.map((entry) => entry.step)).toEqual([25, 26, 27, 28, 29, 30]);
      expect(result.dropped.every((entry) => entry.reason === 'over_budget')).toBe(true);
    });
  });

  describe('when a step names an area keyword verbatim', () => {
    it(`lifts it to ${EXACT_MATCH_FLOOR} even without a vector hit or under the min score`, () => {
      const steps = [
        queryStep(1, { query_purpose: 'Weekly retention by cohort' }),
        queryStep(2, { executed_query: 'SELECT churn_rate FROM kpis' }),
        queryStep(3),
      ];
      const result = pick({
        steps,
        hits: [
          { step: 1, score: 0.1 },
          { step: 3, score: 0.5 },
        ],
      });
      expect(result.picked).toEqual([
        { step: 1, score: EXACT_MATCH_FLOOR, source: 'exact_match' },
        { step: 2, score: EXACT_MATCH_FLOOR, source: 'exact_match' },
        { step: 3, score: 0.5, source: 'vector' },
      ]);
    });

    it('keeps a higher vector score and reports the source as vector', () => {
      const result = pick({ steps: [queryStep(1, { thinking: 'churn looks high' })], hits: [{ step: 1, score: 0.83 }] });
      expect(result.picked).toEqual([{ step: 1, score: 0.83, source: 'vector' }]);
    });

    it('matches on word boundaries only, with _ as a boundary', () => {
      const steps = [
        queryStep(1, { query_purpose: 'Churned users' }),
        queryStep(2, { query_purpose: 'CHURN by week' }),
        queryStep(3, { executed_query: 'SELECT d7_retention_pct FROM t' }),
        queryStep(4, { query_purpose: 'unchurnable' }),
      ];
      expect(pick({ steps }).picked.map((entry) => entry.step)).toEqual([2, 3]);
    });

    it('matches a multi-word keyword across a snake_case identifier', () => {
      const area = { ...churn, keywords: ['lifetime value'] };
      const result = pick({ area, steps: [queryStep(1, { executed_query: 'SELECT avg(lifetime_value) FROM users' })] });
      expect(result.picked.map((entry) => entry.source)).toEqual(['exact_match']);
    });
  });

  describe('when steps carry no evidence', () => {
    it('drops lookups and retried failures as not_informative but keeps a failure never retried', () => {
      const steps = [
        lookupStep(1, ['sessions']),
        queryStep(2, { query_purpose: 'Churn by week', error: 'column not found' }),
        queryStep(3, { query_purpose: 'churn  by WEEK' }),
        queryStep(4, { query_purpose: 'Churn by country', error: 'timeout' }),
      ];
      const hits = steps.map((step) => ({ step: step.step, score: 0.6 }));
      const result = pick({ steps, hits });
      expect(result.picked.map((entry) => entry.step)).toEqual([3, 4]);
      expect(result.dropped).toEqual([
        { step: 1, score: 0.6, reason: 'not_informative' },
        { step: 2, score: 0.6, reason: 'not_informative' },
      ]);
    });
  });

  describe('when the rendered steps exceed the token budget', () => {
    it('drops the lowest-ranked steps that do not fit as over_budget and fills the room with smaller ones', () => {
      const steps = [1, 2, 3, 4].map((n) => queryStep(n));
      const tokens = new Map([
        [1, 600],
        [2, 500],
        [3, 300],
        [4, 100],
      ]);
      const result = pick({
        steps,
        hits: [
          { step: 1, score: 0.9 },
          { step: 2, score: 0.8 },
          { step: 3, score: 0.7 },
          { step: 4, score: 0.6 },
        ],
        budgetTokens: 1000,
        renderTokens: (step) => tokens.get(step.step) ?? 0,
      });
      expect(result.picked.map((entry) => entry.step)).toEqual([1, 3, 4]);
      expect(result.dropped).toEqual([{ step: 2, score: 0.8, reason: 'over_budget' }]);
      expect(result.queryResultsTokens).toBe(1000);
    });
  });

  it('is deterministic whatever the order of steps and hits', () => {
    const steps = Array.from({ length: 40 }, (_, index) =>
      queryStep(index + 1, { query_purpose: index % 5 === 0 ? 'retention' : `p${index}` }),
    );
    const hits = steps.map((step) => ({ step: step.step, score: ((step.step * 37) % 100) / 100 }));
    const input = { steps, hits, budgetTokens: 2500, renderTokens: (step: { step: number }) => 50 + ((step.step * 13) % 90) };
    const first = pick(input);
    const second = pick({ ...input, steps: [...steps].reverse(), hits: [...hits].reverse() });
    expect(second).toEqual(first);
    expect(first.picked.length + first.dropped.length).toBe(40);
  });

  it('returns telemetry in the run document shapes', () => {
    const result = pick({
      steps: [queryStep(1), queryStep(2)],
      hits: [
        { step: 1, score: 0.9 },
        { step: 2, score: 0.1 },
      ],
    });
    for (const entry of result.picked) expect(() => pickedStepSchema.parse(entry)).not.toThrow();
    for (const entry of result.dropped) expect(() => droppedStepSchema.parse(entry)).not.toThrow();
  });
});

describe('assembleAreaQueryResults', () => {
  const bigRows = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ id: index, label: `label-${index % 7}`, note: 'n'.repeat(60) }));

  it('renders the picked steps chronologically and measures that very string', () => {
    const steps = [queryStep(1, { rows: bigRows(5) }), queryStep(2, { rows: bigRows(50) }), queryStep(3, { rows: bigRows(8) })];
    const result = assembleAreaQueryResults({
      area: churn,
      steps,
      hits: [
        { step: 3, score: 0.9 },
        { step: 1, score: 0.8 },
        { step: 2, score: 0.2 },
      ],
      budgetTokens: 100_000,
    });
    expect((JSON.parse(result.text.split('\n').slice(1, -1).join('\n')) as Array<{ step: number }>).map((entry) => entry.step)).toEqual([
      1, 3,
    ]);
    expect(result.text).toBe(renderQueryResults([steps[0]!, steps[2]!]));
    expect(result.query_results_chars).toBe(result.text.length);
    expect(result.tokens).toBe(estimateTokens(result.text));
    expect(result.selected_steps.map((entry) => entry.step)).toEqual([3, 1]);
  });

  it('never returns a block over the budget', () => {
    const steps = Array.from({ length: 12 }, (_, index) => queryStep(index + 1, { rows: bigRows(20) }));
    const hits = steps.map((step) => ({ step: step.step, score: 0.9 }));
    for (const budgetTokens of [10, 500, 1000, 2500, 5000]) {
      const result = assembleAreaQueryResults({ area: churn, steps, hits, budgetTokens });
      // an area whose steps all go over the budget still gets the empty block
      expect(result.tokens).toBeLessThanOrEqual(Math.max(budgetTokens, estimateTokens(renderQueryResults([]))));
      expect(result.selected_steps.length + result.dropped_steps.length).toBe(12);
    }
  });
});
