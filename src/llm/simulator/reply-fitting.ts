/** Cutting a reply to the output cap and the room left in the context window, as a real model stops. */
import { estimateTokens, type TokenFamily } from '../tokens.js';
import type { SimulatedStop } from './dialect.js';

export interface FittedReply {
  text: string;
  outputTokens: number;
  stop: SimulatedStop;
}

/** Longest prefix of `text` whose estimate fits in `maxTokens` (binary search: the estimate grows with length). */
export function longestPrefixWithin(text: string, maxTokens: number, family: TokenFamily): string {
  let fits = 0;
  let tooLong = text.length + 1;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (estimateTokens(text.slice(0, middle), family) <= maxTokens) fits = middle;
    else tooLong = middle;
  }
  return text.slice(0, fits);
}

export function fitReply(
  reply: string,
  limits: { maxOutputTokens: number; promptTokens: number; contextWindow: number; family: TokenFamily },
): FittedReply {
  const roomInWindow = Math.max(0, limits.contextWindow - limits.promptTokens);
  const cap = Math.min(limits.maxOutputTokens, roomInWindow);
  const fullTokens = estimateTokens(reply, limits.family);
  if (fullTokens <= cap) return { text: reply, outputTokens: fullTokens, stop: 'end' };
  const text = longestPrefixWithin(reply, cap, limits.family);
  return {
    text,
    outputTokens: estimateTokens(text, limits.family),
    stop: limits.maxOutputTokens <= roomInWindow ? 'max_tokens' : 'context_window',
  };
}
