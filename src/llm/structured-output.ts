/**
 * Asking a model for a typed answer, whatever it speaks. A phase declares its answer once, as zod schemas:
 * one tool per kind of answer (exploration: `query`, `lookup_schema`, `search_tables`, `done`; analysis:
 * `report_insights`). The ask then goes out
 *
 * - as a **structured output** (`response_format` / `output_config.format` / `outputConfig.textFormat`)
 *   when there is one kind of answer, its schema fits the providers' strict subset, and the model has
 *   structured output;
 * - as **native tool calls** (`tool_choice` forcing one call) when the model has tools;
 * - as **text** otherwise, or when configured so: the reply's JSON is found by the phase's text parser.
 *
 * Either way the answer is validated by the same zod schema and returned as the same typed value. An
 * unusable tool call or structured output gets one repair turn that quotes the validation error; an
 * unusable text reply gets the phase's reformat nudges. The choice depends on the model's catalog entry,
 * never on the provider's name.
 */
import type { z } from 'zod';
import type { ModelCatalogEntry } from './catalog.js';
import { jsonSchemaOf, toStrictJsonSchema, withoutNullOptionals } from './json-schema.js';
import type { JsonSchema, LlmResponse, LlmResponseFormat, LlmTool, LlmToolChoice } from './port.js';
import type { PromptSection } from './prompt-builder.js';

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** How an answer was asked for; recorded on every call. */
export type AnswerProtocol = 'text' | 'tools' | 'structured';

/** `auto`: native tools or structured output where the catalog says the model has them; `text`: always the text protocol. */
export type ProtocolPreference = 'auto' | 'text';

/** One kind of answer: a tool the model calls (or, alone, the structured output it writes). */
export interface AnswerTool<T> {
  name: string;
  description: string;
  /** What the model is asked to send; its JSON Schema comes from zod's `z.toJSONSchema`. */
  schema: z.ZodType;
  /** The typed value of a valid input, or why it cannot be used (the schema's issues, a rule of the phase). */
  accept(input: unknown): ParseOutcome<T>;
}

export interface AnswerSpec<T> {
  tools: ReadonlyArray<AnswerTool<T>>;
  /** The text protocol: the answer in a reply written as text (JSON found in prose, legacy shapes mapped). */
  fromText(reply: string): ParseOutcome<T>;
  /** The nudge after an unusable text reply: what was wrong and every allowed shape. */
  textNudge(reason: string): string;
  /** Reformat nudges after an unusable text reply (tool calls and structured output get one repair turn). */
  textRetries: number;
}

/** Repair turns after an unusable tool call or structured output. */
export const NATIVE_REPAIR_TURNS = 1;

/** What goes on the wire for one protocol. */
export interface AnswerRequest {
  protocol: AnswerProtocol;
  tools?: LlmTool[];
  toolChoice?: LlmToolChoice;
  responseFormat?: LlmResponseFormat;
}

interface PreparedTool<T> {
  tool: AnswerTool<T>;
  schema: JsonSchema;
  strict: JsonSchema | undefined;
}

/** The JSON Schemas of a spec's tools, made once per spec. */
const prepared = new WeakMap<AnswerSpec<unknown>, Array<PreparedTool<unknown>>>();

function prepare<T>(spec: AnswerSpec<T>): Array<PreparedTool<T>> {
  const cached = prepared.get(spec as AnswerSpec<unknown>);
  if (cached) return cached as Array<PreparedTool<T>>;
  const tools = spec.tools.map((tool) => {
    const schema = jsonSchemaOf(tool.schema);
    return { tool, schema, strict: toStrictJsonSchema(schema) };
  });
  prepared.set(spec as AnswerSpec<unknown>, tools as Array<PreparedTool<unknown>>);
  return tools;
}

/** The protocol for this spec on this model, and what the request carries for it. */
export function answerRequest<T>(
  spec: AnswerSpec<T>,
  entry: Pick<ModelCatalogEntry, 'tools' | 'structuredOutput'>,
  preference: ProtocolPreference,
): AnswerRequest {
  if (preference === 'text' || spec.tools.length === 0) return { protocol: 'text' };
  const tools = prepare(spec);
  const only = tools.length === 1 ? tools[0] : undefined;
  if (only?.strict && entry.structuredOutput) {
    return {
      protocol: 'structured',
      responseFormat: { name: only.tool.name, description: only.tool.description, schema: only.strict },
    };
  }
  if (!entry.tools) return { protocol: 'text' };
  return {
    protocol: 'tools',
    tools: tools.map(({ tool, schema, strict }) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: strict ?? schema,
      ...(strict ? { strict: true } : {}),
    })),
    toolChoice: only ? { type: 'tool', name: only.tool.name } : { type: 'any' },
  };
}

function issues(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The typed answer in a response, or why it cannot be used. */
export function readAnswer<T>(
  spec: AnswerSpec<T>,
  request: AnswerRequest,
  response: Pick<LlmResponse, 'text' | 'toolCalls' | 'parsed'>,
): ParseOutcome<T> {
  if (request.protocol === 'text') return spec.fromText(response.text);
  const tools = prepare(spec);
  if (request.protocol === 'structured') {
    const only = tools[0] as PreparedTool<T>;
    let value = response.parsed;
    if (value === undefined) {
      try {
        value = JSON.parse(response.text);
      } catch (error) {
        return { ok: false, reason: `the structured output is not valid JSON (${issues(error)})` };
      }
    }
    return only.tool.accept(withoutNullOptionals(value, only.schema));
  }
  const calls = response.toolCalls ?? [];
  const call = calls.find((candidate) => tools.some(({ tool }) => tool.name === candidate.name));
  if (!call) {
    const names = tools.map(({ tool }) => tool.name).join(', ');
    return {
      ok: false,
      reason:
        calls.length > 0
          ? `it called ${calls.map((candidate) => `"${candidate.name}"`).join(', ')}, which is not one of: ${names}`
          : `it called no tool (one of ${names} is required)`,
    };
  }
  if (typeof call.input === 'string') return { ok: false, reason: `the arguments of "${call.name}" are not valid JSON` };
  const target = tools.find(({ tool }) => tool.name === call.name) as PreparedTool<T>;
  return target.tool.accept(withoutNullOptionals(call.input, target.schema));
}

/** What the model sent, as the assistant turn of a repair exchange (tool calls written as their JSON input). */
export function echoAnswer(request: AnswerRequest, response: Pick<LlmResponse, 'text' | 'toolCalls'>): string {
  if (request.protocol !== 'tools') return response.text;
  const calls = response.toolCalls ?? [];
  if (calls.length === 0) return response.text;
  return calls.map((call) => `${call.name}: ${typeof call.input === 'string' ? call.input : JSON.stringify(call.input)}`).join('\n');
}

/** The user turn after an unusable tool call or structured output: the validation error, and what to do. */
export function repairNudge(request: AnswerRequest, reason: string): string {
  if (request.protocol === 'structured') {
    return `Your last answer could not be used: ${reason}. Answer again with a JSON object that follows the schema exactly, correcting only what the error names.`;
  }
  return `Your last tool call could not be used: ${reason}. Call exactly one of the tools again with corrected arguments, changing only what the error names.`;
}

/** Zod issues as one line: `path: message; path: message`. */
export function describeIssues(error: z.ZodError, limit = 5): string {
  return error.issues
    .slice(0, limit)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** A rejected answer is echoed back at most this long. */
const ECHOED_ANSWER_MAX_CHARS = 2_000;

export interface AnswerLoopOptions<T> {
  spec: AnswerSpec<T>;
  request: AnswerRequest;
  sections: readonly PromptSection[];
  /** One model call with these sections (the budgeted call, recorded by the caller); `attempt` starts at 1. */
  call(sections: readonly PromptSection[], attempt: number): Promise<Pick<LlmResponse, 'text' | 'toolCalls' | 'parsed'>>;
  /** Told about every unusable answer before the next attempt. */
  onRejected?(attempt: number, reason: string): void;
}

export type AnswerLoopResult<T> = { ok: true; value: T; attempts: number } | { ok: false; reason: string; attempts: number };

/**
 * Ask until the answer is usable: the first ask, then one repair turn for tools and structured output, or
 * `textRetries` reformat nudges for text. Each rejected answer stays in the conversation (shortened),
 * followed by what was wrong. Model errors propagate to the caller; only unusable answers are retried.
 */
export async function askForAnswer<T>(options: AnswerLoopOptions<T>): Promise<AnswerLoopResult<T>> {
  const { spec, request } = options;
  const retries = request.protocol === 'text' ? spec.textRetries : NATIVE_REPAIR_TURNS;
  const sections: PromptSection[] = withSystemNote(options.sections, nativeAnswerNote(request));
  let reason = '';
  for (let attempt = 1; attempt <= retries + 1; attempt += 1) {
    const response = await options.call(sections, attempt);
    const answer = readAnswer(spec, request, response);
    if (answer.ok) return { ok: true, value: answer.value, attempts: attempt };
    reason = answer.reason;
    if (attempt > retries) break;
    options.onRejected?.(attempt, reason);
    sections.push(
      {
        id: `rejected-${attempt}`,
        role: 'assistant',
        text: echoAnswer(request, response).slice(0, ECHOED_ANSWER_MAX_CHARS) || '(empty reply)',
        priority: 85,
        shrink: 'truncate',
        minTokens: 32,
      },
      {
        id: `nudge-${attempt}`,
        role: 'user',
        text: request.protocol === 'text' ? spec.textNudge(reason) : repairNudge(request, reason),
        priority: 95,
        shrink: 'none',
      },
    );
  }
  return { ok: false, reason, attempts: retries + 1 };
}

/** How to answer, told to the model when the answer goes through tools or structured output instead of text. */
export function nativeAnswerNote(request: AnswerRequest): string | undefined {
  if (request.protocol === 'structured') {
    return 'Your reply is held to a JSON schema: write exactly the JSON object described above and nothing else.';
  }
  if (request.protocol !== 'tools') return undefined;
  const names = (request.tools ?? []).map((tool) => `\`${tool.name}\``);
  const which = names.length === 1 ? `the tool ${names[0]}` : `exactly one of the tools ${names.join(', ')}`;
  return `Answer by calling ${which}, once. Its arguments are the fields of the JSON object described above for that answer; do not write the JSON as text.`;
}

/**
 * `sections` with `note` added to the end of the system prompt. A cache breakpoint on the last system
 * section moves to the note, so the stable prefix still ends with the system prompt.
 */
export function withSystemNote(sections: readonly PromptSection[], note: string | undefined): PromptSection[] {
  if (note === undefined) return [...sections];
  const lastSystem = sections.findLastIndex((section) => section.role === 'system');
  const marked = lastSystem >= 0 && sections[lastSystem]?.cacheBreakpoint === true;
  const noteSection: PromptSection = {
    id: 'answer-protocol',
    role: 'system',
    text: note,
    priority: 100,
    shrink: 'none',
    ...(marked ? { cacheBreakpoint: true } : {}),
  };
  const copy = sections.map((section, index) => (index === lastSystem && marked ? { ...section, cacheBreakpoint: false } : section));
  copy.splice(lastSystem + 1, 0, noteSection);
  return copy;
}
