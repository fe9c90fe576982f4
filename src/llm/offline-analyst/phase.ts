/**
 * Which job a request is: read from engine-owned markers in the prompt text only, the way a remote
 * model would see it. The JSON shape a prompt asks for separates analysis from recommendations.
 */
import type { LlmRequest } from '../port.js';

export type AnalystPhase = 'exploration' | 'analysis' | 'sql_fix' | 'recommendations' | 'unknown';

/** The first user message of every exploration (turn-format.ts `renderKickoff`). */
export const EXPLORATION_KICKOFF_MARKER = 'Begin exploring the warehouse';
/** Opening line of the engine's SQL fix prompt. */
export const SQL_FIX_MARKER = 'A read-only SQL query failed';
const INSIGHTS_SHAPE = /\{\s*"insights"\s*:\s*\[/;
const RECOMMENDATIONS_SHAPE = /\{\s*"recommendations"\s*:\s*\[/;

export function userTexts(request: Pick<LlmRequest, 'messages'>): string[] {
  return request.messages.filter((message) => message.role === 'user').map((message) => message.content);
}

export function detectPhase(request: Pick<LlmRequest, 'system' | 'messages'>): AnalystPhase {
  const users = userTexts(request);
  const opening = users[0] ?? '';
  if (opening.includes(SQL_FIX_MARKER)) return 'sql_fix';
  if (users.some((text) => text.includes(EXPLORATION_KICKOFF_MARKER))) return 'exploration';
  if (RECOMMENDATIONS_SHAPE.test(opening)) return 'recommendations';
  if (users.some((text) => INSIGHTS_SHAPE.test(text))) return 'analysis';
  return 'unknown';
}
