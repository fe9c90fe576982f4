/** Cache breakpoints as the breakpoint-taking APIs (Anthropic `cache_control`, Bedrock `cachePoint`) accept them. */
import type { CacheBreakpoint } from '../port.js';

/** The Messages API (and Converse, which fronts it for Claude) refuses a request with more breakpoints than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * The breakpoints to send: the one after the system prompt (it covers the tools too) and the latest message
 * breakpoints, four in all at most — the latest ones give the longest reads.
 */
export function boundedBreakpoints(breakpoints: readonly CacheBreakpoint[]): { system: boolean; messages: Set<number> } {
  const system = breakpoints.some((breakpoint) => breakpoint.after === 'system');
  const messageIndexes = [...new Set(breakpoints.flatMap((breakpoint) => (breakpoint.after === 'message' ? [breakpoint.index] : [])))].sort(
    (left, right) => left - right,
  );
  const room = MAX_CACHE_BREAKPOINTS - (system ? 1 : 0);
  return { system, messages: new Set(messageIndexes.slice(-room)) };
}
