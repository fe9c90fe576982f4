import { describe, expect, it } from 'vitest';
import { anthropicMessageParams } from '../../../src/llm/providers/anthropic.js';
import { converseInput } from '../../../src/llm/providers/bedrock.js';
import { MAX_CACHE_BREAKPOINTS, boundedBreakpoints } from '../../../src/llm/providers/cache-breakpoints.js';
import { openAiChatParams } from '../../../src/llm/providers/openai.js';
import type { LlmRequest } from '../../../src/llm/port.js';

const request: LlmRequest = {
  system: 'rules',
  messages: ['a', 'b', 'c', 'd', 'e'].map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })),
  maxOutputTokens: 100,
  cache: {
    breakpoints: [{ after: 'system' }, ...[0, 1, 2, 3, 4].map((index) => ({ after: 'message' as const, index }))],
    key: 'assay:run-1:exploration',
  },
};

describe('when cache breakpoints go on the wire', () => {
  it('keeps the one after the system prompt and the latest message ones, four in all', () => {
    const kept = boundedBreakpoints(request.cache!.breakpoints);
    expect(kept.system).toBe(true);
    expect([...kept.messages]).toEqual([2, 3, 4]);
    expect(
      boundedBreakpoints([
        { after: 'message', index: 9 },
        { after: 'message', index: 1 },
      ]).messages,
    ).toEqual(new Set([1, 9]));
  });

  it('marks the Anthropic system block and message blocks with cache_control, at most four', () => {
    const params = anthropicMessageParams('claude-sonnet-5-5', request);
    const marked = [params.system, ...params.messages.map((message) => message.content)]
      .flatMap((content) => (Array.isArray(content) ? content : []))
      .filter((block) => 'cache_control' in block && block.cache_control);
    expect(marked).toHaveLength(MAX_CACHE_BREAKPOINTS);
    expect(params.messages[0]?.content).toBe('a');
  });

  it('puts Bedrock cachePoint blocks after the system text and the marked messages, at most four', () => {
    const input = converseInput('us.anthropic.claude-sonnet-4-6', request);
    const points = [...(input.system ?? []), ...(input.messages ?? []).flatMap((message) => message.content ?? [])].filter(
      (block) => 'cachePoint' in block && block.cachePoint,
    );
    expect(points).toHaveLength(MAX_CACHE_BREAKPOINTS);
    expect(input.system).toEqual([{ text: 'rules' }, { cachePoint: { type: 'default' } }]);
  });

  it('sends OpenAI only the routing key: its caching is automatic', () => {
    const params = openAiChatParams('gpt-5.4', request, 'max_completion_tokens');
    expect(params.prompt_cache_key).toBe('assay:run-1:exploration');
    expect(JSON.stringify(params.messages)).not.toContain('cache');
  });

  it('sends no markers and no key when the request carries no cache hints', () => {
    const { cache: _cache, ...plain } = request;
    expect(JSON.stringify(anthropicMessageParams('claude-sonnet-5-5', plain))).not.toContain('cache_control');
    expect(JSON.stringify(converseInput('us.anthropic.claude-sonnet-4-6', plain))).not.toContain('cachePoint');
    expect(openAiChatParams('gpt-5.4', plain, 'max_completion_tokens').prompt_cache_key).toBeUndefined();
  });
});

describe('when a strict schema goes to Claude', () => {
  const strict = {
    type: 'object',
    properties: { query: { type: 'string', minLength: 1 }, notes: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    required: ['query', 'notes'],
    additionalProperties: false,
  };

  it('moves what constrained decoding cannot enforce into the description, on Anthropic and on Bedrock', () => {
    const tools = [{ name: 'query', description: 'Run SQL.', inputSchema: strict, strict: true }];
    const anthropic = anthropicMessageParams('claude-sonnet-5-5', { ...request, cache: undefined, tools }) as {
      tools?: Array<{ input_schema: unknown }>;
    };
    expect(anthropic.tools?.[0]?.input_schema).toMatchObject({
      properties: { query: { type: 'string', description: '{minLength: 1}' }, notes: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      additionalProperties: false,
    });
    const bedrock = converseInput('us.anthropic.claude-sonnet-4-6', { ...request, tools });
    expect(JSON.stringify(bedrock.toolConfig?.tools?.[0])).toContain('{minLength: 1}');
  });

  it('leaves a non-strict tool schema as it is', () => {
    const tools = [{ name: 'report', description: 'Report.', inputSchema: { ...strict, additionalProperties: { type: 'number' } } }];
    const anthropic = anthropicMessageParams('claude-sonnet-5-5', { ...request, tools }) as { tools?: Array<{ input_schema: unknown }> };
    expect(anthropic.tools?.[0]?.input_schema).toEqual(tools[0]?.inputSchema);
  });
});
