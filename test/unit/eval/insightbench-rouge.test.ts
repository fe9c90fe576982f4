import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insightSchema, type ValidationStatus } from '../../../src/domain/index.js';
import { bestRouge1Match, ENGLISH_STOP_WORDS, rouge1Recall, rougeTokens } from '../../../src/eval/insightbench/rouge.js';
import {
  capText,
  countStatuses,
  INSIGHT_TEXT_CAP,
  isFound,
  liftOver,
  rawInsightText,
  scoredText,
  scoreRouge,
  scoreRougeRaw,
  scoreTemplateSentences,
} from '../../../src/eval/insightbench/score.js';
import { templateSentence, templateSentences } from '../../../src/eval/insightbench/template-baseline.js';

const insight = (id: string, name: string, description: string, status?: ValidationStatus, textRerendered?: boolean) =>
  insightSchema.parse({
    id,
    analysis_area: 'segments',
    name,
    description,
    severity: 'high',
    discovered_at: 't',
    ...(status
      ? {
          validation: {
            status,
            verified_count: 1,
            original_count: 1,
            validated_at: 't',
            ...(textRerendered === undefined ? {} : { text_rerendered: textRerendered }),
          },
        }
      : {}),
  });

const stopWords = { stopWords: ENGLISH_STOP_WORDS };

describe('rougeTokens', () => {
  it('lower-cases and splits on everything that is not a letter or digit, dropping nothing', () => {
    expect(rougeTokens("Fred Luddy's TTR rose 17.09% (2023-06)")).toEqual(['fred', 'luddy', 's', 'ttr', 'rose', '17', '09', '2023', '06']);
    expect(rougeTokens('  --  ')).toEqual([]);
  });
});

describe('rougeTokens with the English stop words', () => {
  it('drops function words and keeps content words, numbers and negations', () => {
    expect(rougeTokens('The TTR of the hardware incidents is not higher than 17.5 days', stopWords)).toEqual([
      'ttr',
      'hardware',
      'incidents',
      'not',
      'higher',
      '17',
      '5',
      'days',
    ]);
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

describe('rouge1Recall with stop words removed', () => {
  it('gives no credit for shared function words alone', () => {
    // raw: "the", "of", "in", "the" are 4 of the 7 reference words; without stop words nothing is shared
    expect(rouge1Recall('the share of hardware in the queue', 'the number of cats in the garden')).toBeCloseTo(4 / 7, 10);
    expect(rouge1Recall('the share of hardware in the queue', 'the number of cats in the garden', stopWords)).toBe(0);
  });

  it('counts the content words over the content words of the reference', () => {
    // reference content words: fred, luddy, higher, average, ttr, agents (6); the candidate has all but "higher"
    expect(
      rouge1Recall('Fred Luddy has a higher average TTR than the other agents', "Fred Luddy's average TTR beats agents", stopWords),
    ).toBeCloseTo(5 / 6, 10);
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

describe('capText', () => {
  it('keeps a text within the cap as it is', () => {
    expect(capText('short text', 20)).toBe('short text');
    expect(capText('a'.repeat(INSIGHT_TEXT_CAP))).toHaveLength(INSIGHT_TEXT_CAP);
  });

  it('cuts at the last word boundary inside the cap, never inside a word', () => {
    expect(capText('hardware incidents rose sharply', 22)).toBe('hardware incidents');
    // the cut falls right before a separator: nothing is lost but what lies past the cap
    expect(capText('hardware incidents rose', 18)).toBe('hardware incidents');
    expect(capText('unbreakableword', 5)).toBe('');
  });

  it('never returns more than the cap, and only a prefix of the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.integer({ min: 0, max: 60 }), (text, cap) => {
        const capped = capText(text, cap);
        expect(capped.length).toBeLessThanOrEqual(Math.max(cap, 0));
        expect(text.startsWith(capped)).toBe(true);
      }),
    );
  });
});

describe('which insights count as found', () => {
  it('counts confirmed ones and adjusted ones whose text was re-rendered, nothing else', () => {
    expect(isFound(insight('a-1', 'a', '', 'confirmed'))).toBe(true);
    expect(isFound(insight('a-2', 'a', '', 'adjusted', true))).toBe(true);
    expect(isFound(insight('a-3', 'a', '', 'adjusted'))).toBe(false);
    expect(isFound(insight('a-4', 'a', '', 'adjusted', false))).toBe(false);
    for (const status of ['rejected', 'unverified', 'error', 'skipped'] as const)
      expect(isFound(insight('a-5', 'a', '', status))).toBe(false);
    expect(isFound(insight('a-6', 'a', ''))).toBe(false);
  });
});

describe('scoreRouge (the honest rule)', () => {
  const groundTruth = [
    { index: 0, insight: 'Hardware incidents take longer to resolve' },
    { index: 1, insight: 'Incidents peak in August' },
  ];

  it('lets only found insights compete, scores content words, and averages the best recall per ground truth', () => {
    const insights = [
      insight('segments-1', 'Hardware incidents take longer to resolve', '', 'rejected'),
      insight('segments-2', 'Hardware incidents are slow', 'They take longer than others', 'confirmed'),
      insight('trends-1', 'Incident volume peaks in August', '', 'unverified'),
      insight('trends-2', 'Incidents peak in August', 'the old numbers', 'adjusted'),
      insight('trends-3', 'Incidents rose in August', '', 'adjusted', true),
    ];
    const score = scoreRouge(groundTruth, insights);
    // content words of the first ("take" is on the list): hardware, incidents, longer, resolve (4); segments-2 has 3 of them
    expect(score.per_ground_truth[0]).toMatchObject({ best_insight_id: 'segments-2', rouge1_recall: 0.75 });
    // "incidents peak august" (3 content words): trends-3 (re-rendered) has incidents and august; the
    // unverified trends-1 and the adjusted trends-2 that kept its text do not compete
    expect(score.per_ground_truth[1]).toMatchObject({ best_insight_id: 'trends-3', rouge1_recall: 0.6667 });
    expect(score.rouge1_recall_mean).toBeCloseTo((0.75 + 2 / 3) / 2, 4);
  });

  it('reads only the name and description, capped, so text past the cap earns nothing', () => {
    const padding = 'lorem '.repeat(80);
    const late = insight('segments-1', 'Resolution times', `${padding} hardware incidents take longer to resolve`, 'confirmed');
    expect(scoredText(late).length).toBeLessThanOrEqual(INSIGHT_TEXT_CAP);
    expect(scoreRouge(groundTruth.slice(0, 1), [late]).rouge1_recall_mean).toBe(0);
    const segmentOnly = insightSchema.parse({
      ...insight('segments-2', 'Resolution times', '', 'confirmed'),
      target_segment: 'hardware incidents',
    });
    expect(scoreRouge(groundTruth.slice(0, 1), [segmentOnly]).rouge1_recall_mean).toBe(0);
  });

  it('names no best insight for a ground truth no found insight shares a word with', () => {
    const score = scoreRouge(groundTruth, [insight('segments-1', 'Hardware incidents take longer to resolve', '', 'confirmed')]);
    expect(score.per_ground_truth[0]).toMatchObject({ best_insight_id: 'segments-1', rouge1_recall: 1 });
    // "incidents peak august" shares "incidents"
    expect(score.per_ground_truth[1]).toMatchObject({ best_insight_id: 'segments-1' });
    const unrelated = scoreRouge(
      [{ index: 0, insight: 'Budgets doubled in March' }],
      [insight('segments-1', 'Hardware incidents', '', 'confirmed')],
    );
    expect(unrelated.per_ground_truth[0]).toMatchObject({ best_insight_id: null, best_insight_text: null, rouge1_recall: 0 });
  });

  it('scores 0 with no best insight when no insight was found', () => {
    const score = scoreRouge(groundTruth, [
      insight('segments-1', 'Hardware incidents take longer to resolve', '', 'rejected'),
      insight('segments-2', 'Hardware incidents take longer to resolve', '', 'unverified'),
    ]);
    expect(score.rouge1_recall_mean).toBe(0);
    expect(score.per_ground_truth.every((match) => match.best_insight_id === null)).toBe(true);
  });
});

describe('scoreRougeRaw (the rule before, kept for comparison)', () => {
  it('lets every insight not rejected compete by all its prose fields, stop words kept', () => {
    const insights = [
      insight('segments-1', 'Hardware incidents take longer to resolve', '', 'rejected'),
      insight('trends-1', 'Incident volume peaks in August', '', 'unverified'),
    ];
    // "incidents peak in august": trends-1 has in, august = 2 of 4
    expect(scoreRougeRaw([{ index: 0, insight: 'Incidents peak in August' }], insights).per_ground_truth[0]).toMatchObject({
      best_insight_id: 'trends-1',
      rouge1_recall: 0.5,
    });
    expect(rawInsightText({ name: 'N', description: 'D', target_segment: '', indicators: ['I1', 'I2'] })).toBe('N. D. I1. I2');
  });
});

describe('the template baseline', () => {
  it('says one sentence per column and top value, from the names and values only', () => {
    expect(templateSentence('category', 'Network', 0)).toBe('category is mostly Network; category Network has the most rows');
    expect(templateSentence('category', 'Database', 1)).toBe('category Database has the second most rows');
    const sentences = templateSentences([
      {
        table: 't',
        column: 'category',
        values: [
          { value: 'Network', rows: 9 },
          { value: 'Database', rows: 4 },
        ],
      },
      { table: 't', column: 'id', values: [] },
    ]);
    expect(sentences).toEqual([
      'category is mostly Network; category Network has the most rows',
      'category Database has the second most rows',
    ]);
  });

  it('is scored by the honest rule, and the lift compares the run with it', () => {
    const groundTruth = [{ index: 0, insight: 'Most incidents fall in the Network category' }];
    // content words: incidents, fall, network, category; the sentence has network and category
    const baseline = scoreTemplateSentences(groundTruth, ['category is mostly Network; category Network has the most rows']);
    expect(baseline.rouge1_recall_mean).toBe(0.5);
    expect(liftOver(0.75, baseline.rouge1_recall_mean)).toEqual({ ratio: 1.5, difference: 0.25 });
    expect(liftOver(0.3, 0)).toEqual({ ratio: null, difference: 0.3 });
  });
});

describe('countStatuses', () => {
  it('counts each validation status and the insights found', () => {
    const counts = countStatuses([
      insight('a-1', 'a', '', 'confirmed'),
      insight('a-2', 'b', '', 'confirmed'),
      insight('a-3', 'c', '', 'adjusted', true),
      insight('a-8', 'h', '', 'adjusted'),
      insight('a-4', 'd', '', 'rejected'),
      insight('a-5', 'e', '', 'skipped'),
      insight('a-6', 'f', '', 'error'),
      insight('a-7', 'g', ''),
    ]);
    expect(counts).toEqual({
      total: 8,
      found: 3,
      confirmed: 2,
      adjusted: 2,
      rejected: 1,
      skipped: 1,
      unverified: 0,
      error: 1,
      unvalidated: 1,
    });
  });
});
