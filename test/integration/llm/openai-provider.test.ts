import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiProvider } from '../../../src/llm/providers/openai.js';
import { runProviderContract } from './provider-contract.js';

runProviderContract('openai', (url, credential) => createOpenAiProvider({ model: 'gpt-5.4', apiKey: credential, baseUrl: `${url}/v1` }), {
  provider: 'openai',
  model: 'gpt-5.4',
  tokenFamily: 'openai',
  authStatus: 401,
  promptCache: 'automatic',
});

runProviderContract(
  'openai-compatible',
  (url, credential) =>
    createOpenAiProvider({ provider: 'openai-compatible', model: 'qwen2.5:7b', apiKey: credential, baseUrl: `${url}/v1` }),
  {
    provider: 'openai-compatible',
    model: 'qwen2.5:7b',
    tokenFamily: 'openai',
    authStatus: 401,
    promptCache: 'automatic',
    catalogProvider: 'openai',
  },
);

describe('when the OpenAI adapter sends the output cap', () => {
  let server: http.Server;
  let url: string;
  const bodies: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    // a recorder, not the simulator: it keeps the raw request body the SDK sent
    server = http.createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        bodies.push(JSON.parse(text) as Record<string, unknown>);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('uses max_completion_tokens for OpenAI and max_tokens for compatible servers', async () => {
    const request = { messages: [{ role: 'user' as const, content: 'hi' }], maxOutputTokens: 77 };
    await createOpenAiProvider({ model: 'gpt-5.4', apiKey: 'k', baseUrl: url }).complete(request);
    await createOpenAiProvider({ provider: 'openai-compatible', model: 'llama3.1:8b', apiKey: 'k', baseUrl: url }).complete(request);
    expect(bodies[0]).toMatchObject({ max_completion_tokens: 77 });
    expect(bodies[0]).not.toHaveProperty('max_tokens');
    expect(bodies[1]).toMatchObject({ max_tokens: 77 });
    expect(bodies[1]).not.toHaveProperty('max_completion_tokens');
  });
});
