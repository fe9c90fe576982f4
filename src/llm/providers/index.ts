/** LlmProvider adapters (Anthropic, OpenAI/compatible, Bedrock, offline) and their error normalisation. */
export { createAnthropicProvider, mapAnthropicStopReason, type AnthropicProvider, type AnthropicProviderOptions } from './anthropic.js';
export { createOpenAiProvider, mapOpenAiFinishReason, type MaxTokensField, type OpenAiProviderOptions } from './openai.js';
export { createBedrockProvider, mapBedrockStopReason, type BedrockProvider, type BedrockProviderOptions } from './bedrock.js';
export { createOfflineProvider, type OfflineBrain, type OfflineProviderOptions } from './offline.js';
export { classifyAnthropicError } from './anthropic-errors.js';
export { classifyOpenAiError } from './openai-errors.js';
export { classifyBedrockError } from './bedrock-errors.js';
export {
  isRetryableKind,
  kindForStatus,
  parsePromptTooLong,
  parseRetryAfterMs,
  type ClassifyContext,
  type PromptTooLong,
} from './errors.js';
export { estimatePromptTokens } from './prompt-size.js';
