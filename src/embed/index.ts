/** Embedders: the port, the adapters, and `createEmbedder(spec)`, the one place a spec string becomes an adapter. */
import type { AssayConfig } from '../config/index.js';
import { ConfigError } from '../errors/index.js';
import type { Embedder } from './port.js';
import { createLocalEmbedder } from './local.js';
import { createOpenAiEmbedder } from './openai.js';
import { createBedrockEmbedder } from './bedrock.js';

export type { Embedder } from './port.js';
export { createLocalEmbedder, splitWords, LOCAL_EMBEDDER_DEFAULT_DIMENSIONS } from './local.js';
export { createOpenAiEmbedder, OPENAI_EMBED_BATCH_SIZE } from './openai.js';
export { createBedrockEmbedder, BEDROCK_TITAN_V2_MODEL } from './bedrock.js';

export type EmbedderConfig = Pick<AssayConfig, 'openaiApiKey' | 'openaiBaseUrl' | 'awsRegion' | 'bedrockEndpoint'>;

const SPEC_HELP = 'expected local, local:<dims>, openai:<model>, openai-compatible:<baseUrl>#<model> or bedrock:<model>';

/** Self-hosted OpenAI-compatible servers usually ignore the key, but the SDK insists on one. */
const PLACEHOLDER_API_KEY = 'not-needed';

export function createEmbedder(spec: string, config: EmbedderConfig): Embedder {
  const separator = spec.indexOf(':');
  const kind = separator === -1 ? spec : spec.slice(0, separator);
  const rest = separator === -1 ? '' : spec.slice(separator + 1);

  switch (kind) {
    case 'local': {
      if (separator === -1) return createLocalEmbedder();
      if (!/^\d+$/.test(rest)) throw new ConfigError(`embedder "${spec}": local dimensions must be a whole number (e.g. local:384)`);
      try {
        return createLocalEmbedder({ dimensions: Number(rest) });
      } catch (error) {
        throw new ConfigError(`embedder "${spec}": ${(error as Error).message}`, { cause: error });
      }
    }
    case 'openai': {
      if (rest.length === 0) throw new ConfigError(`embedder "${spec}": ${SPEC_HELP}`);
      if (!config.openaiApiKey) throw new ConfigError(`embedder "${spec}" needs OPENAI_API_KEY`);
      return createOpenAiEmbedder({ model: rest, apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
    }
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      const baseURL = hash === -1 ? '' : rest.slice(0, hash);
      const model = hash === -1 ? '' : rest.slice(hash + 1);
      if (!/^https?:\/\/\S+$/.test(baseURL) || model.length === 0) {
        throw new ConfigError(
          `embedder "${spec}": expected openai-compatible:<baseUrl>#<model>, e.g. openai-compatible:http://localhost:11434/v1#nomic-embed-text`,
        );
      }
      return createOpenAiEmbedder({ model, baseURL, apiKey: config.openaiApiKey ?? PLACEHOLDER_API_KEY, provider: 'openai-compatible' });
    }
    case 'bedrock': {
      if (rest.length === 0) throw new ConfigError(`embedder "${spec}": ${SPEC_HELP}`);
      return createBedrockEmbedder({ model: rest, region: config.awsRegion, endpoint: config.bedrockEndpoint });
    }
    default:
      throw new ConfigError(`embedder "${spec}": ${SPEC_HELP}`);
  }
}
