/**
 * The transition table of docs/architecture.md ("One pipeline state machine") is this test's data:
 * the rows are read from the doc, each has one case here, `nextStage` must return the command the
 * row's second column names, and the update must be the run rules its third column names, applied
 * in that order. Changing the table without the machine (or the machine without the table) fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSchema, type Run } from '../../../../src/domain/index.js';
import {
  PIPELINE_STAGES,
  STAGES_WITH_WORK,
  enterAnalysis,
  failMining,
  failRecommendations,
  failUnsettledAreas,
  nextStage,
  settleVerifications,
  stopExplorationAt,
  type PipelineCommand,
  type StageResult,
} from '../../../../src/discovery/pipeline/index.js';

const DOC = join(import.meta.dirname, '../../../../docs/architecture.md');
const STAMP = '2026-11-27T07:00:00.000Z';
const MAX_STEPS = 4;
const N = 2;

interface Row {
  ended: string;
  next: string;
  update: string;
}

/** The rows of the table under "## One pipeline state machine". */
function documentedRows(): Row[] {
  const text = readFileSync(DOC, 'utf8');
  const section = text.slice(text.indexOf('## One pipeline state machine'));
  const lines = section.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| stage ended |'));
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [ended, next, update] = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    rows.push({ ended: ended as string, next: next as string, update: update as string });
  }
  return rows;
}

/** The command a "next command" cell names (`n` is the case's step). */
function commandOf(cell: string): { command: PipelineCommand; fatalErrorPrefix?: string } {
  const fatal = /^finalize with `fatalError: "([^"…]*)…"`/.exec(cell);
  if (fatal)
    return { command: { do: 'finalize', fatalError: expect.stringMatching(/./) as unknown as string }, fatalErrorPrefix: fatal[1] };
  if (/^explore step 1\b/.test(cell)) return { command: { do: 'explore', step: 1 } };
  if (/^explore step n \+ 1\b/.test(cell)) return { command: { do: 'explore', step: N + 1 } };
  const plain = /^(mine|analyze|recommend|finalize)\b/.exec(cell);
  if (plain) return { command: { do: plain[1] as 'mine' | 'analyze' | 'recommend' | 'finalize' } };
  throw new Error(`the doc's next command "${cell}" names no command this test knows: teach commandOf`);
}

const failures = new Map([['revenue', 'the model replied nonsense']]);
const verifications = { verdicts: [], failures: new Map([['conversion-1', 'disk full']]), settledAt: STAMP };

/** Each documented row: the stage result that ends that way, and each rule the update column may name, as this case applies it. */
const CASES: Record<string, { result: StageResult; rules: Record<string, (run: Run) => Run> }> = {
  'prepare failed': { result: { stage: 'prepare', failure: 'no such table' }, rules: {} },
  'prepare ok': { result: { stage: 'prepare' }, rules: {} },
  'explore step n failed for good': {
    result: { stage: 'explore', step: N, finished: true, failure: '429' },
    rules: { stopExplorationAt: (run) => stopExplorationAt(run, N, '429'), enterAnalysis },
  },
  'explore step n finished, or n = `maxSteps`': { result: { stage: 'explore', step: N, finished: true }, rules: { enterAnalysis } },
  'explore step n otherwise': { result: { stage: 'explore', step: N, finished: false }, rules: {} },
  mine: { result: { stage: 'mine', failure: 'warehouse down' }, rules: { failMining: (run) => failMining(run, 'warehouse down') } },
  analyze: {
    result: { stage: 'analyze', failures, verifications },
    rules: {
      settleVerifications: (run) => settleVerifications(run, verifications, failures),
      failUnsettledAreas: (run) => failUnsettledAreas(run, failures),
    },
  },
  recommend: {
    result: { stage: 'recommend', failure: '401' },
    rules: { failRecommendations: (run) => failRecommendations(run, '401') },
  },
};

/** The rules an update cell names, in its order ("—" first: none for this case). */
function rulesNamed(cell: string, known: readonly string[]): string[] {
  if (cell.startsWith('—')) return [];
  const named = [...cell.matchAll(/`(\w+)`/g)].map((match) => match[1] as string).filter((name) => known.includes(name));
  return [...new Set(named)];
}

const RULES = ['enterAnalysis', 'stopExplorationAt', 'failMining', 'settleVerifications', 'failUnsettledAreas', 'failRecommendations'];

function sampleRun(): Run {
  return runSchema.parse({
    id: 'r1',
    project_id: 'shop',
    status: 'running',
    phase: 'exploration',
    progress: 40,
    settings: { max_steps: MAX_STEPS, min_steps: 0, llm: 'offline:analyst', pack: 'ecommerce', analysis_budget_tokens: 200_000 },
    areas: [
      {
        area_id: 'conversion',
        area_name: 'conversion',
        status: 'completed',
        insight_ids: ['conversion-1'],
        insights: [
          { id: 'conversion-1', analysis_area: 'conversion', name: 'x', severity: 'high', affected_count: 120, discovered_at: STAMP },
        ],
      },
      { area_id: 'revenue', area_name: 'revenue', status: 'running' },
    ],
    mining: { status: 'failed', fdr: 0.05, duration_ms: 0, error: 'earlier' },
    created_at: STAMP,
    updated_at: STAMP,
  });
}

const rows = documentedRows();

describe('the transition table in docs/architecture.md', () => {
  it('has exactly one case here per row, and no case without a row', () => {
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((row) => row.ended).sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(rows.map((row) => [row.ended, row] as const))('%s: nextStage returns the documented command and update', (_, row) => {
    const testCase = CASES[row.ended];
    if (!testCase) throw new Error(`no case for the documented row "${row.ended}"`);
    const transition = nextStage(testCase.result, MAX_STEPS);
    const { command, fatalErrorPrefix } = commandOf(row.next);
    expect(transition.command).toEqual(command);
    if (fatalErrorPrefix !== undefined && transition.command.do === 'finalize')
      expect(transition.command.fatalError?.startsWith(fatalErrorPrefix)).toBe(true);
    expect(transition.state.stage).toBe(transition.command.do);

    const named = rulesNamed(row.update, RULES);
    if (named.length === 0) {
      expect(transition.update).toBeUndefined();
      return;
    }
    expect(transition.update).toBeTypeOf('function');
    const expected = named.reduce((run, name) => {
      const rule = testCase.rules[name];
      if (!rule) throw new Error(`row "${row.ended}" names ${name}, which its case does not apply`);
      return rule(run);
    }, sampleRun());
    expect(transition.update?.(sampleRun())).toEqual(expected);
  });

  it('goes straight to mining, entering analysis, when a run has no exploration steps (the "prepare ok" note)', () => {
    const transition = nextStage({ stage: 'prepare' }, 0);
    expect(transition.command).toEqual({ do: 'mine' });
    expect(transition.update?.(sampleRun())).toEqual(enterAnalysis(sampleRun()));
  });
});

describe('the stages, declared once', () => {
  it('are the stages the table moves between, and every one but finalize has work to wait for', () => {
    const commands = new Set(rows.map((row) => commandOf(row.next).command.do));
    expect([...commands].every((command) => (PIPELINE_STAGES as readonly string[]).includes(command))).toBe(true);
    expect(STAGES_WITH_WORK).toEqual(PIPELINE_STAGES.filter((stage) => stage !== 'finalize'));
  });
});
