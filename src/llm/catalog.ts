/**
 * The model catalog: context window, output limit, list prices (input, output, cache read and cache
 * write), tier, tokenizer family, what the model can do natively (tools, structured output) and how its
 * provider caches prompts. The budgeted prompt builder reads the window from here, usage accounting the
 * prices, the LLM gateway the capabilities.
 *
 * Model ids come from the installed SDKs' own model lists (`@anthropic-ai/sdk` `Model`,
 * `openai` `ChatModel`); windows and OpenAI capabilities from gpt-tokenizer's model specs; deprecations
 * from the Anthropic SDK's `DEPRECATED_MODELS` and gpt-tokenizer's `deprecated` flags. Prices are
 * public list prices in USD per million tokens as best known on 2026-11-26; cache prices follow each
 * provider's published multipliers (docs/llm.md). Entries marked "unverified" extrapolate from the
 * previous model of the same line — override them with `config.models` when the price list says otherwise.
 */
import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import type { LlmProvider } from './port.js';
import type { TokenFamily } from './tokens.js';

export type ModelTier = 'fast' | 'strong';

/**
 * How a provider caches prompts: at breakpoints the request marks (Anthropic `cache_control`, Bedrock
 * `cachePoint`), automatically by longest shared prefix (OpenAI), or not at all.
 */
export type PromptCacheKind = 'breakpoints' | 'automatic' | 'none';

export interface ModelCatalogEntry {
  provider: string;
  model: string;
  /** Input plus output tokens the model accepts in one request. */
  contextWindow: number;
  /** Where the provider caps the prompt below `contextWindow - maxOutput` (GPT-5: 272k of 400k). */
  maxInputTokens?: number;
  maxOutputTokens: number;
  inputPricePerMTok: number;
  outputPricePerMTok: number;
  /** Input tokens served from the prompt cache. */
  cacheReadPricePerMTok: number;
  /** Input tokens written to the prompt cache: above the input price where the provider bills writes (Anthropic, Claude on Bedrock). */
  cacheWritePricePerMTok: number;
  promptCache: PromptCacheKind;
  /** The shortest prefix the provider caches; a breakpoint before it caches nothing. */
  minCacheableTokens: number;
  /** Native tool calls (function calling). */
  tools: boolean;
  /** Schema-constrained output (OpenAI `response_format`, Anthropic `output_config.format`, Bedrock `outputConfig.textFormat`). */
  structuredOutput: boolean;
  tier: ModelTier;
  family: TokenFamily;
  /** The SDK (or its vendor) marks the model for retirement: never a default, and naming it prints one warning. */
  deprecated?: boolean;
  /** The retirement date the vendor announced, for that warning. */
  endOfLife?: string;
}

export interface ModelLookup {
  entry: ModelCatalogEntry;
  /** False when the model is not in the catalog and no override gave its window: the caller logs a warning. */
  known: boolean;
}

/** A model and its catalog entry (window, output cap, prices, token family): what a phase calls a model through. */
export interface LlmBinding {
  provider: LlmProvider;
  entry: ModelCatalogEntry;
}

/** Per-model overrides from `config.models`, keyed `provider:model`. */
export type ModelOverrides = Record<string, Record<string, unknown>>;

/** What a row must say; cache prices, cache kind, minimum and capabilities come from its provider's profile unless the row says otherwise. */
type CatalogRow = Pick<
  ModelCatalogEntry,
  'model' | 'contextWindow' | 'maxOutputTokens' | 'inputPricePerMTok' | 'outputPricePerMTok' | 'tier'
> &
  Partial<Omit<ModelCatalogEntry, 'provider' | 'family'>>;

/** Anthropic's published multipliers on the input price: 5-minute cache writes 1.25×, cache reads 0.1×. */
const ANTHROPIC_CACHE_WRITE_MULTIPLIER = 1.25;
const ANTHROPIC_CACHE_READ_MULTIPLIER = 0.1;
/** Claude's documented minimum cacheable prompt for most current models; some lines need 4,096. */
const ANTHROPIC_MIN_CACHEABLE = 1_024;
const ANTHROPIC_MIN_CACHEABLE_LARGE = 4_096;
/** OpenAI caches prompts of 1,024 tokens and more, in 128-token steps, and bills no write premium. */
export const OPENAI_MIN_CACHEABLE = 1_024;
/** GPT-5 family cached input: 10 % of the input price (older lines list their own cached price per row). */
const OPENAI_CACHE_READ_MULTIPLIER = 0.1;
/** Amazon Nova on Bedrock: cached reads at 25 % of the input price, writes at the input price. */
const NOVA_CACHE_READ_MULTIPLIER = 0.25;

/** Claude models on the first-party API. Windows are the standard 200k (1M needs a beta header Assay does not send). */
const ANTHROPIC_MODELS: CatalogRow[] = [
  // Unverified: Mythos list price assumed at the Mythos Preview rate; Fable is a line this catalog has no price for, so it is priced like Mythos to keep estimates on the high side.
  // Minimum cacheable prompt: 4,096 tokens where the docs say so (Opus 4.5–4.7, Haiku 4.5, Mythos Preview) and, unverified, for the
  // 5-series lines descended from them; 1,024 for Sonnet and Opus 4.8 (docs/llm.md). A larger minimum only makes the estimate cache less.
  {
    model: 'claude-mythos-5-2',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 25,
    outputPricePerMTok: 125,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-mythos-5-1',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 25,
    outputPricePerMTok: 125,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-mythos-5',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 25,
    outputPricePerMTok: 125,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-mythos-preview',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 25,
    outputPricePerMTok: 125,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
    deprecated: true,
    endOfLife: 'June 30th, 2026',
  },
  {
    model: 'claude-fable-5-2',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 25,
    outputPricePerMTok: 125,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-fable-5-1',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 25,
    outputPricePerMTok: 125,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-fable-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 25,
    outputPricePerMTok: 125,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  // Unverified for the 5 series: Opus, Sonnet and Haiku list prices assumed unchanged from 4.6 / 4.5.
  {
    model: 'claude-opus-5-5',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 5,
    outputPricePerMTok: 25,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-opus-5',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 5,
    outputPricePerMTok: 25,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-opus-4-8',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 5,
    outputPricePerMTok: 25,
    tier: 'strong',
  },
  {
    model: 'claude-opus-4-7',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 5,
    outputPricePerMTok: 25,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-opus-4-6',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 5,
    outputPricePerMTok: 25,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-opus-4-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 5,
    outputPricePerMTok: 25,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'strong',
  },
  {
    model: 'claude-sonnet-5-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 3,
    outputPricePerMTok: 15,
    tier: 'strong',
  },
  {
    model: 'claude-sonnet-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 3,
    outputPricePerMTok: 15,
    tier: 'strong',
  },
  {
    model: 'claude-sonnet-4-6',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 3,
    outputPricePerMTok: 15,
    tier: 'strong',
  },
  // The SDK warns: end-of-life November 30th, 2026.
  {
    model: 'claude-sonnet-4-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 3,
    outputPricePerMTok: 15,
    tier: 'strong',
    deprecated: true,
    endOfLife: 'November 30th, 2026',
  },
  {
    model: 'claude-haiku-5-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 1,
    outputPricePerMTok: 5,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'fast',
  },
  {
    model: 'claude-haiku-4-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    inputPricePerMTok: 1,
    outputPricePerMTok: 5,
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE,
    tier: 'fast',
  },
];

/** OpenAI chat models. Windows and input caps as in gpt-tokenizer's model specs; `deprecated` as that package marks them. */
const OPENAI_MODELS: CatalogRow[] = [
  // Unverified prices: the 5.6 family (sol > terra > luna) is priced here like 5.5, 5.4 and 5.4-mini.
  {
    model: 'gpt-5.6-sol',
    contextWindow: 1_050_000,
    maxInputTokens: 922_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 5,
    outputPricePerMTok: 30,
    tier: 'strong',
  },
  {
    model: 'gpt-5.6-terra',
    contextWindow: 1_050_000,
    maxInputTokens: 922_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 2.5,
    outputPricePerMTok: 15,
    tier: 'strong',
  },
  {
    model: 'gpt-5.6-luna',
    contextWindow: 1_050_000,
    maxInputTokens: 922_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 0.75,
    outputPricePerMTok: 4.5,
    tier: 'fast',
  },
  // gpt-5.4 bills prompts above 272k input tokens at a higher rate; Assay's budgets stay far below that.
  {
    model: 'gpt-5.4',
    contextWindow: 1_050_000,
    maxInputTokens: 922_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 2.5,
    outputPricePerMTok: 15,
    tier: 'strong',
  },
  {
    model: 'gpt-5.4-mini',
    contextWindow: 400_000,
    maxInputTokens: 272_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 0.75,
    outputPricePerMTok: 4.5,
    tier: 'fast',
  },
  {
    model: 'gpt-5.4-nano',
    contextWindow: 400_000,
    maxInputTokens: 272_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 0.2,
    outputPricePerMTok: 1.25,
    tier: 'fast',
  },
  {
    model: 'gpt-5.2',
    contextWindow: 400_000,
    maxInputTokens: 272_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 1.75,
    outputPricePerMTok: 14,
    tier: 'strong',
  },
  {
    model: 'gpt-5.1',
    contextWindow: 400_000,
    maxInputTokens: 272_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 1.25,
    outputPricePerMTok: 10,
    tier: 'strong',
  },
  {
    model: 'gpt-5',
    contextWindow: 400_000,
    maxInputTokens: 272_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 1.25,
    outputPricePerMTok: 10,
    tier: 'strong',
    deprecated: true,
  },
  {
    model: 'gpt-5-mini',
    contextWindow: 400_000,
    maxInputTokens: 272_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 0.25,
    outputPricePerMTok: 2,
    tier: 'fast',
    deprecated: true,
  },
  {
    model: 'gpt-5-nano',
    contextWindow: 400_000,
    maxInputTokens: 272_000,
    maxOutputTokens: 128_000,
    inputPricePerMTok: 0.05,
    outputPricePerMTok: 0.4,
    tier: 'fast',
    deprecated: true,
  },
  {
    model: 'gpt-4.1',
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    inputPricePerMTok: 2,
    outputPricePerMTok: 8,
    cacheReadPricePerMTok: 0.5,
    tier: 'strong',
  },
  {
    model: 'gpt-4.1-mini',
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    inputPricePerMTok: 0.4,
    outputPricePerMTok: 1.6,
    cacheReadPricePerMTok: 0.1,
    tier: 'fast',
  },
  {
    model: 'gpt-4.1-nano',
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    inputPricePerMTok: 0.1,
    outputPricePerMTok: 0.4,
    cacheReadPricePerMTok: 0.025,
    tier: 'fast',
  },
  {
    model: 'gpt-4o',
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    inputPricePerMTok: 2.5,
    outputPricePerMTok: 10,
    cacheReadPricePerMTok: 1.25,
    tier: 'strong',
  },
  {
    model: 'gpt-4o-mini',
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    inputPricePerMTok: 0.15,
    outputPricePerMTok: 0.6,
    cacheReadPricePerMTok: 0.075,
    tier: 'fast',
  },
  {
    model: 'o4-mini',
    contextWindow: 200_000,
    maxOutputTokens: 100_000,
    inputPricePerMTok: 1.1,
    outputPricePerMTok: 4.4,
    cacheReadPricePerMTok: 0.275,
    tier: 'strong',
  },
  {
    model: 'o3',
    contextWindow: 200_000,
    maxOutputTokens: 100_000,
    inputPricePerMTok: 2,
    outputPricePerMTok: 8,
    cacheReadPricePerMTok: 0.5,
    tier: 'strong',
    deprecated: true,
  },
];

/** Bedrock's own models. Claude on Bedrock resolves to the Anthropic entry (same limits and list prices). */
const BEDROCK_MODELS: CatalogRow[] = [
  {
    model: 'amazon.nova-pro-v1:0',
    contextWindow: 300_000,
    maxOutputTokens: 10_000,
    inputPricePerMTok: 0.8,
    outputPricePerMTok: 3.2,
    tier: 'strong',
  },
  {
    model: 'amazon.nova-lite-v1:0',
    contextWindow: 300_000,
    maxOutputTokens: 10_000,
    inputPricePerMTok: 0.06,
    outputPricePerMTok: 0.24,
    tier: 'fast',
  },
  {
    model: 'amazon.nova-micro-v1:0',
    contextWindow: 128_000,
    maxOutputTokens: 10_000,
    inputPricePerMTok: 0.035,
    outputPricePerMTok: 0.14,
    tier: 'fast',
  },
];

/** The offline analyst runs locally: free, and budgeted like a mid-sized model so the invariant is exercised. */
const OFFLINE_MODELS: CatalogRow[] = [
  { model: 'analyst', contextWindow: 200_000, maxOutputTokens: 8_192, inputPricePerMTok: 0, outputPricePerMTok: 0, tier: 'strong' },
];

/** What a provider's rows share unless a row says otherwise: tokenizer family, cache pricing (multipliers on the input price) and capabilities. */
interface ProviderProfile
  extends Pick<ModelCatalogEntry, 'provider' | 'family' | 'promptCache' | 'minCacheableTokens' | 'tools' | 'structuredOutput'> {
  cacheReadMultiplier: number;
  cacheWriteMultiplier: number;
}

const PROVIDER_PROFILES = {
  anthropic: {
    provider: 'anthropic',
    family: 'anthropic',
    cacheReadMultiplier: ANTHROPIC_CACHE_READ_MULTIPLIER,
    cacheWriteMultiplier: ANTHROPIC_CACHE_WRITE_MULTIPLIER,
    promptCache: 'breakpoints',
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE,
    tools: true,
    structuredOutput: true,
  },
  openai: {
    provider: 'openai',
    family: 'openai',
    cacheReadMultiplier: OPENAI_CACHE_READ_MULTIPLIER,
    // no write premium
    cacheWriteMultiplier: 1,
    promptCache: 'automatic',
    minCacheableTokens: OPENAI_MIN_CACHEABLE,
    tools: true,
    structuredOutput: true,
  },
  bedrock: {
    provider: 'bedrock',
    family: 'default',
    cacheReadMultiplier: NOVA_CACHE_READ_MULTIPLIER,
    cacheWriteMultiplier: 1,
    promptCache: 'breakpoints',
    minCacheableTokens: ANTHROPIC_MIN_CACHEABLE,
    tools: true,
    // Nova's structured output is not documented for Converse: a forced tool call carries the schema instead
    structuredOutput: false,
  },
  offline: {
    provider: 'offline',
    family: 'default',
    cacheReadMultiplier: 0,
    cacheWriteMultiplier: 0,
    promptCache: 'none',
    minCacheableTokens: 0,
    // the offline provider turns the analyst's JSON answers into tool calls and structured output (native-answer.ts)
    tools: true,
    structuredOutput: true,
  },
} as const satisfies Record<string, ProviderProfile>;

/** A row as a full entry: its provider's profile, unless the row says otherwise. */
function catalogEntry(profile: ProviderProfile, row: CatalogRow): ModelCatalogEntry {
  const { cacheReadMultiplier, cacheWriteMultiplier, ...shared } = profile;
  return {
    ...shared,
    cacheReadPricePerMTok: row.inputPricePerMTok * cacheReadMultiplier,
    cacheWritePricePerMTok: row.inputPricePerMTok * cacheWriteMultiplier,
    ...row,
  };
}

export const MODEL_CATALOG: readonly ModelCatalogEntry[] = [
  ...ANTHROPIC_MODELS.map((row) => catalogEntry(PROVIDER_PROFILES.anthropic, row)),
  ...OPENAI_MODELS.map((row) => catalogEntry(PROVIDER_PROFILES.openai, row)),
  ...BEDROCK_MODELS.map((row) => catalogEntry(PROVIDER_PROFILES.bedrock, row)),
  ...OFFLINE_MODELS.map((row) => catalogEntry(PROVIDER_PROFILES.offline, row)),
];

/**
 * Default models per provider, taken from the installed SDKs' model lists and never one the
 * SDK marks deprecated (test/unit/llm/catalog.test.ts checks both against node_modules).
 * Strong: the mid-priced workhorse of the newest line (exploration, analysis). Fast: the
 * cheap tier for compaction, table blurbs and SQL fixes.
 */
export const DEFAULT_MODELS = {
  anthropic: { strong: 'claude-sonnet-5-5', fast: 'claude-haiku-5-5' },
  openai: { strong: 'gpt-5.4', fast: 'gpt-5.4-mini' },
  // US cross-region inference profiles: on-demand Claude on Bedrock requires a profile; use eu./apac. via config elsewhere.
  bedrock: { strong: 'us.anthropic.claude-sonnet-4-6', fast: 'us.anthropic.claude-haiku-4-5-20251001-v1:0' },
} as const satisfies Record<string, Record<ModelTier, string>>;

/** Used for models the catalog does not know: small enough to fit almost anything that speaks the API. */
export const UNKNOWN_MODEL_LIMITS = { contextWindow: 32_000, maxOutputTokens: 4_096 } as const;

/** Self-hosted providers cost nothing per token; unknown models of paid providers are priced at their most expensive entry. */
const FREE_PROVIDERS = new Set(['offline', 'openai-compatible', 'simulator']);

const overrideSchema = z
  .object({
    contextWindow: z.number().int().positive(),
    maxInputTokens: z.number().int().positive(),
    maxOutputTokens: z.number().int().positive(),
    inputPricePerMTok: z.number().nonnegative(),
    outputPricePerMTok: z.number().nonnegative(),
    tier: z.enum(['fast', 'strong']),
    family: z.enum(['anthropic', 'openai', 'default']),
    cacheReadPricePerMTok: z.number().nonnegative(),
    cacheWritePricePerMTok: z.number().nonnegative(),
    promptCache: z.enum(['breakpoints', 'automatic', 'none']),
    minCacheableTokens: z.number().int().nonnegative(),
    tools: z.boolean(),
    structuredOutput: z.boolean(),
    deprecated: z.boolean(),
    endOfLife: z.string().min(1),
  })
  .partial()
  .strict();

export interface ModelSpec {
  provider: string;
  model: string;
}

/**
 * `provider:model` → parts. `openai-compatible:http://host/v1#qwen2.5` names its model after
 * `#`; a bare model id (no provider) is looked up as given.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  if (colon <= 0) return { provider: '', model: spec };
  const provider = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  const hash = rest.lastIndexOf('#');
  return { provider, model: provider === 'openai-compatible' && hash >= 0 ? rest.slice(hash + 1) : rest };
}

/** Bedrock inference-profile prefixes (`us.`, `eu.`, `global.` …) route a request; they do not change the model. */
const BEDROCK_PROFILE_PREFIX = /^(?:us|eu|apac|global|jp|au|ca|us-gov)\./;
const BEDROCK_CLAUDE = /^anthropic\.(claude-[a-z0-9-]+?)(?:-v\d+(?::\d+)?)?$/;
/** Snapshot suffixes: `-20251001` (Anthropic), `-2026-03-17` (OpenAI). */
const SNAPSHOT_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The Anthropic model id behind a Bedrock Claude id, e.g. `us.anthropic.claude-haiku-4-5-20251001-v1:0` → `claude-haiku-4-5-20251001`. */
export function bedrockClaudeModel(bedrockModel: string): string | undefined {
  return BEDROCK_CLAUDE.exec(bedrockModel.replace(BEDROCK_PROFILE_PREFIX, ''))?.[1];
}

function findEntry(provider: string, model: string): ModelCatalogEntry | undefined {
  const candidates = provider === '' ? MODEL_CATALOG : MODEL_CATALOG.filter((entry) => entry.provider === provider);
  const undated = model.replace(SNAPSHOT_SUFFIX, '');
  const exact = candidates.find((entry) => entry.model === model) ?? candidates.find((entry) => entry.model === undated);
  if (exact) return exact;
  if (provider === 'bedrock') {
    const bare = model.replace(BEDROCK_PROFILE_PREFIX, '');
    const bedrockNative = candidates.find((entry) => entry.model === bare);
    if (bedrockNative) return bedrockNative;
    const claude = bedrockClaudeModel(model);
    return claude === undefined ? undefined : findEntry('anthropic', claude);
  }
  return undefined;
}

/** How an unknown model of each provider caches: the provider's mechanism, with its documented minimum. */
const UNKNOWN_MODEL_CACHE: Record<string, Pick<ModelCatalogEntry, 'promptCache' | 'minCacheableTokens'>> = {
  anthropic: { promptCache: 'breakpoints', minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE },
  bedrock: { promptCache: 'breakpoints', minCacheableTokens: ANTHROPIC_MIN_CACHEABLE_LARGE },
  openai: { promptCache: 'automatic', minCacheableTokens: OPENAI_MIN_CACHEABLE },
};

/**
 * An unknown model speaks the text protocol (nothing says it has tools; `config.models` can say so) and is
 * priced at its provider's most expensive entry, cache reads included, so estimates err high.
 */
function unknownEntry(provider: string, model: string): ModelCatalogEntry {
  const sameProvider = MODEL_CATALOG.filter((entry) => entry.provider === provider);
  const free = FREE_PROVIDERS.has(provider) || sameProvider.length === 0;
  const highest = (price: (entry: ModelCatalogEntry) => number): number => (free ? 0 : Math.max(...sameProvider.map(price)));
  return {
    provider,
    model,
    ...UNKNOWN_MODEL_LIMITS,
    inputPricePerMTok: highest((entry) => entry.inputPricePerMTok),
    outputPricePerMTok: highest((entry) => entry.outputPricePerMTok),
    cacheReadPricePerMTok: highest((entry) => entry.cacheReadPricePerMTok),
    cacheWritePricePerMTok: highest((entry) => entry.cacheWritePricePerMTok),
    ...(UNKNOWN_MODEL_CACHE[provider] ?? { promptCache: 'none', minCacheableTokens: 0 }),
    tools: false,
    structuredOutput: false,
    tier: 'strong',
    family: provider === 'anthropic' ? 'anthropic' : provider === 'openai' ? 'openai' : 'default',
  };
}

function parseOverride(key: string, raw: Record<string, unknown>): Partial<ModelCatalogEntry> {
  const result = overrideSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(entry)'}: ${issue.message}`).join('; ');
    throw new ConfigError(`models["${key}"] is not a valid model override: ${problems}`);
  }
  return Object.fromEntries(Object.entries(result.data).filter(([, value]) => value !== undefined));
}

/**
 * The catalog entry for `spec` (`provider:model`), with `config.models` overrides applied (an
 * override keyed by the exact spec wins over one keyed `provider:model`). Unknown models get
 * conservative limits (32k window, 4k output) and `known: false`.
 */
export function lookupModel(spec: string, overrides: ModelOverrides = {}): ModelLookup {
  const { provider, model } = parseModelSpec(spec);
  const found = findEntry(provider, model);
  const base: ModelCatalogEntry = found ? { ...found, provider: provider || found.provider, model } : unknownEntry(provider, model);
  const keys = [...new Set([`${provider}:${model}`, spec])];
  const applied = keys.flatMap((key) => (overrides[key] ? [parseOverride(key, overrides[key])] : []));
  const entry: ModelCatalogEntry = Object.assign(base, ...applied);
  const overriddenWindow = applied.some((override) => override.contextWindow !== undefined);
  return { entry, known: found !== undefined || overriddenWindow };
}

/** `provider:model` of the provider's default for a tier, e.g. `anthropic:claude-sonnet-5-5`. */
export function defaultModelSpec(provider: keyof typeof DEFAULT_MODELS, tier: ModelTier): string {
  return `${provider}:${DEFAULT_MODELS[provider][tier]}`;
}
