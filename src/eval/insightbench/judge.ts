/**
 * The LLM judge: for each ground-truth finding, one short budgeted call asks the project's model
 * whether any of the run's findings states it. 1 when the model names a finding, 0 when it says none
 * does; a reply that is not the asked-for JSON counts as 0 and is reported as unusable.
 */
import type { LlmBinding } from '../../llm/catalog.js';
import { parsedObjects } from '../../common/json-extract.js';
import type { LlmCallRecord } from '../../domain/index.js';
import { callLlm } from '../../llm/budgeted-call.js';
import type { PromptSection } from '../../llm/prompt-builder.js';
import type { GroundTruthInsight } from './flag.js';

/** A verdict is one small JSON object: room for it and a sentence of reasoning. */
const JUDGE_MAX_OUTPUT_TOKENS = 400;
/** Each found insight is shown as one line of at most this many characters: enough for a name and its claim. */
const FINDING_LINE_MAX_CHARS = 600;

export const JUDGE_INSTRUCTIONS = [
  'You grade a data-analysis agent against a benchmark.',
  'You get one ground-truth finding and a numbered list of findings the agent reported.',
  'Decide whether one of the reported findings states the ground-truth finding: the same subject (group, entity, measure, period) and the same conclusion (direction, trend, comparison, cause).',
  'Paraphrase and differently rounded numbers are fine. A finding about another group, the opposite direction, or one that only mentions the same columns without the conclusion is not a match.',
  'Reply with one JSON object and nothing else: {"match": <the number of the matching finding, or 0 when none matches>, "reason": "<one sentence>"}',
].join('\n');

export interface JudgedFinding {
  id: string;
  text: string;
}

export interface JudgeVerdict {
  ground_truth_index: number;
  /** 1: a found insight states the ground truth; 0: none does, or the reply was unusable. */
  score: 0 | 1;
  insight_id: string | null;
  reason: string;
  /** The reply was not the asked-for JSON (scored 0). */
  unusable: boolean;
}

export interface JudgeOutcome {
  verdicts: JudgeVerdict[];
  /** Share of ground-truth findings the judge found stated. */
  mean: number;
  model: string;
  calls: number;
  unusable_replies: number;
  prompt_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

function findingLine(finding: JudgedFinding, position: number): string {
  const text = finding.text.replace(/\s+/g, ' ').trim();
  const clipped = text.length <= FINDING_LINE_MAX_CHARS ? text : `${text.slice(0, FINDING_LINE_MAX_CHARS - 1)}…`;
  return `${position}. ${clipped}`;
}

/** The prompt for one ground truth: instructions, the finding to look for, and the numbered findings (cut first when too long). */
export function judgePromptSections(groundTruth: string, findings: readonly JudgedFinding[]): PromptSection[] {
  return [
    { id: 'judge_instructions', role: 'system', text: JUDGE_INSTRUCTIONS, priority: 100, shrink: 'none' },
    { id: 'ground_truth', role: 'user', text: `Ground-truth finding:\n${groundTruth.trim()}`, priority: 90, shrink: 'none' },
    {
      id: 'reported_findings',
      role: 'user',
      text: `Reported findings:\n${findings.map((finding, index) => findingLine(finding, index + 1)).join('\n')}`,
      priority: 50,
      shrink: 'truncate',
      minTokens: 200,
    },
  ];
}

/** The finding number the reply names (0 = none), or undefined when the reply is not usable. */
export function parseJudgeReply(text: string, findingCount: number): { match: number; reason: string } | undefined {
  for (const object of parsedObjects(text)) {
    const raw = object.match;
    const match = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    if (typeof match !== 'number' || !Number.isInteger(match) || match < 0 || match > findingCount) continue;
    return { match, reason: typeof object.reason === 'string' ? object.reason : '' };
  }
  return undefined;
}

export interface JudgeOptions {
  binding: LlmBinding;
  groundTruth: readonly GroundTruthInsight[];
  findings: readonly JudgedFinding[];
  signal?: AbortSignal | undefined;
}

export async function judgeFindings(options: JudgeOptions): Promise<JudgeOutcome> {
  const { binding, findings } = options;
  const records: LlmCallRecord[] = [];
  const verdicts: JudgeVerdict[] = [];
  for (const truth of options.groundTruth) {
    if (findings.length === 0) {
      verdicts.push({
        ground_truth_index: truth.index,
        score: 0,
        insight_id: null,
        reason: 'the run reported no usable finding',
        unusable: false,
      });
      continue;
    }
    const { response } = await callLlm({
      provider: binding.provider,
      catalogEntry: binding.entry,
      sections: judgePromptSections(truth.insight, findings),
      maxOutputTokens: JUDGE_MAX_OUTPUT_TOKENS,
      temperature: 0,
      phase: 'other',
      signal: options.signal,
      onRecord: (record) => records.push(record),
    });
    const reply = parseJudgeReply(response.text, findings.length);
    if (!reply) {
      verdicts.push({
        ground_truth_index: truth.index,
        score: 0,
        insight_id: null,
        reason: `unusable judge reply: ${response.text.replace(/\s+/g, ' ').slice(0, 200)}`,
        unusable: true,
      });
      continue;
    }
    const matched = reply.match > 0 ? findings[reply.match - 1] : undefined;
    verdicts.push({
      ground_truth_index: truth.index,
      score: matched ? 1 : 0,
      insight_id: matched?.id ?? null,
      reason: reply.reason,
      unusable: false,
    });
  }
  const total = verdicts.reduce((sum, verdict) => sum + verdict.score, 0);
  return {
    verdicts,
    mean: verdicts.length === 0 ? 0 : total / verdicts.length,
    model: `${binding.provider.provider}:${binding.provider.model}`,
    calls: records.length,
    unusable_replies: verdicts.filter((verdict) => verdict.unusable).length,
    prompt_tokens: records.reduce((sum, record) => sum + (record.prompt_tokens_reported ?? record.prompt_tokens_estimated), 0),
    output_tokens: records.reduce((sum, record) => sum + record.output_tokens, 0),
    cost_usd: records.reduce((sum, record) => sum + record.cost_usd, 0),
  };
}
