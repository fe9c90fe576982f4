/** OpenAI embeddings, and any server that speaks the same `/v1/embeddings` wire (Ollama, vLLM, LM Studio …). */
import OpenAI, { APIError } from 'openai';
import type { Embedder } from './port.js';
import { requestSignal } from '../common/request-signal.js';
import { embedderError, malformedEmbedding } from './errors.js';

/** OpenAI's documented cap is 2048 inputs; 96 keeps each request small enough for self-hosted servers too. */
export const OPENAI_EMBED_BATCH_SIZE = 96;

/** Output sizes of the models we know; other models report theirs in the first response. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export interface OpenAiEmbedderOptions {
  model: string;
  apiKey: string;
  /** e.g. `http://localhost:11434/v1` for Ollama. @defaultValue the OpenAI API */
  baseURL?: string | undefined;
  /** Used for ids and error messages: `openai` or `openai-compatible`. @defaultValue 'openai' */
  provider?: string;
  /** @defaultValue 96 */
  batchSize?: number;
  /** Retries the SDK makes on 408/409/429/5xx, honouring retry-after. @defaultValue 2 */
  maxRetries?: number;
  /** @defaultValue 60000 */
  timeoutMs?: number;
}

/**
 * `dimensions` is known up front for OpenAI's own models; for other models it is 0 until the
 * first response, so callers that create collections should size them from the vectors they got.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const provider = options.provider ?? 'openai';
  const batchSize = options.batchSize ?? OPENAI_EMBED_BATCH_SIZE;
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 60_000,
  });
  let dimensions = KNOWN_DIMENSIONS[options.model] ?? 0;

  async function embedBatch(batch: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    // the SDK never removes the listener it adds to a request's signal: it gets one that lives as long as this call
    const scoped = requestSignal(signal);
    try {
      response = await client.embeddings.create(
        // The API rejects empty strings; a single space embeds as "nothing" everywhere.
        // `float` explicitly: the SDK otherwise asks for base64, which several compatible servers lack.
        { model: options.model, input: batch.map((text) => (text.length === 0 ? ' ' : text)), encoding_format: 'float' },
        { signal: scoped.signal },
      );
    } catch (error) {
      throw embedderError(provider, error, { status: error instanceof APIError ? error.status : undefined, signal });
    } finally {
      scoped.release();
    }
    if (!Array.isArray(response.data) || response.data.length !== batch.length) {
      throw malformedEmbedding(
        provider,
        `expected ${batch.length} embeddings, got ${Array.isArray(response.data) ? response.data.length : 'none'}`,
      );
    }
    const vectors: number[][] = new Array<number[]>(batch.length);
    for (const item of response.data) {
      if (!Array.isArray(item.embedding) || !Number.isInteger(item.index) || item.index < 0 || item.index >= batch.length) {
        throw malformedEmbedding(provider, 'an item has no embedding array or an index out of range');
      }
      vectors[item.index] = item.embedding;
    }
    for (const vector of vectors) {
      if (vector === undefined) throw malformedEmbedding(provider, 'duplicate index in response');
      if (dimensions === 0) dimensions = vector.length;
      if (vector.length !== dimensions) throw malformedEmbedding(provider, `expected ${dimensions} dimensions, got ${vector.length}`);
    }
    return vectors;
  }

  return {
    id: `${provider}:${options.model}`,
    get dimensions() {
      return dimensions;
    },
    async embed(texts, embedOptions) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        vectors.push(...(await embedBatch(texts.slice(start, start + batchSize), embedOptions?.signal)));
      }
      return vectors;
    },
  };
}
