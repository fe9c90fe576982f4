/**
 * The offline analyst: a deterministic stand-in for a model. It sees only the prompt text (system and
 * messages), recognises which job the prompt is, and answers in the format a real model must use:
 * exploration actions that profile the warehouse with real SQL, insights narrated from the engine's
 * mined findings, SQL fixes and recommendations. Same prompt, same reply, byte for byte.
 */
import type { LlmRequest } from '../port.js';
import type { OfflineBrain } from '../providers/offline.js';
import { analyse } from './narrator.js';
import { explore } from './explorer.js';
import { detectPhase, type AnalystPhase } from './phase.js';
import { recommend } from './recommender.js';
import { fixSql } from './sql-fixer.js';

/** The reply to a prompt the analyst does not recognise: no JSON, so the engine's parsers retry or record an error. */
export const UNKNOWN_PROMPT_REPLY =
  'I am the offline analyst. I can explore a warehouse, analyse exploration results, verify a finding, fix a failed query or write recommendations, but I do not recognise this request, so I have nothing to add.';

const HANDLERS: Record<Exclude<AnalystPhase, 'unknown'>, (request: LlmRequest) => string> = {
  exploration: explore,
  analysis: analyse,
  sql_fix: fixSql,
  recommendations: recommend,
};

/** Answers one request; pure over the request's text. */
export function answer(request: LlmRequest): string {
  const phase = detectPhase(request);
  return phase === 'unknown' ? UNKNOWN_PROMPT_REPLY : HANDLERS[phase](request);
}

export function createOfflineAnalyst(): OfflineBrain {
  return (request) => answer(request);
}

export { detectPhase, type AnalystPhase } from './phase.js';
