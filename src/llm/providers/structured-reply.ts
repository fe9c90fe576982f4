/** The parsed object of a structured-output reply, as every adapter returns it. */
import type { LlmRequest, LlmResponse } from '../port.js';

/** `{ parsed }` when the request asked for a response format and the reply text is JSON; nothing otherwise. */
export function parsedReply(request: Pick<LlmRequest, 'responseFormat'>, text: string): Pick<LlmResponse, 'parsed'> {
  if (!request.responseFormat) return {};
  try {
    return { parsed: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}
