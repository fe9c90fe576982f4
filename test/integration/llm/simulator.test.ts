import http2 from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { estimatePromptTokens } from '../../../src/llm/providers/prompt-size.js';
import {
  scriptedBrain,
  startLlmSimulator,
  type LlmSimulator,
  type LlmSimulatorOptions,
  type SimulatorBrainRequest,
} from '../../../src/llm/simulator/index.js';
import { waitFor } from '../../support/wait-for.js';

const simulators: LlmSimulator[] = [];
async function simulator(options: LlmSimulatorOptions = {}): Promise<LlmSimulator> {
  const started = await startLlmSimulator(options);
  simulators.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(simulators.splice(0).map((started) => started.close()));
});

const anthropicHeaders = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
const openAiHeaders = { 'content-type': 'application/json', authorization: 'Bearer k' };

function anthropicBody(content: string, maxTokens = 100): string {
  return JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: maxTokens, messages: [{ role: 'user', content }] });
}
function openAiBody(content: string, maxTokens = 100): string {
  return JSON.stringify({ model: 'gpt-5.4', max_completion_tokens: maxTokens, messages: [{ role: 'user', content }] });
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

/** One HTTP/2 prior-knowledge request, as the AWS SDK sends them. */
async function postHttp2(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: http2.IncomingHttpHeaders; json: unknown }> {
  const session = http2.connect(base);
  try {
    const stream = session.request({ ':method': 'POST', ':path': path, ...headers });
    stream.end(body);
    const responseHeaders = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    });
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    return { status: Number(responseHeaders[':status']), headers: responseHeaders, json: JSON.parse(text) };
  } finally {
    session.close();
  }
}

describe('when a prompt is over the context window', () => {
  const longPrompt = 'weekly active users by platform and country '.repeat(20);
  const promptTokens = (family: 'anthropic' | 'openai' | 'default') =>
    estimatePromptTokens({ messages: [{ role: 'user', content: longPrompt }] }, family);

  it('answers Anthropic with 400 invalid_request_error "prompt is too long: N tokens > M maximum"', async () => {
    const { url } = await simulator({ contextWindow: 50 });
    const answer = await post(`${url}/v1/messages`, anthropicHeaders, anthropicBody(longPrompt));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${promptTokens('anthropic')} tokens > 50 maximum` },
    });
  });

  it("answers OpenAI with 400 context_length_exceeded and OpenAI's wording", async () => {
    const { url } = await simulator({ contextWindow: 50 });
    const answer = await post(`${url}/v1/chat/completions`, openAiHeaders, openAiBody(longPrompt));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: {
        message: `This model's maximum context length is 50 tokens. However, your messages resulted in ${promptTokens('openai')} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
  });

  it('answers Bedrock over HTTP/2 with a ValidationException in x-amzn-errortype and the message in the body', async () => {
    const { url } = await simulator({ contextWindow: 50 });
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: longPrompt }] }], inferenceConfig: { maxTokens: 100 } });
    const answer = await postHttp2(
      url,
      `/model/${encodeURIComponent('anthropic.claude-3-5-haiku-20241022-v1:0')}/converse`,
      openAiHeaders,
      body,
    );
    expect(answer.status).toBe(400);
    expect(answer.headers['x-amzn-errortype']).toBe('ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/');
    expect(answer.json).toEqual({
      message: `The model returned the following errors: prompt is too long: ${promptTokens('default')} tokens > 50 maximum`,
    });
  });
});

describe('when the reply does not fit the room left in the window', () => {
  it('cuts it and says the window, not the output cap, stopped it', async () => {
    const { url } = await simulator({ contextWindow: 30, brain: () => 'word '.repeat(200) });
    const anthropic = await post(`${url}/v1/messages`, anthropicHeaders, anthropicBody('short question', 1000));
    const openAi = await post(`${url}/v1/chat/completions`, openAiHeaders, openAiBody('short question', 1000));
    expect(anthropic.json).toMatchObject({ stop_reason: 'model_context_window_exceeded' });
    expect(openAi.json).toMatchObject({ choices: [{ finish_reason: 'length' }] });
    const usage = (anthropic.json as { usage: { input_tokens: number; output_tokens: number } }).usage;
    expect(usage.input_tokens + usage.output_tokens).toBeLessThanOrEqual(30);
  });
});

describe('when rate limiting is on', () => {
  it('refuses every K-th request and keeps refusing until the retry-after cool-down is over', async () => {
    const started = await simulator({ rateLimitEvery: 3, retryAfterSeconds: 0.3 });
    const call = () => post(`${started.url}/v1/chat/completions`, openAiHeaders, openAiBody('hi'));
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('0.3');
    expect(limited.json).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    const tooSoon = await call();
    expect(tooSoon.status).toBe(429);
    expect(Number(tooSoon.headers.get('retry-after'))).toBeLessThanOrEqual(0.3);
    await new Promise((resolve) => setTimeout(resolve, 320));
    expect((await call()).status).toBe(200);
    expect(started.stats.rateLimited).toBe(2);
  });

  it('sends Bedrock a ThrottlingException with status 429', async () => {
    const { url } = await simulator({ rateLimitEvery: 1 });
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
    const answer = await postHttp2(url, '/model/amazon.nova-lite-v1%3A0/converse', openAiHeaders, body);
    expect(answer.status).toBe(429);
    expect(String(answer.headers['x-amzn-errortype'])).toMatch(/^ThrottlingException:/);
    expect(answer.headers['retry-after']).toBe('1');
  });
});

describe('when a brain is plugged in', () => {
  it('passes it the API, the model, the system prompt, the turns and the output cap', async () => {
    const seen: SimulatorBrainRequest[] = [];
    const { url } = await simulator({
      brain: (request) => {
        seen.push(request);
        return 'noted';
      },
    });
    await post(
      `${url}/v1/messages`,
      anthropicHeaders,
      JSON.stringify({
        model: 'claude-haiku-4-5',
        max_tokens: 321,
        system: [{ type: 'text', text: 'Be exact.' }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Count rows.' }] }],
      }),
    );
    await post(
      `${url}/chat/completions`,
      openAiHeaders,
      JSON.stringify({
        model: 'gpt-5.4-mini',
        max_tokens: 12,
        messages: [
          { role: 'developer', content: 'Rules.' },
          { role: 'user', content: 'Go.' },
        ],
      }),
    );
    expect(seen).toEqual([
      {
        api: 'anthropic',
        model: 'claude-haiku-4-5',
        system: 'Be exact.',
        messages: [{ role: 'user', content: 'Count rows.' }],
        maxOutputTokens: 321,
      },
      { api: 'openai', model: 'gpt-5.4-mini', system: 'Rules.', messages: [{ role: 'user', content: 'Go.' }], maxOutputTokens: 12 },
    ]);
  });

  it('replies from a script in order and answers 500 once the script is used up', async () => {
    const { url } = await simulator({ brain: scriptedBrain(['{"action":"query"}', '{"action":"done"}']) });
    const texts: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const answer = await post(`${url}/v1/messages`, anthropicHeaders, anthropicBody('next'));
      texts.push((answer.json as { content: Array<{ text: string }> }).content[0]!.text);
    }
    expect(texts).toEqual(['{"action":"query"}', '{"action":"done"}']);
    const exhausted = await post(`${url}/v1/messages`, anthropicHeaders, anthropicBody('next'));
    expect(exhausted.status).toBe(500);
    expect(exhausted.json).toMatchObject({
      type: 'error',
      error: { type: 'api_error', message: expect.stringContaining('no reply left') },
    });
  });
});

describe('when a request is not one the simulator serves', () => {
  it('answers 404 for an unknown path', async () => {
    const { url } = await simulator();
    expect((await post(`${url}/v1/embeddings`, openAiHeaders, '{}')).status).toBe(404);
  });

  it("answers a malformed body with the API's 400 naming the bad field", async () => {
    const { url } = await simulator();
    const missing = await post(
      `${url}/v1/messages`,
      anthropicHeaders,
      JSON.stringify({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
    });
    const notJson = await post(`${url}/v1/chat/completions`, openAiHeaders, '{not json');
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it("answers a body over the size limit with the API's 413", async () => {
    const { url } = await simulator({ maxBodyBytes: 1_000 });
    const answer = await post(`${url}/v1/messages`, anthropicHeaders, anthropicBody('x'.repeat(2_000)));
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ error: { type: 'request_too_large' } });
  });
});

describe('when the simulator is closed with requests in flight', () => {
  it('drops them at once instead of waiting out the latency', async () => {
    // a latency far beyond the test's timeout: only dropping the request lets the test end
    const started = await startLlmSimulator({ latencyMs: 3_600_000 });
    const inFlight = fetch(`${started.url}/v1/messages`, { method: 'POST', headers: anthropicHeaders, body: anthropicBody('slow') }).then(
      () => 'answered',
      () => 'dropped',
    );
    await waitFor('the request to reach the simulator', () => started.stats.requests === 1);
    await started.close();
    expect(await inFlight).toBe('dropped');
  });
});

describe('when a request marks more cache breakpoints than the API takes', () => {
  it('refuses it with the Messages API error naming the count, as Anthropic does', async () => {
    const started = await startLlmSimulator();
    try {
      const marked = { type: 'text', text: 'part', cache_control: { type: 'ephemeral' } };
      const { status, json } = await post(
        `${started.url}/v1/messages`,
        anthropicHeaders,
        JSON.stringify({
          model: 'claude-sonnet-4-6',
          max_tokens: 10,
          system: [marked, marked],
          messages: [{ role: 'user', content: [marked, marked, marked] }],
        }),
      );
      expect(status).toBe(400);
      expect(json).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.' },
      });
    } finally {
      await started.close();
    }
  });
});
