/** Strict JSON Schemas as Claude (on Anthropic and on Bedrock) enforces them. */
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema.js';
import type { JsonSchema } from '../port.js';

/**
 * A strict schema in the subset Claude's constrained decoding takes, by the Anthropic SDK's own transform:
 * what it cannot enforce (string lengths, number bounds, most formats) moves into the description as text.
 */
export function claudeStrictSchema(schema: JsonSchema): Record<string, unknown> {
  return transformJSONSchema(schema as Parameters<typeof transformJSONSchema>[0]) as Record<string, unknown>;
}
