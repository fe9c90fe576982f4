import { describe, expect, it } from 'vitest';
import { applyFeedback, FEEDBACK_WEIGHTS, feedbackSignals } from '../../../../src/discovery/mining/feedback.js';
import {
  type Claim,
  claimSchema,
  type Feedback,
  feedbackSchema,
  type Insight,
  insightSchema,
  type MinedFinding,
  minedFindingSchema,
} from '../../../../src/domain/index.js';

const claimOn = (segment: { column: string; value: string }, metricColumn = 'days_open'): Claim =>
  claimSchema.parse({
    kind: 'difference',
    metric: { kind: 'mean', table: 'main.tickets', column: metricColumn },
    segment,
    comparison: { kind: 'rest' },
    value: 4,
    comparison_value: 2,
    direction: 'higher',
  });

const finding = (id: string, score: number, claim: Claim): MinedFinding =>
  minedFindingSchema.parse({
    id,
    kind: claim.kind,
    claim,
    effect: { name: 'ratio', value: 2 },
    coverage: 0.2,
    strength: 0.5,
    relevance: 0,
    score,
  });

const insight = (id: string, claim: Claim): Insight =>
  insightSchema.parse({
    id,
    analysis_area: 'durations',
    name: id,
    description: id,
    severity: 'medium',
    discovered_at: '2026-11-19T00:00:00.000Z',
    claim,
  });

const rating = (target: string, value: 'like' | 'dislike', at = '2026-11-20T00:00:00.000Z', run = 'run-a'): Feedback =>
  feedbackSchema.parse({
    id: `${target}-${at}`,
    project_id: 'p',
    run_id: run,
    target_type: 'insight',
    target_id: target,
    rating: value,
    created_at: at,
  });

const network = claimOn({ column: 'category', value: 'Network' });
const software = claimOn({ column: 'category', value: 'Software' });
const teamA = claimOn({ column: 'team', value: 'A' });
const findings = [finding('F1', 1, network), finding('F2', 0.9, software), finding('F3', 0.8, teamA)];
const results = [{ run_id: 'run-a', insights: [insight('durations-1', network), insight('durations-2', teamA)] }];

describe('feedback on earlier insights, applied to this run’s findings', () => {
  it('drops a disliked fact to a fifth, takes a quarter off its theme, renumbers by the new order and says why', () => {
    const applied = applyFeedback(findings, feedbackSignals([rating('durations-1', 'dislike')], results));
    expect(applied.findings.map((item) => [item.claim.segment?.value, item.id, item.score])).toEqual([
      ['A', 'F1', 0.8],
      ['Software', 'F2', 0.9 * FEEDBACK_WEIGHTS.dislikedTheme],
      ['Network', 'F3', FEEDBACK_WEIGHTS.dislikedFact],
    ]);
    expect(applied.findings[2]?.feedback).toEqual({ weight: FEEDBACK_WEIGHTS.dislikedFact, insights: ['disliked durations-1'] });
    expect(applied.notes).toEqual([
      `F2 weighted ×${FEEDBACK_WEIGHTS.dislikedTheme.toFixed(2)} by feedback (disliked durations-1)`,
      `F3 weighted ×${FEEDBACK_WEIGHTS.dislikedFact.toFixed(2)} by feedback (disliked durations-1)`,
    ]);
  });

  it('raises a liked fact, and the newest rating of an insight is the one that counts', () => {
    const feedback = [
      rating('durations-2', 'dislike', '2026-11-20T00:00:00.000Z'),
      rating('durations-2', 'like', '2026-11-21T00:00:00.000Z'),
    ];
    const applied = applyFeedback(findings, feedbackSignals(feedback, results));
    expect(applied.findings[0]?.claim.segment?.value).toBe('A');
    expect(applied.findings[0]?.score).toBeCloseTo(0.8 * FEEDBACK_WEIGHTS.likedFact);
    expect(applied.findings.slice(1).map((item) => item.feedback)).toEqual([undefined, undefined]);
  });

  it('lets a like and a dislike of the same fact nearly cancel', () => {
    const both = [
      { run_id: 'run-a', insights: [insight('durations-1', network)] },
      { run_id: 'run-b', insights: [insight('durations-1', network)] },
    ];
    const applied = applyFeedback(
      findings,
      feedbackSignals([rating('durations-1', 'dislike'), rating('durations-1', 'like', '2026-11-20T00:00:00.000Z', 'run-b')], both),
    );
    const rated = applied.findings.find((item) => item.claim.segment?.value === 'Network');
    expect(rated?.feedback?.weight).toBeCloseTo(FEEDBACK_WEIGHTS.likedFact * FEEDBACK_WEIGHTS.dislikedFact);
  });

  it('ignores ratings of recommendations, of unknown insights and of insights without claims, and changes nothing without feedback', () => {
    const claimless = [
      {
        run_id: 'run-a',
        insights: [
          insightSchema.parse({
            id: 'durations-9',
            analysis_area: 'durations',
            name: 'x',
            description: 'x',
            severity: 'low',
            discovered_at: '2026-11-19T00:00:00.000Z',
          }),
        ],
      },
    ];
    const feedback = [
      { ...rating('durations-1', 'dislike'), target_type: 'recommendation' as const },
      rating('durations-7', 'dislike'),
      rating('durations-9', 'dislike'),
    ];
    expect(feedbackSignals(feedback, [...results, ...claimless])).toEqual([]);
    expect(applyFeedback(findings, [])).toEqual({ findings, notes: [] });
  });
});
