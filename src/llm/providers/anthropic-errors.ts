/** Anthropic error classifier: the Messages API's error bodies mapped onto `LlmError`. */
import Anthropic from '@anthropic-ai/sdk';
import type { LlmError } from '../../errors/index.js';
import { parsePromptTooLong, type ClassifyContext } from './errors.js';
import { classifyStainlessError } from './stainless-errors.js';

/**
 * 400 `invalid_request_error` "prompt is too long: N tokens > M maximum" has no error code, so the
 * message is matched; 413 `request_too_large` (over the byte limit, answered by the edge) is an
 * overflow too. 529 `overloaded_error` falls into the ≥500 transient family.
 */
export function classifyAnthropicError(error: unknown, context: ClassifyContext = { provider: 'anthropic' }): LlmError {
  return classifyStainlessError(error, context, {
    classes: Anthropic,
    providerMessage: (apiError) => apiError.apiMessage ?? apiError.message,
    overflow: (apiError, message) => {
      if (apiError.status === 413) return parsePromptTooLong(message) ?? {};
      if (apiError.status === 400) return parsePromptTooLong(message);
      return undefined;
    },
  });
}
