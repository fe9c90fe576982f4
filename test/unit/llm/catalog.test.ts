import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors/index.js';
import {
  DEFAULT_MODELS,
  MODEL_CATALOG,
  UNKNOWN_MODEL_LIMITS,
  bedrockClaudeModel,
  defaultModelSpec,
  lookupModel,
  parseModelSpec,
} from '../../../src/llm/catalog.js';

const require = createRequire(import.meta.url);

/** Root folder of an installed package: resolve its entry the way Node does, then walk up to its package.json. */
function packageRoot(name: string): string {
  let folder = dirname(require.resolve(name));
  while (!existsSync(join(folder, 'package.json')) || JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).name !== name) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error(`package.json of ${name} not found`);
    folder = parent;
  }
  return folder;
}

/** The string literals of an exported union type in an SDK's .d.ts: the SDK's own model list. */
function unionMembers(file: string, typeName: string): Set<string> {
  const source = readFileSync(file, 'utf8');
  const match = new RegExp(`export type ${typeName} = ([^;]+);`).exec(source);
  if (!match) throw new Error(`type ${typeName} not found in ${file}: the SDK layout changed`);
  return new Set([...match[1]!.matchAll(/'([^']+)'/g)].map((literal) => literal[1]!));
}

const anthropicRoot = packageRoot('@anthropic-ai/sdk');
const anthropicModels = unionMembers(join(anthropicRoot, 'resources/messages/messages.d.ts'), 'Model');
/**
 * The SDK's deprecations, model → end-of-life date: the list `messages.create` warns on (messages.js) and the
 * SDK's shared data list (internal/data/deprecated-models.js), which also names models already retired.
 */
const anthropicEndOfLife = (() => {
  const files = ['resources/messages/messages.js', 'internal/data/deprecated-models.js'];
  const dates = new Map<string, string>();
  for (const file of files) {
    const source = readFileSync(join(anthropicRoot, file), 'utf8');
    const block = /DEPRECATED_MODELS = \{([^}]*)\}/.exec(source);
    if (!block) throw new Error(`DEPRECATED_MODELS not found in @anthropic-ai/sdk/${file}: the SDK layout changed`);
    for (const entry of block[1]!.matchAll(/'([^']+)':\s*'([^']+)'/g)) dates.set(entry[1]!, entry[2]!);
  }
  return dates;
})();
const anthropicDeprecated = new Set(anthropicEndOfLife.keys());
const openaiModels = unionMembers(join(packageRoot('openai'), 'resources/shared.d.ts'), 'ChatModel');
/** The openai SDK carries no deprecation list; gpt-tokenizer's model specs do (`deprecated: true`). */
const openaiDeprecated = await (async () => {
  const specs = (await import('gpt-tokenizer/models')) as Record<string, { name?: string; deprecated?: boolean }>;
  return new Set(Object.entries(specs).flatMap(([alias, spec]) => (spec?.deprecated ? [alias, spec.name ?? alias] : [])));
})();

describe('when choosing default models', () => {
  it('picks Anthropic defaults from the SDK model list, none of them deprecated', () => {
    for (const model of Object.values(DEFAULT_MODELS.anthropic)) {
      expect(anthropicModels.has(model), `${model} in @anthropic-ai/sdk Model`).toBe(true);
      expect(anthropicDeprecated.has(model), `${model} deprecated by the SDK`).toBe(false);
    }
  });

  it('picks OpenAI defaults from the SDK ChatModel list, none of them deprecated', () => {
    for (const model of Object.values(DEFAULT_MODELS.openai)) {
      expect(openaiModels.has(model), `${model} in openai ChatModel`).toBe(true);
      expect(openaiDeprecated.has(model), `${model} deprecated`).toBe(false);
    }
  });

  it('picks Bedrock defaults that are Claude models of the Anthropic SDK list, none deprecated', () => {
    for (const model of Object.values(DEFAULT_MODELS.bedrock)) {
      const claude = bedrockClaudeModel(model);
      expect(claude, model).toBeDefined();
      expect(anthropicModels.has(claude!), `${claude} in @anthropic-ai/sdk Model`).toBe(true);
      expect(anthropicDeprecated.has(claude!)).toBe(false);
    }
  });

  it('has a catalog entry of the right tier for every default', () => {
    for (const [provider, tiers] of Object.entries(DEFAULT_MODELS)) {
      for (const [tier, model] of Object.entries(tiers)) {
        const { entry, known } = lookupModel(`${provider}:${model}`);
        expect(known, `${provider}:${model}`).toBe(true);
        expect(entry.tier).toBe(tier);
        expect(entry.deprecated ?? false).toBe(false);
      }
    }
    expect(defaultModelSpec('anthropic', 'fast')).toBe(`anthropic:${DEFAULT_MODELS.anthropic.fast}`);
  });
});

describe('when the catalog lists SDK models', () => {
  it('lists only Anthropic and OpenAI ids the installed SDKs know', () => {
    for (const entry of MODEL_CATALOG) {
      if (entry.provider === 'anthropic') expect(anthropicModels.has(entry.model), entry.model).toBe(true);
      if (entry.provider === 'openai') expect(openaiModels.has(entry.model), entry.model).toBe(true);
    }
  });

  it('marks exactly the Anthropic models the SDK deprecates, with the end-of-life date the SDK gives', () => {
    for (const entry of MODEL_CATALOG.filter((candidate) => candidate.provider === 'anthropic')) {
      expect(entry.deprecated ?? false, entry.model).toBe(anthropicDeprecated.has(entry.model));
      expect(entry.endOfLife, entry.model).toBe(anthropicEndOfLife.get(entry.model));
    }
  });

  it('says OpenAI models have tools and structured output exactly where gpt-tokenizer lists function calling and structured outputs', async () => {
    const specs = (await import('gpt-tokenizer/models')) as Record<string, { supported_features?: string[] } | undefined>;
    for (const entry of MODEL_CATALOG.filter((candidate) => candidate.provider === 'openai')) {
      const features = specs[entry.model]?.supported_features;
      expect(features, `${entry.model} in gpt-tokenizer`).toBeDefined();
      expect(entry.tools, entry.model).toBe(features!.includes('function_calling'));
      expect(entry.structuredOutput, entry.model).toBe(features!.includes('structured_outputs'));
    }
  });

  it('prices cache reads below the input price, and cache writes at it (OpenAI, Nova) or at 1.25× (Claude)', () => {
    for (const entry of MODEL_CATALOG.filter((candidate) => candidate.provider !== 'offline')) {
      expect(entry.cacheReadPricePerMTok, entry.model).toBeLessThan(entry.inputPricePerMTok);
      const writeMultiplier = entry.family === 'anthropic' ? 1.25 : 1;
      expect(entry.cacheWritePricePerMTok, entry.model).toBeCloseTo(entry.inputPricePerMTok * writeMultiplier, 10);
    }
  });

  it('keeps every window larger than the output limit and prices non-negative', () => {
    for (const entry of MODEL_CATALOG) {
      expect(entry.contextWindow).toBeGreaterThan(entry.maxOutputTokens);
      expect(entry.inputPricePerMTok).toBeGreaterThanOrEqual(0);
      expect(entry.outputPricePerMTok).toBeGreaterThanOrEqual(entry.inputPricePerMTok);
    }
  });
});

describe('when looking a model up', () => {
  it('resolves dated snapshots to their undated entry, keeping the requested id', () => {
    const { entry, known } = lookupModel('anthropic:claude-haiku-4-5-20251001');
    expect(known).toBe(true);
    expect(entry.model).toBe('claude-haiku-4-5-20251001');
    expect(entry.inputPricePerMTok).toBe(1);
    expect(lookupModel('openai:gpt-5.4-mini-2026-03-17').entry.maxInputTokens).toBe(272_000);
  });

  it('resolves Bedrock Claude ids (with an inference-profile prefix) to the Anthropic limits and prices', () => {
    const { entry, known } = lookupModel('bedrock:eu.anthropic.claude-opus-4-6-v1');
    expect(known).toBe(true);
    expect(entry.provider).toBe('bedrock');
    expect(entry.family).toBe('anthropic');
    expect(entry.outputPricePerMTok).toBe(25);
    expect(lookupModel('bedrock:amazon.nova-lite-v1:0').entry.tier).toBe('fast');
  });

  it('gives unknown models conservative limits and says it does not know them', () => {
    const { entry, known } = lookupModel('openai:gpt-9-imaginary');
    expect(known).toBe(false);
    expect(entry.contextWindow).toBe(UNKNOWN_MODEL_LIMITS.contextWindow);
    expect(entry.maxOutputTokens).toBe(UNKNOWN_MODEL_LIMITS.maxOutputTokens);
    expect(entry.tier).toBe('strong');
    expect(entry.outputPricePerMTok).toBeGreaterThanOrEqual(30);
  });

  it('prices self-hosted OpenAI-compatible models at zero and reads the model after #', () => {
    expect(parseModelSpec('openai-compatible:http://localhost:11434/v1#qwen2.5')).toEqual({
      provider: 'openai-compatible',
      model: 'qwen2.5',
    });
    const { entry, known } = lookupModel('openai-compatible:http://localhost:11434/v1#qwen2.5');
    expect(known).toBe(false);
    expect(entry.inputPricePerMTok).toBe(0);
  });

  it('applies config overrides, and an override with a window makes the model known', () => {
    const { entry, known } = lookupModel('openai-compatible:http://localhost:11434/v1#qwen2.5', {
      'openai-compatible:qwen2.5': { contextWindow: 128_000, maxOutputTokens: 8_192 },
    });
    expect(known).toBe(true);
    expect(entry.contextWindow).toBe(128_000);
    const priced = lookupModel('anthropic:claude-sonnet-4-6', { 'anthropic:claude-sonnet-4-6': { inputPricePerMTok: 2 } });
    expect(priced.entry.inputPricePerMTok).toBe(2);
    expect(priced.entry.contextWindow).toBe(200_000);
    expect(lookupModel('anthropic:claude-sonnet-4-6').entry.inputPricePerMTok).toBe(3);
  });

  it('rejects a malformed override with a ConfigError naming the key', () => {
    expect(() => lookupModel('anthropic:claude-sonnet-4-6', { 'anthropic:claude-sonnet-4-6': { contextWindow: -5 } })).toThrow(ConfigError);
    expect(() => lookupModel('anthropic:claude-sonnet-4-6', { 'anthropic:claude-sonnet-4-6': { contextWindw: 5 } })).toThrow(
      /claude-sonnet-4-6/,
    );
  });
});
