/** The remote embedders over real HTTP, against a small in-test server that speaks each provider's wire format. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiEmbedder } from '../../../src/embed/openai.js';
import { createBedrockEmbedder } from '../../../src/embed/bedrock.js';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { LlmError } from '../../../src/errors/index.js';

/** A vector that encodes the text, so a test can tell which input each vector belongs to. */
function fakeVector(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, index) => (index === 0 ? text.length : index === 1 ? text.charCodeAt(0) : 0));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface Recorded {
  path: string;
  body: Record<string, unknown>;
}

let server: Server;
let baseUrl: string;
const recorded: Recorded[] = [];
let behaviour: 'ok' | 'unauthorized' | 'short' = 'ok';
let inFlight = 0;
let maxInFlight = 0;

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
  recorded.push({ path: request.url ?? '', body });
  response.setHeader('content-type', 'application/json');
  if (behaviour === 'unauthorized') {
    response.statusCode = 401;
    response.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
    return;
  }
  if (request.url === '/v1/embeddings') {
    const inputs = body.input as string[];
    const items = inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, 8) }));
    // Real servers may answer out of order; the adapter must put vectors back by `index`.
    items.reverse();
    if (behaviour === 'short') items.pop();
    response.end(JSON.stringify({ object: 'list', data: items, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    return;
  }
  const invoke = /^\/model\/([^/]+)\/invoke$/.exec(request.url ?? '');
  if (invoke) {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight--;
    const text = body.inputText as string;
    response.end(JSON.stringify({ embedding: fakeVector(text, body.dimensions as number), inputTextTokenCount: 3 }));
    return;
  }
  response.statusCode = 404;
  response.end('{}');
}

beforeAll(async () => {
  server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  recorded.length = 0;
  behaviour = 'ok';
  maxInFlight = 0;
});

describe('the OpenAI-compatible embedder', () => {
  const texts = Array.from({ length: 200 }, (_, index) => `table number ${index}${'x'.repeat(index % 7)}`);

  it('sends 96 inputs per request and returns one vector per text, in input order', async () => {
    const embedder = createOpenAiEmbedder({
      model: 'nomic-embed-text',
      apiKey: 'k',
      baseURL: `${baseUrl}/v1`,
      provider: 'openai-compatible',
      maxRetries: 0,
    });
    const vectors = await embedder.embed(texts);
    expect(recorded.map((request) => (request.body.input as string[]).length)).toEqual([96, 96, 8]);
    expect(recorded.every((request) => request.path === '/v1/embeddings' && request.body.model === 'nomic-embed-text')).toBe(true);
    expect(recorded.every((request) => request.body.encoding_format === 'float')).toBe(true);
    expect(vectors).toHaveLength(200);
    texts.forEach((text, index) => expect(vectors[index]).toEqual(fakeVector(text, 8)));
  });

  it('learns the size of an unknown model from the first response', async () => {
    const embedder = createOpenAiEmbedder({ model: 'custom', apiKey: 'k', baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    expect(embedder.dimensions).toBe(0);
    await embedder.embed(['a']);
    expect(embedder.dimensions).toBe(8);
  });

  it('replaces an empty text, which the API rejects, by a space', async () => {
    const embedder = createOpenAiEmbedder({ model: 'custom', apiKey: 'k', baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    await embedder.embed(['']);
    expect(recorded[0]?.body.input).toEqual([' ']);
  });

  it('reports a rejected key as a non-retryable auth error', async () => {
    behaviour = 'unauthorized';
    const embedder = createOpenAiEmbedder({ model: 'custom', apiKey: 'bad', baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const failure = await embedder.embed(['a']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LlmError);
    expect((failure as LlmError).info).toMatchObject({ kind: 'auth', status: 401, isRetryable: false, provider: 'openai' });
  });

  it('refuses a response with fewer vectors than inputs', async () => {
    behaviour = 'short';
    const embedder = createOpenAiEmbedder({ model: 'custom', apiKey: 'k', baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/expected 2 embeddings, got 1/);
  });
});

describe('the Bedrock Titan embedder', () => {
  it('invokes the model once per text, a bounded number at a time, and keeps input order', async () => {
    const embedder = createBedrockEmbedder({
      region: 'us-east-1',
      endpoint: baseUrl,
      concurrency: 3,
      // Bedrock's default handler is HTTP/2; the test server speaks HTTP/1.1.
      clientConfig: {
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        maxAttempts: 1,
        requestHandler: new NodeHttpHandler(),
      },
    });
    const texts = Array.from({ length: 10 }, (_, index) => `text ${'y'.repeat(index)}`);
    const vectors = await embedder.embed(texts);
    expect(recorded).toHaveLength(10);
    expect(recorded[0]?.path).toBe(`/model/${encodeURIComponent('amazon.titan-embed-text-v2:0')}/invoke`);
    expect(recorded[0]?.body).toMatchObject({ dimensions: 1024, normalize: true });
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(maxInFlight).toBeGreaterThan(1);
    texts.forEach((text, index) => expect(vectors[index]).toEqual(fakeVector(text, 1024)));
  });
});
