/**
 * Reads where an exploration stands from the conversation the engine rebuilt (explore-step.ts): the
 * budget footer of the latest result turn, the kickoff's limits, the analyst's own earlier actions
 * (canonical compact JSON) and the latest result. Older turns may be shortened, so nothing here
 * depends on them.
 */
import { DATA_OPEN, readPromptName } from '../../data-fence.js';
import type { LlmMessage } from '../../port.js';

export interface ExplorationPosition {
  /** Steps already used (0 before the first step). */
  stepsUsed: number;
  maxSteps: number;
  minSteps: number;
  lookupsLeft: number;
  searchesLeft: number;
}

export interface LatestResult {
  step: number;
  action: string;
  body: string;
  failed: boolean;
}

const FOOTER =
  /\[Steps used: (\d+) of (\d+)\.(?: Minimum before done: (\d+)\.)? lookup_schema calls left: (\d+)\. search_tables calls left: (\d+)\.\]/;
const KICKOFF_STEPS = /You have up to (\d+) steps\.(?: Do not finish before step (\d+)\.)?/;
const KICKOFF_BUDGETS = /Budgets for this run: (\d+) lookup_schema calls and (\d+) search_tables calls\./;
const RESULT_HEADER = /Step (\d+) result \(([a-z_]+)\):\n?/;

export function readPosition(messages: readonly LlmMessage[]): ExplorationPosition {
  const users = messages.filter((message) => message.role === 'user');
  const kickoff = users.find((message) => KICKOFF_STEPS.test(message.content))?.content ?? '';
  const steps = KICKOFF_STEPS.exec(kickoff);
  const budgets = KICKOFF_BUDGETS.exec(kickoff);
  const position: ExplorationPosition = {
    stepsUsed: 0,
    maxSteps: steps ? Number(steps[1]) : 40,
    minSteps: steps?.[2] ? Number(steps[2]) : 0,
    lookupsLeft: budgets ? Number(budgets[1]) : 30,
    searchesLeft: budgets ? Number(budgets[2]) : 30,
  };
  for (let index = users.length - 1; index >= 0; index--) {
    const footer = FOOTER.exec((users[index] as LlmMessage).content);
    if (!footer) continue;
    return {
      stepsUsed: Number(footer[1]),
      maxSteps: Number(footer[2]),
      minSteps: footer[3] ? Number(footer[3]) : position.minSteps,
      lookupsLeft: Number(footer[4]),
      searchesLeft: Number(footer[5]),
    };
  }
  return position;
}

/** The analyst's earlier actions that are still visible, oldest first, as parsed JSON objects. */
export function readOwnActions(messages: readonly LlmMessage[]): Array<Record<string, unknown>> {
  const actions: Array<Record<string, unknown>> = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    try {
      const parsed: unknown = JSON.parse(message.content.trim());
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) actions.push(parsed as Record<string, unknown>);
    } catch {
      // an older turn shortened by loop compaction is no longer JSON; it carries nothing we need
    }
  }
  return actions;
}

/** The result turn after the latest action, when the last message is one. */
export function readLatestResult(messages: readonly LlmMessage[]): LatestResult | null {
  const last = messages.at(-1);
  if (last?.role !== 'user') return null;
  const header = RESULT_HEADER.exec(last.content);
  if (!header) return null;
  const body = last.content.slice((header.index ?? 0) + header[0].length);
  const action = header[2] as string;
  return { step: Number(header[1]), action, body, failed: action === 'query' && /^The query failed/m.test(body) };
}

/** The JSON rows shown after "First N rows:" in a query result turn (fenced as warehouse data: the opening marker is skipped). */
export function readShownRows(body: string): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  const start = body.indexOf('rows:\n', body.indexOf('First '));
  if (start < 0) return rows;
  let lines = body.slice(start + 'rows:\n'.length).split('\n');
  if (lines[0] === DATA_OPEN) lines = lines.slice(1);
  for (const line of lines) {
    if (!line.startsWith('{')) break;
    try {
      rows.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      break;
    }
  }
  return rows;
}

/** Tables named in a search_tables reply (`1. main."Work Items" — 1.2K rows — score=0.812`, names quoted as SQL quotes them). */
export function readSearchHits(body: string): string[] {
  const hits: string[] = [];
  for (const match of body.matchAll(/^\d+\. /gm)) {
    const start = (match.index ?? 0) + match[0].length;
    const name = readPromptName(body, start);
    if (name && body.startsWith(' — ', name.end)) hits.push(name.parts.join('.'));
    else {
      // an index built before hits carried their schema and name shows the qualified name as stored
      const lineEnd = body.indexOf('\n', start);
      const raw = /^(.+?) — /.exec(body.slice(start, lineEnd < 0 ? body.length : lineEnd));
      if (raw) hits.push(raw[1] as string);
    }
  }
  return hits;
}
