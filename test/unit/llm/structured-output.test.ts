import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchemaOf, toStrictJsonSchema, withoutNullOptionals } from '../../../src/llm/json-schema.js';
import { nativeAnswer } from '../../../src/llm/native-answer.js';
import type { LlmTool } from '../../../src/llm/port.js';
import type { PromptSection } from '../../../src/llm/prompt-builder.js';
import {
  answerRequest,
  askForAnswer,
  describeIssues,
  readAnswer,
  withSystemNote,
  type AnswerSpec,
} from '../../../src/llm/structured-output.js';

const point = z.object({ x: z.number(), label: z.string().optional() });
const pointSpec: AnswerSpec<{ x: number; label?: string | undefined }> = {
  tools: [
    {
      name: 'report_point',
      description: 'a point',
      schema: point,
      accept: (input) => {
        const parsed = point.safeParse(input);
        return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: describeIssues(parsed.error) };
      },
    },
  ],
  fromText: (reply) => {
    const match = /x=(\d+)/.exec(reply);
    return match ? { ok: true, value: { x: Number(match[1]) } } : { ok: false, reason: 'no x= in the reply' };
  },
  textNudge: (reason) => `write x=<n> (${reason})`,
  textRetries: 2,
};

describe('when a zod schema becomes a JSON Schema for a provider', () => {
  it('keeps what a model may send (defaults optional) and drops zod-only noise', () => {
    const schema = jsonSchemaOf(z.object({ n: z.number().int(), note: z.string().default('') }));
    expect(schema).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' }, note: { type: 'string', default: '' } },
      required: ['n'],
    });
  });

  it('makes every property required, optional ones nullable, and closes every object in strict form', () => {
    const strict = toStrictJsonSchema(jsonSchemaOf(z.object({ x: z.number(), tags: z.array(z.object({ t: z.string().optional() })) })));
    expect(strict).toEqual({
      type: 'object',
      properties: {
        x: { type: 'number' },
        tags: {
          type: 'array',
          items: {
            type: 'object',
            properties: { t: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
            required: ['t'],
            additionalProperties: false,
          },
        },
      },
      required: ['x', 'tags'],
      additionalProperties: false,
    });
  });

  it('has no strict form for an open record or an "anything" property', () => {
    expect(toStrictJsonSchema(jsonSchemaOf(z.object({ metrics: z.record(z.string(), z.number()) })))).toBeUndefined();
    expect(toStrictJsonSchema(jsonSchemaOf(z.object({ claim: z.unknown() })))).toBeUndefined();
  });

  it('takes the nulls of optional properties back out, at any depth, and keeps required nulls', () => {
    const schema = jsonSchemaOf(
      z.object({ a: z.number().nullable(), b: z.string().optional(), c: z.array(z.object({ d: z.string().optional() })) }),
    );
    expect(withoutNullOptionals({ a: null, b: null, c: [{ d: null }, { d: 'x' }] }, schema)).toEqual({ a: null, c: [{}, { d: 'x' }] });
  });
});

describe('when the offline answer is turned into a native reply', () => {
  const tools: LlmTool[] = ['query', 'lookup_schema', 'done'].map((name) => ({
    name,
    description: name,
    inputSchema: { type: 'object', properties: name === 'done' ? { summary: {} } : { thinking: {}, [name]: {} } },
  }));

  it('calls the tool the answer names by a key, keeping only the properties that tool declares', () => {
    const native = nativeAnswer('Sure. {"thinking": "t", "lookup_schema": ["main.orders"], "extra": 1}', {
      tools,
      toolChoice: { type: 'any' },
    });
    expect(native).toEqual({ text: '', toolCalls: [{ name: 'lookup_schema', input: { thinking: 't', lookup_schema: ['main.orders'] } }] });
    expect(nativeAnswer('{"done": true, "summary": "s"}', { tools }).toolCalls).toEqual([{ name: 'done', input: { summary: 's' } }]);
  });

  it('still calls a forced tool, with empty arguments, when the answer holds no JSON', () => {
    expect(nativeAnswer('prose only', { tools, toolChoice: { type: 'tool', name: 'done' } }).toolCalls).toEqual([
      { name: 'done', input: {} },
    ]);
    expect(nativeAnswer('prose only', { tools, toolChoice: { type: 'auto' } })).toEqual({ text: 'prose only', toolCalls: [] });
  });

  it('writes just the JSON object for a response format', () => {
    const format = { name: 'f', schema: { type: 'object' } };
    expect(nativeAnswer('Here: {"x": 1} done', { responseFormat: format }).text).toBe('{"x":1}');
    expect(nativeAnswer('nothing', { responseFormat: format }).text).toBe('{}');
  });
});

describe('when an answer is asked for', () => {
  it('uses structured output for one strict-compatible answer on a model that has it, else a forced tool, else text', () => {
    expect(answerRequest(pointSpec, { tools: true, structuredOutput: true }, 'auto').protocol).toBe('structured');
    const tools = answerRequest(pointSpec, { tools: true, structuredOutput: false }, 'auto');
    expect(tools).toMatchObject({ protocol: 'tools', toolChoice: { type: 'tool', name: 'report_point' } });
    expect(tools.tools?.[0]).toMatchObject({ strict: true, inputSchema: { additionalProperties: false } });
    expect(answerRequest(pointSpec, { tools: false, structuredOutput: false }, 'auto').protocol).toBe('text');
    expect(answerRequest(pointSpec, { tools: true, structuredOutput: true }, 'text').protocol).toBe('text');
  });

  it('forces one call of any tool when there are several kinds of answer', () => {
    const two = { ...pointSpec, tools: [pointSpec.tools[0]!, { ...pointSpec.tools[0]!, name: 'other' }] };
    expect(answerRequest(two, { tools: true, structuredOutput: true }, 'auto')).toMatchObject({
      protocol: 'tools',
      toolChoice: { type: 'any' },
    });
  });

  it('reads the same typed value from a tool call, a structured output and a text reply', () => {
    const viaTool = answerRequest(pointSpec, { tools: true, structuredOutput: false }, 'auto');
    expect(
      readAnswer(pointSpec, viaTool, { text: '', toolCalls: [{ id: '1', name: 'report_point', input: { x: 3, label: null } }] }),
    ).toEqual({
      ok: true,
      value: { x: 3 },
    });
    const viaFormat = answerRequest(pointSpec, { tools: true, structuredOutput: true }, 'auto');
    expect(readAnswer(pointSpec, viaFormat, { text: '{"x": 3, "label": null}' })).toEqual({ ok: true, value: { x: 3 } });
    expect(readAnswer(pointSpec, { protocol: 'text' }, { text: 'x=3' })).toEqual({ ok: true, value: { x: 3 } });
  });

  it('says why a tool answer is unusable: no call, another tool, arguments that are not JSON or not the schema', () => {
    const request = answerRequest(pointSpec, { tools: true, structuredOutput: false }, 'auto');
    expect(readAnswer(pointSpec, request, { text: 'hi', toolCalls: [] })).toMatchObject({
      reason: expect.stringMatching(/called no tool/),
    });
    expect(readAnswer(pointSpec, request, { text: '', toolCalls: [{ id: '1', name: 'x', input: {} }] })).toMatchObject({
      reason: expect.stringMatching(/called "x", which is not one of: report_point/),
    });
    expect(readAnswer(pointSpec, request, { text: '', toolCalls: [{ id: '1', name: 'report_point', input: '{x:' }] })).toMatchObject({
      reason: expect.stringMatching(/not valid JSON/),
    });
    expect(readAnswer(pointSpec, request, { text: '', toolCalls: [{ id: '1', name: 'report_point', input: { x: 'a' } }] })).toMatchObject({
      reason: expect.stringMatching(/^x: Invalid input: expected number/),
    });
  });

  const sections: PromptSection[] = [
    { id: 'system', role: 'system', text: 'You analyse.', priority: 100, shrink: 'none', cacheBreakpoint: true },
    { id: 'ask', role: 'user', text: 'Give a point.', priority: 100, shrink: 'none' },
  ];

  it('gives an unusable tool call exactly one repair turn that quotes the validation error', async () => {
    const request = answerRequest(pointSpec, { tools: true, structuredOutput: false }, 'auto');
    const seen: PromptSection[][] = [];
    const outcome = await askForAnswer({
      spec: pointSpec,
      request,
      sections,
      call: async (sent) => {
        seen.push([...sent]);
        return { text: '', toolCalls: [{ id: 'c', name: 'report_point', input: { x: 'not a number' } }] };
      },
    });
    expect(outcome).toMatchObject({ ok: false, attempts: 2, reason: expect.stringMatching(/x: Invalid input/) });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.at(-2)).toMatchObject({ role: 'assistant', text: 'report_point: {"x":"not a number"}' });
    expect(seen[1]?.at(-1)?.text).toMatch(/^Your last tool call could not be used: x: Invalid input: expected number/);
  });

  it("gives an unusable text reply the spec's reformat nudges", async () => {
    const replies = ['no', 'still no', 'x=7'];
    const outcome = await askForAnswer({
      spec: pointSpec,
      request: { protocol: 'text' },
      sections,
      call: async () => ({ text: replies.shift() ?? '' }),
    });
    expect(outcome).toEqual({ ok: true, value: { x: 7 }, attempts: 3 });
  });

  it('tells the model how to answer at the end of the system prompt, keeping the cache breakpoint at its end', () => {
    const request = answerRequest(pointSpec, { tools: true, structuredOutput: false }, 'auto');
    const noted = withSystemNote(sections, 'Answer by calling report_point.');
    expect(noted.map((section) => [section.id, section.cacheBreakpoint ?? false])).toEqual([
      ['system', false],
      ['answer-protocol', true],
      ['ask', false],
    ]);
    expect(request.protocol).toBe('tools');
  });
});
