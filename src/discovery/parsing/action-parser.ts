/**
 * One exploration (or verification) turn as an action. With tools, each action is a tool whose arguments
 * its zod schema checks. As text, exploration goes on only when the reply holds a JSON object with a
 * recognised action; prose, malformed JSON and JSON with unrelated keys are rejected so the caller can
 * send a reformat nudge.
 */
import { z } from 'zod';
import { isPlainObject, parsedObjects } from '../../common/json-extract.js';
import { describeIssues, type AnswerSpec, type AnswerTool, type ParseOutcome } from '../../llm/structured-output.js';

export type ActionType = 'query' | 'lookup_schema' | 'search_tables' | 'done';

/** `notes`: the model's working notes, when the action replaces them (any action may). */
export type ExplorationAction = (
  | { type: 'query'; query: string; purpose: string; thinking: string }
  | { type: 'lookup_schema'; tables: string[]; thinking: string }
  | { type: 'search_tables'; query: string; topK: number | undefined; thinking: string }
  | { type: 'done'; summary: string; thinking: string }
) & { notes?: string };

export type ParseActionResult = { ok: true; action: ExplorationAction } | { ok: false; reason: string };

export const EXPLORER_ACTIONS: ReadonlySet<ActionType> = new Set(['query', 'lookup_schema', 'search_tables', 'done']);
/** The verifier may only look tables up or emit its query (on-demand-schema seed, layer 3). */

/** Tool names models use in envelopes, mapped to our actions. */
const TOOL_NAME_TO_ACTION: Record<string, ActionType> = {
  query: 'query',
  query_data: 'query',
  run_query: 'query',
  execute_sql: 'query',
  sql: 'query',
  lookup_schema: 'lookup_schema',
  search_tables: 'search_tables',
  done: 'done',
  complete: 'done',
  finish: 'done',
};

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function isTruthyDone(value: unknown): boolean {
  return value === true || value === 'true' || value === 1;
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  if (Array.isArray(value))
    return value.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
  return [];
}

function positiveInt(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
}

/** Turns tool-envelope shapes into the key-driven form; key-driven fields already present win. */
function unwrapEnvelope(object: Record<string, unknown>): Record<string, unknown> {
  let name: string | undefined;
  let input: unknown;
  if (typeof object.name === 'string' && ('input' in object || 'arguments' in object || 'parameters' in object)) {
    name = object.name;
    input = object.input ?? object.arguments ?? object.parameters;
  } else if (isPlainObject(object.function) && typeof object.function.name === 'string') {
    name = object.function.name;
    input = object.function.arguments;
  } else if (typeof object.tool === 'string') {
    name = object.tool;
    input = object.args ?? object.input ?? object.parameters ?? object.arguments;
  }
  if (name === undefined) return object;
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch {
      input = {};
    }
  }
  const args = isPlainObject(input) ? input : {};
  const action = TOOL_NAME_TO_ACTION[name.toLowerCase()];
  const normalised: Record<string, unknown> = { thinking: object.thinking ?? args.thinking };
  switch (action) {
    case 'query':
      normalised.query = args.query ?? args.sql;
      normalised.query_purpose = args.purpose ?? args.query_purpose;
      break;
    case 'lookup_schema':
      normalised.lookup_schema = args.tables ?? args.table ?? args.refs;
      break;
    case 'search_tables':
      normalised.search_tables = args.query ?? args.concept;
      normalised.search_top_k = args.top_k ?? args.topK;
      break;
    case 'done':
      normalised.done = true;
      normalised.summary = args.summary ?? args.reason;
      break;
    default:
      return object;
  }
  return { ...normalised, ...withoutEnvelopeKeys(object) };
}

function withoutEnvelopeKeys(object: Record<string, unknown>): Record<string, unknown> {
  const {
    name: _name,
    input: _input,
    arguments: _arguments,
    parameters: _parameters,
    function: _function,
    tool: _tool,
    args: _args,
    type: _type,
    ...rest
  } = object;
  return rest;
}

/** Maps the legacy `{"action": "query_data" | "complete" | …}` form onto key-driven fields. */
function unwrapLegacy(object: Record<string, unknown>): Record<string, unknown> {
  if (typeof object.action !== 'string') return object;
  const action = TOOL_NAME_TO_ACTION[object.action.toLowerCase()];
  const out = { ...object };
  if (action === 'done' && out.done === undefined) {
    out.done = true;
    out.summary ??= object.reason;
  } else if (action === 'query' && out.query === undefined) out.query = object.sql;
  else if (action === 'lookup_schema' && out.lookup_schema === undefined) out.lookup_schema = object.tables;
  else if (action === 'search_tables' && out.search_tables === undefined) {
    // in the legacy search form `query` is the search text, not SQL
    out.search_tables = object.query;
    delete out.query;
  }
  return out;
}

function hasActionKey(object: Record<string, unknown>): boolean {
  return (
    isTruthyDone(object.done) ||
    text(object.query).trim() !== '' ||
    text(object.sql).trim() !== '' ||
    object.lookup_schema !== undefined ||
    text(object.search_tables).trim() !== ''
  );
}

function toAction(object: Record<string, unknown>, allowed: ReadonlySet<ActionType>): ParseActionResult {
  const result = actionOf(object, allowed);
  const notes = text(object.notes).trim();
  return result.ok && notes !== '' ? { ok: true, action: { ...result.action, notes } } : result;
}

function actionOf(object: Record<string, unknown>, allowed: ReadonlySet<ActionType>): ParseActionResult {
  const thinking = text(object.thinking) || text(object.reasoning);
  // precedence: done > query > lookup_schema > search_tables
  if (isTruthyDone(object.done) && allowed.has('done'))
    return { ok: true, action: { type: 'done', summary: text(object.summary) || text(object.reason), thinking } };
  const sql = (text(object.query) || text(object.sql)).trim();
  if (sql && allowed.has('query'))
    return { ok: true, action: { type: 'query', query: sql, purpose: text(object.query_purpose) || text(object.purpose), thinking } };
  if (object.lookup_schema !== undefined && allowed.has('lookup_schema')) {
    const tables = stringList(object.lookup_schema);
    if (tables.length === 0) return { ok: false, reason: 'lookup_schema needs a non-empty list of tables, e.g. ["schema.table"]' };
    return { ok: true, action: { type: 'lookup_schema', tables, thinking } };
  }
  const search = text(object.search_tables).trim();
  if (search && allowed.has('search_tables'))
    return { ok: true, action: { type: 'search_tables', query: search, topK: positiveInt(object.search_top_k ?? object.top_k), thinking } };
  const present = (['done', 'query', 'lookup_schema', 'search_tables'] as const).filter((key) =>
    key === 'done' ? isTruthyDone(object.done) : key === 'lookup_schema' ? object[key] !== undefined : text(object[key]).trim() !== '',
  );
  if (present.length > 0)
    return { ok: false, reason: `action ${present.join(', ')} is not allowed here; allowed: ${[...allowed].join(', ')}` };
  return { ok: false, reason: `the JSON object has no action key (found keys: ${Object.keys(object).slice(0, 8).join(', ') || 'none'})` };
}

/**
 * Parses a model reply into one action. Picks the last JSON candidate that carries an action key
 * (models often restate the final answer after a draft); a reply with none is an error.
 */
export function parseAction(reply: string, allowed: ReadonlySet<ActionType> = EXPLORER_ACTIONS): ParseActionResult {
  const objects = parsedObjects(reply).map((object) => unwrapLegacy(unwrapEnvelope(object)));
  if (objects.length === 0) {
    return { ok: false, reason: reply.trim() === '' ? 'the reply was empty' : 'the reply contains no parseable JSON object' };
  }
  const withAction = objects.filter(hasActionKey);
  const chosen = withAction[withAction.length - 1] ?? objects[objects.length - 1]!;
  return toAction(chosen, allowed);
}

const SHAPES: Record<ActionType, string> = {
  query: '{"thinking": "why", "query_purpose": "what this answers", "query": "SELECT ..."}',
  lookup_schema: '{"thinking": "why", "lookup_schema": ["schema.table", "..."]}',
  search_tables: '{"thinking": "why", "search_tables": "a concept to find tables for", "search_top_k": 10}',
  done: '{"done": true, "summary": "what you found"}',
};

/** The nudge sent after an unparseable reply: every allowed shape, not just query/done. */
export function reformatNudge(reason: string, allowed: ReadonlySet<ActionType> = EXPLORER_ACTIONS): string {
  const shapes = [...allowed].map((action) => `- ${SHAPES[action]}`).join('\n');
  return [
    `Your last reply could not be used: ${reason}.`,
    'Respond with exactly ONE JSON object and nothing else, in one of these shapes:',
    shapes,
  ].join('\n');
}

const thinking = z.string().describe('Why this action, and what you expect to learn from it.');
const notes = z
  .string()
  .optional()
  .describe('Your working notes, only when you want to replace them: the engine shows your latest notes in every later turn.');

/** The exploration actions as tools: their arguments are the JSON objects the text protocol writes (without `done: true`). */
const ACTION_TOOLS: Record<ActionType, AnswerTool<ExplorationAction>> = {
  query: {
    name: 'query',
    description:
      'Run one read-only SELECT (WITH … SELECT allowed) against the warehouse and see its row count, column statistics and first rows.',
    schema: z.object({
      thinking,
      query_purpose: z
        .string()
        .describe('Short and specific, starting with the area it serves, e.g. "conversion: cart-to-order rate by device".'),
      query: z.string().min(1).describe('The SQL, in the warehouse dialect, with fully qualified table names from the catalog.'),
      notes,
    }),
    accept: (input) => accepted(input, 'query'),
  },
  lookup_schema: {
    name: 'lookup_schema',
    description: 'Show the columns and a few sample rows of catalog tables (several tables per call).',
    schema: z.object({
      thinking,
      lookup_schema: z.array(z.string().min(1)).min(1).describe('Fully qualified table names exactly as the catalog writes them.'),
      notes,
    }),
    accept: (input) => accepted(input, 'lookup_schema'),
  },
  search_tables: {
    name: 'search_tables',
    description: 'Find tables by meaning when the catalog names do not show where something lives.',
    schema: z.object({
      thinking,
      search_tables: z.string().min(1).describe('The concept to find tables for.'),
      search_top_k: z.number().int().min(1).optional().describe('How many tables to return.'),
      notes,
    }),
    accept: (input) => accepted(input, 'search_tables'),
  },
  done: {
    name: 'done',
    description: 'Finish exploring: the areas are covered or the budget is nearly spent.',
    schema: z.object({
      summary: z.string().describe('What the evidence covers per area, and what could not be measured and why.'),
      notes,
    }),
    accept: (input) => accepted(input, 'done'),
  },
};

/** A tool's arguments as an action: checked by the tool's schema, then read like the text protocol's object. */
function accepted(input: unknown, type: ActionType): ParseOutcome<ExplorationAction> {
  const tool = ACTION_TOOLS[type];
  const checked = tool.schema.safeParse(input);
  if (!checked.success) return { ok: false, reason: `the arguments of "${type}" do not fit its schema (${describeIssues(checked.error)})` };
  const object = checked.data as Record<string, unknown>;
  const result = toAction(type === 'done' ? { ...object, done: true } : object, new Set([type]));
  return result.ok ? { ok: true, value: result.action } : result;
}

/**
 * The exploration (or verification) answer: one action, asked as a tool call where the model has tools,
 * else parsed from text with `retries` reformat nudges that list every allowed shape.
 */
export function actionAnswer(allowed: ReadonlySet<ActionType>, retries: number): AnswerSpec<ExplorationAction> {
  return {
    tools: [...allowed].map((type) => ACTION_TOOLS[type]),
    fromText: (reply) => {
      const parsed = parseAction(reply, allowed);
      return parsed.ok ? { ok: true, value: parsed.action } : parsed;
    },
    textNudge: (reason) => reformatNudge(reason, allowed),
    textRetries: retries,
  };
}
