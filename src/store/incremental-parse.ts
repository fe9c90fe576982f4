/**
 * Validation of the changed parts only. `parseChanged(schema, previous, next)` returns what
 * `schema.parse(next)` returns, but where `next` still equals `previous` (an earlier output of the same
 * schema) it reuses that part of `previous` instead of parsing it again: an update that appends one LLM
 * call to a run of 150 validates one call record, not the run.
 *
 * It walks plain objects (no catchall, no refinements) and arrays (no size checks) of the schema, through
 * `.default()`, `.optional()` and `.nullable()` wrappers when the value is an object or array; every other
 * schema is a leaf, parsed whole when its value changed. A reused part is valid because the domain
 * schemas have no transforms: parsing a parsed value gives it back unchanged. Anything unusual (a key
 * removed or set to undefined, a wrong type) falls back to the full parse of that node, and any failure
 * to the full parse of the document, so errors and their paths are exactly the full parse's.
 *
 * The result shares unchanged parts with `previous`: callers that hand it out must copy it.
 */
import type { z } from 'zod';
import { jsonEqual } from './json-document.js';

interface SchemaNode {
  _zod: {
    def: {
      type: string;
      innerType?: SchemaNode;
      shape?: Record<string, SchemaNode>;
      element?: SchemaNode;
      catchall?: unknown;
      checks?: unknown[];
    };
  };
  parse(value: unknown): unknown;
}

const WRAPPERS = new Set(['default', 'optional', 'nullable']);

/** How the walk treats one schema node, worked out once per node. */
type Plan =
  | { kind: 'leaf'; schema: SchemaNode }
  | { kind: 'object'; schema: SchemaNode; keys: string[]; fields: SchemaNode[] }
  | { kind: 'array'; schema: SchemaNode; element: SchemaNode };

const plans = new WeakMap<SchemaNode, Plan>();

function hasChecks(node: SchemaNode): boolean {
  const checks = node._zod.def.checks;
  return checks !== undefined && checks.length > 0;
}

function planOf(schema: SchemaNode): Plan {
  const known = plans.get(schema);
  if (known) return known;
  let node = schema;
  while (WRAPPERS.has(node._zod.def.type) && !hasChecks(node) && node._zod.def.innerType) node = node._zod.def.innerType;
  const def = node._zod.def;
  let plan: Plan = { kind: 'leaf', schema };
  if (!hasChecks(node) && def.type === 'object' && def.shape && def.catchall === undefined) {
    const keys = Object.keys(def.shape);
    plan = { kind: 'object', schema, keys, fields: keys.map((key) => (def.shape as Record<string, SchemaNode>)[key] as SchemaNode) };
  } else if (!hasChecks(node) && def.type === 'array' && def.element) plan = { kind: 'array', schema, element: def.element };
  plans.set(schema, plan);
  return plan;
}

/**
 * Deep equality that, unlike JSON, tells a key set to undefined from an absent one (a record parse
 * rejects the first and never sees the second).
 */
function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) {
      if (!sameValue(left[index], right[index])) return false;
    }
    return true;
  }
  if (Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  for (const key of leftKeys) {
    if (!Object.hasOwn(right, key) || !sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ParseReport {
  /**
   * Set by parseChanged: the result is exactly `next` as JSON (no default filled in, no unknown key
   * dropped), so a stored `next` can be patched path by path to a later version of the result.
   */
  exact: boolean;
}

/** While a parse with a report runs (parsing is synchronous): whether the result still equals its input. */
let tracking: ParseReport | undefined;

export function parseChanged<S extends z.ZodType>(
  schema: S,
  previous: z.output<S> | undefined,
  next: unknown,
  report?: ParseReport,
): z.output<S> {
  if (report) report.exact = true;
  tracking = report;
  try {
    if (previous === undefined) return parseWhole(schema as unknown as SchemaNode, next) as z.output<S>;
    try {
      return revalidate(schema as unknown as SchemaNode, previous, next) as z.output<S>;
    } catch {
      // the full parse reports the error with the whole path (or, should the walk ever be stricter, decides)
      if (report) report.exact = true;
      return parseWhole(schema as unknown as SchemaNode, next) as z.output<S>;
    }
  } finally {
    tracking = undefined;
  }
}

/** schema.parse, noting in the report whether the parse changed anything. */
function parseWhole(schema: SchemaNode, value: unknown): unknown {
  const parsed = schema.parse(value);
  if (tracking?.exact && !jsonEqual(parsed, value)) tracking.exact = false;
  return parsed;
}

function revalidate(schema: SchemaNode, previous: unknown, next: unknown): unknown {
  if (previous === undefined) return parseWhole(schema, next);
  if (previous === next && (typeof next !== 'object' || next === null)) return previous;
  if (typeof next === 'object' && next !== null) {
    const plan = planOf(schema);
    if (plan.kind === 'object' && isPlainObject(next) && isPlainObject(previous)) return revalidateObject(plan, previous, next);
    if (plan.kind === 'array' && Array.isArray(next) && Array.isArray(previous)) return revalidateArray(plan.element, previous, next);
  }
  return sameValue(previous, next) ? previous : parseWhole(schema, next);
}

function revalidateObject(
  plan: { schema: SchemaNode; keys: string[]; fields: SchemaNode[] },
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
): unknown {
  const { keys, fields } = plan;
  const out: Record<string, unknown> = {};
  let unchanged = true;
  let count = 0;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const value = next[key];
    const before = previous[key];
    if (value === undefined) {
      // absent before and after: an optional key the parse leaves out both times
      if (!(key in next) && !(key in previous)) continue;
      return parseWhole(plan.schema, next);
    }
    const parsed = revalidate(fields[index] as SchemaNode, before, value);
    out[key] = parsed;
    count++;
    if (parsed !== before) unchanged = false;
  }
  if (tracking?.exact) {
    // a key the schema does not know is dropped: the result is no longer the input
    let nextCount = 0;
    for (const key in next) if (next[key] !== undefined) nextCount++;
    if (nextCount !== count) tracking.exact = false;
  }
  if (!unchanged) return out;
  let previousCount = 0;
  for (const _key in previous) previousCount++;
  return count === previousCount ? previous : out;
}

function revalidateArray(element: SchemaNode, previous: unknown[], next: unknown[]): unknown {
  const out = new Array(next.length);
  let unchanged = next.length === previous.length;
  for (let index = 0; index < next.length; index++) {
    const before = index < previous.length ? previous[index] : undefined;
    const parsed = revalidate(element, before, next[index]);
    out[index] = parsed;
    if (parsed !== before) unchanged = false;
  }
  return unchanged ? previous : out;
}
