/** Builds the LlmProvider named by an `llm` spec (`anthropic:<model>`, `bedrock:<id>`, …) from config. */
import type { AssayConfig } from '../config/index.js';
import { ENV_BINDINGS } from '../config/index.js';
import { ConfigError } from '../errors/index.js';
import { parseModelSpec } from './catalog.js';
import type { LlmProvider } from './port.js';
import { createAnthropicProvider } from './providers/anthropic.js';
import { createBedrockProvider } from './providers/bedrock.js';
import { createOfflineProvider, type OfflineBrain } from './providers/offline.js';
import { createOpenAiProvider } from './providers/openai.js';

export const LLM_PROVIDERS = ['anthropic', 'openai', 'openai-compatible', 'bedrock', 'offline'] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];

export interface LlmSpec {
  provider: LlmProviderName;
  /** Model id as the provider spells it (Bedrock ids keep their colons: `…-v2:0`). */
  model: string;
  /** Only for `openai-compatible:<baseUrl>#<model>`. */
  baseUrl?: string | undefined;
}

/**
 * Local OpenAI-compatible servers (Ollama, LM Studio, vLLM without `--api-key`) ignore the key, but
 * the SDK refuses to start without one.
 */
const PLACEHOLDER_API_KEY = 'not-needed';

function isProviderName(name: string): name is LlmProviderName {
  return (LLM_PROVIDERS as readonly string[]).includes(name);
}

/**
 * `provider:model`, split on the first colon only (model ids contain colons). An OpenAI-compatible
 * server is `openai-compatible:<baseUrl>#<model>`, or `openai-compatible:<model>` with OPENAI_BASE_URL.
 */
export function parseLlmSpec(spec: string): LlmSpec {
  const { provider, model } = parseModelSpec(spec.trim());
  const expected = `expected one of ${LLM_PROVIDERS.map((name) => `${name}:…`).join(', ')}`;
  if (!provider) throw new ConfigError(`llm "${spec}" names no provider: ${expected}`);
  if (!isProviderName(provider)) throw new ConfigError(`llm "${spec}": unknown provider "${provider}", ${expected}`);
  if (!model) throw new ConfigError(`llm "${spec}" names no model after "${provider}:"`);
  if (provider !== 'openai-compatible') return { provider, model };
  const rest = spec.trim().slice(provider.length + 1);
  const hash = rest.lastIndexOf('#');
  if (hash < 0) return { provider, model };
  const baseUrl = rest.slice(0, hash);
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl)) {
    throw new ConfigError(`llm "${spec}": "${baseUrl}" is not an http(s) URL; write openai-compatible:http://host:port/v1#<model>`);
  }
  return { provider, model, baseUrl };
}

function envVarOf(key: keyof AssayConfig): string {
  return ENV_BINDINGS.find((binding) => binding.path.length === 1 && binding.path[0] === key)?.env ?? key;
}

function requireSetting(value: string | undefined, key: keyof AssayConfig, spec: string, what: string): string {
  if (value) return value;
  throw new ConfigError(`${envVarOf(key)} is not set: llm "${spec}" needs ${what} (set it, or choose another llm, e.g. offline:analyst)`);
}

export interface CreateLlmProviderOptions {
  /** The offline analyst; required for `offline:` specs. */
  offlineBrain?: OfflineBrain | undefined;
}

export function createLlmProvider(spec: string, config: AssayConfig, options: CreateLlmProviderOptions = {}): LlmProvider {
  const parsed = parseLlmSpec(spec);
  switch (parsed.provider) {
    case 'anthropic':
      return createAnthropicProvider({
        model: parsed.model,
        apiKey: requireSetting(config.anthropicApiKey, 'anthropicApiKey', spec, 'an Anthropic API key'),
        baseUrl: config.anthropicBaseUrl,
      });
    case 'openai':
      return createOpenAiProvider({
        model: parsed.model,
        apiKey: requireSetting(config.openaiApiKey, 'openaiApiKey', spec, 'an OpenAI API key'),
        baseUrl: config.openaiBaseUrl,
      });
    case 'openai-compatible':
      return createOpenAiProvider({
        provider: 'openai-compatible',
        model: parsed.model,
        apiKey: config.openaiApiKey || PLACEHOLDER_API_KEY,
        baseUrl:
          parsed.baseUrl ??
          requireSetting(config.openaiBaseUrl, 'openaiBaseUrl', spec, 'a server URL (or write openai-compatible:<baseUrl>#<model>)'),
      });
    case 'bedrock':
      return createBedrockProvider({ modelId: parsed.model, region: config.awsRegion, endpoint: config.bedrockEndpoint });
    case 'offline': {
      if (!options.offlineBrain) throw new ConfigError(`llm "${spec}": the offline analyst was not supplied to createLlmProvider`);
      return createOfflineProvider({ brain: options.offlineBrain, model: parsed.model });
    }
  }
}
