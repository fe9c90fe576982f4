/** Amazon Titan text embeddings on Bedrock (one text per InvokeModel call, a few calls in flight). */
import { BedrockRuntimeClient, InvokeModelCommand, type BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import type { Embedder } from './port.js';
import { ConfigError } from '../errors/index.js';
import { embedderError, malformedEmbedding } from './errors.js';
import { mapWithConcurrency } from '../concurrency/index.js';

export const BEDROCK_TITAN_V2_MODEL = 'amazon.titan-embed-text-v2:0';
/** Titan v2's largest output size; it also accepts 256 and 512. */
const TITAN_V2_DIMENSIONS = 1024;
const TITAN_V1_DIMENSIONS = 1536;
/** Titan takes one text per call; a few calls in flight stay well inside default account quotas. */
export const BEDROCK_EMBED_CONCURRENCY = 4;

export interface BedrockEmbedderOptions {
  /** @defaultValue 'amazon.titan-embed-text-v2:0' */
  model?: string;
  region: string;
  endpoint?: string | undefined;
  /** @defaultValue 4 */
  concurrency?: number;
  /** Passed through for tests and custom credential chains; by default the SDK's provider chain. */
  clientConfig?: Omit<BedrockRuntimeClientConfig, 'region' | 'endpoint'>;
}

export function createBedrockEmbedder(options: BedrockEmbedderOptions): Embedder {
  const model = options.model ?? BEDROCK_TITAN_V2_MODEL;
  const isV2 = model.startsWith('amazon.titan-embed-text-v2');
  const isV1 = model.startsWith('amazon.titan-embed-text-v1');
  if (!isV1 && !isV2) {
    throw new ConfigError(
      `embedder "bedrock:${model}": only Amazon Titan text embedding models are supported (e.g. bedrock:${BEDROCK_TITAN_V2_MODEL})`,
    );
  }
  const dimensions = isV2 ? TITAN_V2_DIMENSIONS : TITAN_V1_DIMENSIONS;
  const client = new BedrockRuntimeClient({ ...options.clientConfig, region: options.region, endpoint: options.endpoint });
  const provider = 'bedrock';

  async function embedOne(text: string, signal: AbortSignal | undefined): Promise<number[]> {
    // v1 takes the text only; v2 takes a size and normalises server-side.
    const body = isV2
      ? { inputText: text.length === 0 ? ' ' : text, dimensions, normalize: true }
      : { inputText: text.length === 0 ? ' ' : text };
    let raw: Uint8Array | undefined;
    try {
      const response = await client.send(
        new InvokeModelCommand({
          modelId: model,
          contentType: 'application/json',
          accept: 'application/json',
          body: new TextEncoder().encode(JSON.stringify(body)),
        }),
        { abortSignal: signal },
      );
      raw = response.body;
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      throw embedderError(provider, error, { status, signal });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      throw malformedEmbedding(provider, 'body is not JSON');
    }
    const embedding = (parsed as { embedding?: unknown }).embedding;
    if (!Array.isArray(embedding) || embedding.length !== dimensions || !embedding.every((value) => typeof value === 'number')) {
      throw malformedEmbedding(provider, `expected an "embedding" array of ${dimensions} numbers`);
    }
    return embedding as number[];
  }

  return {
    id: `bedrock:${model}`,
    dimensions,
    embed(texts, embedOptions) {
      return mapWithConcurrency(
        texts,
        options.concurrency ?? BEDROCK_EMBED_CONCURRENCY,
        (text) => embedOne(text, embedOptions?.signal),
        embedOptions?.signal,
      );
    },
  };
}
