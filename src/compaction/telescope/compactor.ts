/**
 * Applies registry strategies to content with a content-addressed cache in front: the same content,
 * strategy, version and level are compacted once and reused by every later run and every pod that
 * shares the store. Keeps per-strategy statistics (tokens in and out, saved share, hits and misses,
 * model calls) for the run telemetry.
 */
import { fenceData } from '../../llm/data-fence.js';
import type { TokenFamily } from '../../llm/tokens.js';
import { estimateTokens } from '../../llm/tokens.js';
import { clipText } from '../clip.js';
import { COMPACT_CACHE_NAMESPACE, COMPACT_CACHE_TTL_MS, compactCacheKey } from './cache-key.js';
import type { CompactionStrategy, StrategyName, StrategyRegistry } from './registry.js';

/** Where compacted nodes are kept: the RunStore's TTL cache (shared by the fleet). */
export interface CompactionCache {
  cacheGet(namespace: string, key: string): Promise<{ value: unknown } | null>;
  cachePut(namespace: string, key: string, value: unknown, options: { ttlMs: number }): Promise<void>;
}

/** A model call for an LLM strategy: the rendered prompt in, the text out (the caller budgets and records it). */
export type Summarizer = (request: {
  strategy: CompactionStrategy;
  prompt: string;
  maxOutputTokens: number;
  signal?: AbortSignal;
}) => Promise<string>;

export interface StrategyStats {
  input_tokens: number;
  output_tokens: number;
  /** 100 × (1 − output / input), over everything this strategy compacted. */
  saved_pct: number;
  cache_hits: number;
  cache_misses: number;
  llm_calls: number;
}

export interface CompactRequest {
  strategy: StrategyName;
  level: number;
  /** What the content is, for LLM prompts ("one query result", "a group of results"). */
  kind: string;
  /** The text the strategy compacts (also what the cache key hashes). */
  content: string;
  /** The deterministic output for `tier: none` strategies (computed only on a cache miss). */
  produce?: () => string;
  signal?: AbortSignal;
}

export interface CompactOutcome {
  text: string;
  key: string;
  cached: boolean;
}

/** Words asked of a narrative, from the strategy's character bound (~6 characters a word). */
function maxWords(strategy: CompactionStrategy): number {
  return Math.max(20, Math.floor(strategy.max_output_chars / 6));
}

export function renderStrategyPrompt(strategy: CompactionStrategy, kind: string, content: string): string {
  return (
    (strategy.prompt ?? '{{CONTENT}}')
      .replaceAll('{{MAX_WORDS}}', String(maxWords(strategy)))
      .replaceAll('{{KIND}}', kind)
      // the content is query results and their digests: warehouse data, never instructions
      .replaceAll('{{CONTENT}}', fenceData(content))
  );
}

export interface Compactor {
  /** Null when the strategy needs a model tier that is not configured. */
  compact(request: CompactRequest): Promise<CompactOutcome | null>;
  /** Whether an LLM strategy can run (its tier has a model). */
  available(strategy: StrategyName): boolean;
  stats(): Record<string, StrategyStats>;
}

export function createCompactor(options: {
  registry: StrategyRegistry;
  cache: CompactionCache;
  /** Cache key source: where the content came from (e.g. the warehouse hash). */
  source: string;
  family: TokenFamily;
  /** Model per tier; a missing tier disables the strategies that need it. */
  summarizers: Partial<Record<'fast' | 'strong', Summarizer>>;
  ttlMs?: number;
}): Compactor {
  const stats = new Map<string, StrategyStats>();
  const statsFor = (name: string): StrategyStats => {
    let entry = stats.get(name);
    if (!entry) {
      entry = { input_tokens: 0, output_tokens: 0, saved_pct: 0, cache_hits: 0, cache_misses: 0, llm_calls: 0 };
      stats.set(name, entry);
    }
    return entry;
  };
  const available = (name: StrategyName) => {
    const tier = options.registry.get(name).tier;
    return tier === 'none' || options.summarizers[tier] !== undefined;
  };

  return {
    available,
    async compact(request) {
      const strategy = options.registry.get(request.strategy);
      if (!strategy.levels.includes(request.level)) throw new Error(`strategy ${strategy.name} does not compact level ${request.level}`);
      if (!available(request.strategy)) return null;
      const key = compactCacheKey({
        source: options.source,
        strategy: strategy.name,
        strategyVersion: strategy.version,
        level: request.level,
        content: request.content,
      });
      const entry = statsFor(strategy.name);
      entry.input_tokens += estimateTokens(request.content, options.family);
      const hit = await options.cache.cacheGet(COMPACT_CACHE_NAMESPACE, key);
      let text: string;
      let cached = false;
      if (hit !== null && typeof hit.value === 'string') {
        entry.cache_hits += 1;
        text = hit.value;
        cached = true;
      } else {
        entry.cache_misses += 1;
        if (strategy.tier === 'none') {
          if (!request.produce) throw new Error(`strategy ${strategy.name} is deterministic: the request must say how to produce it`);
          text = request.produce();
        } else {
          const summarize = options.summarizers[strategy.tier] as Summarizer;
          entry.llm_calls += 1;
          text = (
            await summarize({
              strategy,
              prompt: renderStrategyPrompt(strategy, request.kind, request.content),
              maxOutputTokens: strategy.max_output_tokens ?? 300,
              ...(request.signal ? { signal: request.signal } : {}),
            })
          ).trim();
        }
        text = clipText(text, strategy.max_output_chars, Math.max(0, strategy.max_output_chars - 24));
        await options.cache.cachePut(COMPACT_CACHE_NAMESPACE, key, text, { ttlMs: options.ttlMs ?? COMPACT_CACHE_TTL_MS });
      }
      entry.output_tokens += estimateTokens(text, options.family);
      entry.saved_pct = entry.input_tokens === 0 ? 0 : Math.round(1000 * (1 - entry.output_tokens / entry.input_tokens)) / 10;
      return { text, key, cached };
    },
    stats() {
      return Object.fromEntries(
        [...stats.entries()].sort(([left], [right]) => left.localeCompare(right)).map(([name, value]) => [name, { ...value }]),
      );
    },
  };
}
