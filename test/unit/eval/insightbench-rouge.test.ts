import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insightSchema, type ValidationStatus } from '../../../src/domain/index.js';
import { bestRouge1Match, rouge1Recall, rougeTokens } from '../../../src/eval/insightbench/rouge.js';
import { countStatuses, insightText, scoreRouge } from '../../../src/eval/insightbench/score.js';

const insight = (id: string, name: string, description: string, status?: ValidationStatus) =>
  insightSchema.parse({
    id,
    analysis_area: 'segments',
    name,
    description,
    severity: 'high',
    discovered_at: 't',
    ...(status ? { validation: { status, verified_count: 1, original_count: 1, validated_at: 't' } } : {}),
  });

describe('rougeTokens', () => {
  it('lower-cases and splits on everything that is not a letter or digit, dropping nothing', () => {
    expect(rougeTokens("Fred Luddy's TTR rose 17.09% (2023-06)")).toEqual(['fred', 'luddy', 's', 'ttr', 'rose', '17', '09', '2023', '06']);
    expect(rougeTokens('  --  ')).toEqual([]);
  });
});

describe('rouge1Recall on hand-checked pairs', () => {
  it('clips a repeated reference word to its count in the candidate', () => {
    // reference: the ×2, cat, sat, on, mat = 6 words; the candidate has "the" once, so 1 + cat + on + mat = 4
    expect(rouge1Recall('the cat sat on the mat', 'the cat lay on a mat')).toBeCloseTo(4 / 6, 10);
  });

  it('scores a paraphrase of a ground-truth insight by the words it shares', () => {
    // 12 reference words; shared: fred, luddy, higher, average, ttr, other, agents = 7
    expect(
      rouge1Recall(
        'Fred Luddy has a significantly higher average TTR compared to other agents',
        "Fred Luddy's average TTR is higher than other agents",
      ),
    ).toBeCloseTo(7 / 12, 10);
  });

  it('ignores case and punctuation', () => {
    expect(rouge1Recall('TTR rose 17.09%', 'ttr ROSE to 17.09 percent')).toBe(1);
  });

  it('is 0 for an empty reference or an empty candidate', () => {
    expect(rouge1Recall('', 'anything at all')).toBe(0);
    expect(rouge1Recall('hardware incidents', '')).toBe(0);
  });

  it('is a share between 0 and 1, 1 against itself, and never falls when the candidate grows', () => {
    const text = fc.string({ maxLength: 60 });
    fc.assert(
      fc.property(text, text, text, (reference, candidate, extra) => {
        const recall = rouge1Recall(reference, candidate);
        expect(recall).toBeGreaterThanOrEqual(0);
        expect(recall).toBeLessThanOrEqual(1);
        expect(rouge1Recall(reference, `${candidate} ${extra}`)).toBeGreaterThanOrEqual(recall);
        if (rougeTokens(reference).length > 0) expect(rouge1Recall(reference, reference)).toBe(1);
      }),
    );
  });
});

describe('bestRouge1Match', () => {
  it('picks the candidate that recalls most of the reference, the first on ties', () => {
    expect(bestRouge1Match('hardware incidents in australia', ['software incidents', 'hardware incidents in australia rose', 'x'])).toEqual(
      {
        index: 1,
        recall: 1,
      },
    );
    expect(bestRouge1Match('alpha beta', ['alpha', 'beta'])).toEqual({ index: 0, recall: 0.5 });
    expect(bestRouge1Match('alpha', [])).toEqual({ index: null, recall: 0 });
  });
});

describe('scoreRouge', () => {
  const groundTruth = [
    { index: 0, insight: 'Hardware incidents take longer to resolve' },
    { index: 1, insight: 'Incidents peak in August' },
  ];

  it('lets only insights verification did not reject compete, and averages the best recall per ground truth', () => {
    const insights = [
      insight('segments-1', 'Hardware incidents take longer to resolve', '', 'rejected'),
      insight('segments-2', 'Hardware incidents are slow', 'They take longer than others', 'confirmed'),
      insight('trends-1', 'Incident volume peaks in August', '', 'skipped'),
    ];
    const score = scoreRouge(groundTruth, insights);
    // "hardware incidents take longer to resolve": segments-2 has hardware, incidents, take, longer = 4 of 6
    expect(score.per_ground_truth[0]).toMatchObject({ best_insight_id: 'segments-2', rouge1_recall: 0.6667 });
    // "incidents peak in august": trends-1 has incidents? no ("incident"), peak? no ("peaks"), in, august = 2 of 4
    expect(score.per_ground_truth[1]).toMatchObject({ best_insight_id: 'trends-1', rouge1_recall: 0.5 });
    expect(score.rouge1_recall_mean).toBeCloseTo((4 / 6 + 0.5) / 2, 4);
  });

  it('scores 0 with no best insight when every insight was rejected', () => {
    const score = scoreRouge(groundTruth, [insight('segments-1', 'Hardware incidents take longer to resolve', '', 'rejected')]);
    expect(score.rouge1_recall_mean).toBe(0);
    expect(score.per_ground_truth.every((match) => match.best_insight_id === null)).toBe(true);
  });

  it('reads the prose fields of an insight: name, description, target segment, indicators', () => {
    const text = insightText({ name: 'N', description: 'D', target_segment: '', indicators: ['I1', 'I2'] });
    expect(text).toBe('N. D. I1. I2');
  });
});

describe('countStatuses', () => {
  it('counts each validation status and scores everything but the rejected', () => {
    const counts = countStatuses([
      insight('a-1', 'a', '', 'confirmed'),
      insight('a-2', 'b', '', 'confirmed'),
      insight('a-3', 'c', '', 'adjusted'),
      insight('a-4', 'd', '', 'rejected'),
      insight('a-5', 'e', '', 'skipped'),
      insight('a-6', 'f', '', 'error'),
      insight('a-7', 'g', ''),
    ]);
    expect(counts).toEqual({
      total: 7,
      scored: 6,
      confirmed: 2,
      adjusted: 1,
      rejected: 1,
      skipped: 1,
      unverified: 0,
      error: 1,
      unvalidated: 1,
    });
  });
});
