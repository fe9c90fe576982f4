import type { LlmRequest } from '../port.js';
export function recommend(_request: LlmRequest): string {
  return '{"recommendations": []}';
}
