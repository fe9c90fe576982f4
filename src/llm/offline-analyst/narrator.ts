/**
 * Analysis by the offline analyst: a narrator over the engine's mined findings. It reads the findings
 * block of the prompt (already ranked by the engine), tells findings about the same subject as one
 * insight (the first is the main fact, the others support it), and leaves the words to the engine,
 * which renders them from the claims. It adds no finding of its own: the intelligence is the engine's,
 * so a real model and this stand-in see and report the same facts.
 */
import { DATA_CLOSE, DATA_OPEN } from '../data-fence.js';
import type { LlmRequest } from '../port.js';
import { analysisEvidence, nodesToExpand } from './drill-down.js';

/** Insights the narrator proposes per area (the engine caps again by its own setting). */
export const NARRATED_INSIGHTS = 5;
/** Findings told together as one insight at most. */
const FINDINGS_PER_INSIGHT = 3;

interface FindingLine {
  id: string;
  subject: string;
}

/** The analysis prompt's heading of the findings section, whose data section follows it. */
const FINDINGS_SECTION = 'Mined findings for this area';

/** `F3 | difference | about over_time=Yes | n=… | q<0.001 | score 1.2 | …` lines of the findings block, in order. */
export function readFindingLines(text: string): FindingLine[] {
  const heading = text.indexOf(FINDINGS_SECTION);
  if (heading < 0) return [];
  const open = text.indexOf(`${DATA_OPEN}\n`, heading);
  const close = open < 0 ? -1 : text.indexOf(`\n${DATA_CLOSE}`, open);
  const block = close < 0 ? '' : text.slice(open + DATA_OPEN.length + 1, close);
  const lines: FindingLine[] = [];
  for (const line of block.split('\n')) {
    const match = /^(F\d+) \| [a-z]+ \| about (.+?) \| /.exec(line);
    if (match?.[1] && match[2]) lines.push({ id: match[1], subject: match[2] });
  }
  return lines;
}

export function narrate(text: string): Array<{ findings: string[] }> {
  const groups = new Map<string, string[]>();
  for (const line of readFindingLines(text)) {
    const group = groups.get(line.subject);
    if (group) {
      if (group.length < FINDINGS_PER_INSIGHT) group.push(line.id);
    } else if (groups.size < NARRATED_INSIGHTS) groups.set(line.subject, [line.id]);
  }
  return [...groups.values()].map((findings) => ({ findings }));
}

export function analyse(request: LlmRequest): string {
  const expand = nodesToExpand(request);
  if (expand) return JSON.stringify({ expand });
  return JSON.stringify({ insights: narrate(analysisEvidence(request)) });
}
