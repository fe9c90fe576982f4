import { DATA_RULE } from '../../../src/llm/data-fence.js';
import { describe, expect, it } from 'vitest';
import type { LlmBinding } from '../../../src/llm/catalog.js';
import { JUDGE_INSTRUCTIONS, judgeFindings, judgePromptSections, parseJudgeReply } from '../../../src/eval/insightbench/judge.js';
import { lookupModel } from '../../../src/llm/catalog.js';
import type { LlmProvider, LlmRequest } from '../../../src/llm/port.js';

/** A provider at the port that answers from a list and keeps every request it got. */
function scriptedProvider(replies: string[]): { provider: LlmProvider; requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  const provider: LlmProvider = {
    provider: 'scripted',
    model: 'judge-test',
    async complete(request) {
      requests.push(request);
      const text = replies[requests.length - 1];
      if (text === undefined) throw new Error(`no scripted reply for request ${requests.length}`);
      return {
        text,
        usage: { inputTokens: 100, outputTokens: 10 },
        stopReason: { unified: 'end', raw: 'stop' },
        model: 'judge-test',
        latencyMs: 1,
      };
    },
  };
  return { provider, requests };
}

const binding = (provider: LlmProvider): LlmBinding => ({ provider, entry: lookupModel('openai:gpt-5.4-mini').entry });

const findings = [
  { id: 'segments-1', text: 'Fred Luddy closes incidents slower than the other agents' },
  { id: 'trends-1', text: 'Incident volume is flat over the year' },
];
const groundTruth = [
  { index: 0, insight: 'Fred Luddy has a significantly higher average TTR compared to other agents' },
  { index: 1, insight: "Fred Luddy's increasing TTR correlates with his PTO period" },
  { index: 2, insight: 'The number of incidents assigned to each agent remains uniform over time' },
];

describe('parseJudgeReply', () => {
  it('reads the finding number from a JSON reply, fenced or bare, as a number or a numeric string', () => {
    expect(parseJudgeReply('{"match": 2, "reason": "same agent, same direction"}', 2)).toEqual({
      match: 2,
      reason: 'same agent, same direction',
    });
    expect(parseJudgeReply('Verdict:\n```json\n{"match": 0, "reason": "none"}\n```', 2)).toEqual({ match: 0, reason: 'none' });
    expect(parseJudgeReply('{"match": "1"}', 2)).toEqual({ match: 1, reason: '' });
  });

  it('refuses prose, a number outside the list, and a fraction', () => {
    expect(parseJudgeReply('Finding 1 matches.', 2)).toBeUndefined();
    expect(parseJudgeReply('{"match": 3}', 2)).toBeUndefined();
    expect(parseJudgeReply('{"match": -1}', 2)).toBeUndefined();
    expect(parseJudgeReply('{"match": 1.5}', 2)).toBeUndefined();
  });
});

describe('judgePromptSections', () => {
  it('sends the instructions as the system prompt and numbers the findings after the ground truth', () => {
    const sections = judgePromptSections('Fred Luddy is slow', findings);
    expect(sections[0]).toMatchObject({ role: 'system', text: JUDGE_INSTRUCTIONS, shrink: 'none' });
    expect(sections[1]?.text).toBe('Ground-truth finding:\nFred Luddy is slow');
    expect(sections[2]?.text).toBe(
      'Reported findings:\n1. Fred Luddy closes incidents slower than the other agents\n2. Incident volume is flat over the year',
    );
    expect(sections[2]?.shrink).toBe('truncate');
  });
});

describe('when the judge asks a model about each ground-truth finding', () => {
  it('makes one call per ground truth and maps the named finding to its insight', async () => {
    const { provider, requests } = scriptedProvider([
      '{"match": 1, "reason": "same"}',
      '{"match": 0, "reason": "no PTO finding"}',
      'I think the second one',
    ]);
    const outcome = await judgeFindings({ binding: binding(provider), groundTruth, findings });
    expect(requests).toHaveLength(3);
    expect(requests.map((request) => request.messages.at(-1)?.content.split('\n')[1])).toEqual(groundTruth.map((truth) => truth.insight));
    expect(requests[0]?.system).toBe(`${JUDGE_INSTRUCTIONS}\n\n${DATA_RULE}`);
    expect(outcome.verdicts).toEqual([
      { ground_truth_index: 0, score: 1, insight_id: 'segments-1', reason: 'same', unusable: false },
      { ground_truth_index: 1, score: 0, insight_id: null, reason: 'no PTO finding', unusable: false },
      { ground_truth_index: 2, score: 0, insight_id: null, reason: 'unusable judge reply: I think the second one', unusable: true },
    ]);
    expect(outcome.mean).toBeCloseTo(1 / 3, 10);
    expect(outcome).toMatchObject({ calls: 3, unusable_replies: 1, model: 'scripted:judge-test', output_tokens: 30 });
  });

  it('asks nothing when the run reported no usable finding', async () => {
    const { provider, requests } = scriptedProvider([]);
    const outcome = await judgeFindings({ binding: binding(provider), groundTruth, findings: [] });
    expect(requests).toHaveLength(0);
    expect(outcome.mean).toBe(0);
    expect(outcome.verdicts.every((verdict) => verdict.score === 0 && verdict.reason === 'the run reported no usable finding')).toBe(true);
  });
});
