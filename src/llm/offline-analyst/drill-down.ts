/**
 * The offline analyst's use of the telescope drill-down: when the analysis prompt is a telescoped view,
 * it asks once per turn for the full digests of the area's steps it has not seen whose results are
 * grouped (two or more rows — the only shape its finders can compare segments in), best-ranked first,
 * and skips single-row profiles and counts. It reads only what the prompt shows, like a remote model.
 */
import type { LlmRequest } from '../port.js';
import { userTexts } from './phase.js';

/** Marker of the engine's drill-down instructions (src/compaction/telescope/drill-down.ts). */
const EXPAND_MARKER = 'you may reply with ONLY {"expand":';
const NODE_LISTING = /^\[(L1-[0-9a-f]{12})\] step \d+ \((\d+) rows\)/;
const SHOWN_NODE = /^=== (L[0-3]-[0-9a-f]{12}) /;
/** What the engine allows per request; how many requests, the prompt says (`at most N times`). */
const MAX_IDS_PER_REQUEST = 8;
const ALLOWED_REQUESTS = /at most (\d+) times\) to see the level below/;

function expansionsSoFar(request: Pick<LlmRequest, 'messages'>): number {
  return request.messages.filter((message) => message.role === 'assistant' && /^\s*\{\s*"expand"/.test(message.content)).length;
}

/** The ids to expand next, or null when the analyst has what it needs (or the prompt is not telescoped). */
export function nodesToExpand(request: Pick<LlmRequest, 'messages'>): string[] | null {
  const texts = userTexts(request);
  const first = texts[0] ?? '';
  const allowed = Number(ALLOWED_REQUESTS.exec(first)?.[1] ?? 0);
  if (!first.includes(EXPAND_MARKER) || expansionsSoFar(request) >= allowed) return null;
  const shown = new Set<string>();
  const listed: { id: string; rows: number }[] = [];
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const shownMatch = SHOWN_NODE.exec(line);
      if (shownMatch?.[1]) shown.add(shownMatch[1]);
      const listing = NODE_LISTING.exec(line);
      if (listing?.[1]) listed.push({ id: listing[1], rows: Number(listing[2]) });
    }
  }
  const wanted = [...new Set(listed.filter((node) => node.rows >= 2 && !shown.has(node.id)).map((node) => node.id))].slice(
    0,
    MAX_IDS_PER_REQUEST,
  );
  return wanted.length > 0 ? wanted : null;
}

/** Everything the analyst has been shown in this analysis, first view and expansions together. */
export function analysisEvidence(request: Pick<LlmRequest, 'messages'>): string {
  return userTexts(request).join('\n');
}
