/** OpenAI (and OpenAI-compatible server) error classifier mapped onto `LlmError`. */
import OpenAI from 'openai';
import type { LlmError } from '../../errors/index.js';
import { parsePromptTooLong, type ClassifyContext } from './errors.js';
import { classifyStainlessError } from './stainless-errors.js';

/** OpenAI's code for "prompt too long"; compatible servers (vLLM, gateways) often send only the message. */
const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded';

export function classifyOpenAiError(error: unknown, context: ClassifyContext = { provider: 'openai' }): LlmError {
  return classifyStainlessError(error, context, {
    classes: OpenAI,
    providerMessage: (apiError) => {
      const body = apiError.error as { message?: unknown } | undefined;
      return typeof body?.message === 'string' ? body.message : apiError.message;
    },
    overflow: (apiError, message) => {
      if (apiError.status === 413) return parsePromptTooLong(message) ?? {};
      if (apiError.code === CONTEXT_LENGTH_EXCEEDED) return parsePromptTooLong(message) ?? {};
      if (apiError.status === 400) return parsePromptTooLong(message);
      return undefined;
    },
  });
}
