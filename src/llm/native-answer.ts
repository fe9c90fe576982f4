/**
 * A text answer in a provider's native form. The offline analyst answers every prompt with the JSON object
 * the text protocol asks for; when a request offers tools or a response format, the offline provider and
 * the LLM simulator turn that answer into the tool call or the structured output a real model would send,
 * so the tools path runs end to end without a key.
 *
 * The rule is the text protocol's own key-driven form: an answer calls the offered tool named by one of its
 * keys (`{"lookup_schema": […]}` calls `lookup_schema`), else the only offered tool (or the forced one); the
 * call's input keeps the properties that tool declares. An answer with no JSON object still calls a tool when
 * the request forces one, with empty input, as a model that ignores the schema would.
 */
import { isPlainObject, parsedObjects } from '../common/json-extract.js';
import type { LlmRequest, LlmTool } from './port.js';

export interface NativeAnswer {
  /** The text part of the reply: the structured JSON, or the prose when no tool is called. */
  text: string;
  toolCalls: Array<{ name: string; input: Record<string, unknown> }>;
}

function declaredProperties(tool: LlmTool): Set<string> | undefined {
  const properties = tool.inputSchema.properties;
  return isPlainObject(properties) ? new Set(Object.keys(properties)) : undefined;
}

function pick(answer: Record<string, unknown>, tool: LlmTool): Record<string, unknown> {
  const declared = declaredProperties(tool);
  if (declared === undefined) return answer;
  return Object.fromEntries(Object.entries(answer).filter(([key]) => declared.has(key)));
}

function chooseTool(answer: Record<string, unknown> | undefined, request: Pick<LlmRequest, 'tools' | 'toolChoice'>): LlmTool | undefined {
  const tools = request.tools ?? [];
  const choice = request.toolChoice ?? { type: 'auto' };
  if (choice.type === 'tool') return tools.find((tool) => tool.name === choice.name);
  const named = answer === undefined ? undefined : tools.find((tool) => tool.name in answer);
  if (named) return named;
  if (tools.length === 1 && (answer !== undefined || choice.type === 'any')) return tools[0];
  return choice.type === 'any' ? tools[0] : undefined;
}

/** The last JSON object of the answer that names an offered tool, else its last JSON object. */
function answerObject(text: string, tools: readonly LlmTool[]): Record<string, unknown> | undefined {
  const objects = parsedObjects(text);
  const naming = objects.filter((object) => tools.some((tool) => tool.name in object));
  return naming.at(-1) ?? objects.at(-1);
}

export function nativeAnswer(text: string, request: Pick<LlmRequest, 'tools' | 'toolChoice' | 'responseFormat'>): NativeAnswer {
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    const answer = answerObject(text, tools);
    const tool = chooseTool(answer, request);
    if (tool) return { text: '', toolCalls: [{ name: tool.name, input: answer === undefined ? {} : pick(answer, tool) }] };
    return { text, toolCalls: [] };
  }
  if (request.responseFormat) {
    const answer = parsedObjects(text).at(-1);
    return { text: JSON.stringify(answer === undefined || !isPlainObject(answer) ? {} : answer), toolCalls: [] };
  }
  return { text, toolCalls: [] };
}
