import type { LlmRequest } from '../port.js';
export function fixSql(_request: LlmRequest): string {
  return 'no';
}
