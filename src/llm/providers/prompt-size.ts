/** A request's prompt size measured the way the budgeted prompt builder measures it. */
import type { LlmMessage, LlmRequest } from '../port.js';
import { MESSAGE_OVERHEAD_TOKENS, toolDefinitionTokens } from '../prompt-builder.js';
import { estimateTokens, type TokenFamily } from '../tokens.js';

/**
 * Same estimator and the same per-message overhead as the prompt builder, so a size reported here
 * (offline usage, the simulator's count and its context-window check) matches the builder's promise.
 */
export function estimatePromptTokens(
  prompt: { system?: string | undefined; messages: readonly LlmMessage[] } & Partial<Pick<LlmRequest, 'tools' | 'responseFormat'>>,
  family: TokenFamily,
): number {
  const systemTokens = prompt.system ? estimateTokens(prompt.system, family) + MESSAGE_OVERHEAD_TOKENS : 0;
  return prompt.messages.reduce(
    (total, turn) => total + estimateTokens(turn.content, family) + MESSAGE_OVERHEAD_TOKENS,
    systemTokens + toolDefinitionTokens(prompt, family),
  );
}
