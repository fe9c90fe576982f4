/**
 * JSON Schemas for tools and structured output, made from zod schemas with zod's own `z.toJSONSchema`,
 * plus the one transformation the providers' strict modes need: every property required, optional ones
 * nullable instead, no open objects. A null the model sends for an optional property is taken back out
 * before the zod schema validates the reply, so one zod schema serves both protocols.
 */
import { z } from 'zod';
import type { JsonSchema } from './port.js';

/** zod writes these bounds for `z.number().int()`; they say nothing to a model and cost tokens. */
const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if ((key === 'maximum' || key === 'minimum') && typeof value === 'number' && SAFE_INTEGER_BOUNDS.has(value)) continue;
    out[key] = tidy(value);
  }
  return out;
}

/** The JSON Schema of what a model may send for `schema` (its input side: defaults make fields optional). */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return tidy(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as JsonSchema;
}

/** Keywords strict modes do not accept, or that would let the model leave the schema. */
const NOT_STRICT = ['patternProperties', 'propertyNames', 'not', 'if', 'then', 'else', 'dependentSchemas', 'oneOf'] as const;

/**
 * `node` or null, as `anyOf` (not a type array): the Anthropic SDK's strict-schema transform reads
 * `properties` and `items` only where `type` is the single word `object` or `array`.
 */
function nullable(node: Record<string, unknown>): Record<string, unknown> {
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return node;
  if (Array.isArray(node.anyOf)) {
    return node.anyOf.some((branch) => isRecord(branch) && branch.type === 'null')
      ? node
      : { ...node, anyOf: [...node.anyOf, { type: 'null' }] };
  }
  return { anyOf: [node, { type: 'null' }] };
}

function strictNode(node: unknown): unknown {
  if (!isRecord(node)) return node;
  if (Object.keys(node).length === 0) return undefined; // "anything": not expressible strictly
  for (const keyword of NOT_STRICT) if (node[keyword] !== undefined) return undefined;
  const { default: _default, ...rest } = node;
  // a nullable object or array as anyOf, like `nullable` writes it
  if (Array.isArray(rest.type) && rest.type.includes('null') && rest.type.some((type) => type === 'object' || type === 'array')) {
    const others = rest.type.filter((type) => type !== 'null');
    if (others.length !== 1) return undefined;
    const inner = strictNode({ ...rest, type: others[0] });
    return inner === undefined ? undefined : { anyOf: [inner, { type: 'null' }] };
  }
  if (rest.type === 'object' || rest.properties !== undefined) {
    if (rest.additionalProperties !== undefined && rest.additionalProperties !== false) return undefined;
    const properties = isRecord(rest.properties) ? rest.properties : {};
    const required = new Set(Array.isArray(rest.required) ? (rest.required as string[]) : []);
    const strictProperties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      const converted = strictNode(property);
      if (converted === undefined) return undefined;
      strictProperties[name] = required.has(name) ? converted : nullable(converted as Record<string, unknown>);
    }
    return { ...rest, type: 'object', properties: strictProperties, required: Object.keys(strictProperties), additionalProperties: false };
  }
  if (rest.type === 'array') {
    const items = strictNode(rest.items);
    return items === undefined ? undefined : { ...rest, items };
  }
  if (Array.isArray(rest.anyOf)) {
    const branches = rest.anyOf.map(strictNode);
    return branches.some((branch) => branch === undefined) ? undefined : { ...rest, anyOf: branches };
  }
  return rest;
}

/**
 * The strict-mode form of `schema` (OpenAI `strict: true`, Anthropic and Bedrock structured output), or
 * undefined when it has parts strict modes cannot express (open records such as free-form metrics, "any").
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema | undefined {
  return strictNode(schema) as JsonSchema | undefined;
}

/**
 * `value` with the nulls a strict schema made the model send for optional properties removed, so the zod
 * schema sees an absent property as it would from the text protocol. `schema` is the non-strict original.
 */
export function withoutNullOptionals(value: unknown, schema: JsonSchema): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return isRecord(items) ? value.map((item) => withoutNullOptionals(item, items)) : value;
  }
  if (!isRecord(value) || !isRecord(schema.properties)) return value;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const properties = schema.properties;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    if (item === null && !required.has(name)) continue;
    const property = properties[name];
    out[name] = isRecord(property) ? withoutNullOptionals(item, property) : item;
  }
  return out;
}
