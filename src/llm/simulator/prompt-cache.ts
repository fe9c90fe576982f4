/**
 * The simulator's prompt cache, following each provider's documented rules, so that caching is measured
 * here without a key (docs/llm.md lists the sources):
 *
 * - **Breakpoints** (Anthropic `cache_control`, Bedrock `cachePoint`): a request is a sequence of blocks in
 *   render order (tools, system, messages). A breakpoint caches the prefix that ends with its block, if that
 *   prefix holds at least the model's minimum cacheable tokens. On a request, each breakpoint looks for an
 *   earlier cached prefix at its own block and up to 19 blocks before it (the 20-block lookback); the
 *   longest hit is read, and every breakpoint after it is written. Reads, writes and the rest are reported
 *   separately. At most four breakpoints per request.
 * - **Automatic** (OpenAI): every prompt of 1,024 tokens or more is cached as it is; a later prompt that shares
 *   a prefix with one of them reads the shared part, counted in 128-token steps above 1,024.
 *
 * Entries live for five minutes after their last use, as on the providers.
 */
import { createHash } from 'node:crypto';
import { estimateTokens, type TokenFamily } from '../tokens.js';

/** One block of a request, in the order the provider renders it. */
export interface PromptBlock {
  /** What the block is (`tools`, `system`, `user`, `assistant`): blocks of different kinds never match. */
  kind: string;
  text: string;
  /** The block's share of the prompt's input tokens. */
  tokens: number;
  /** A `cache_control` / `cachePoint` ends a cacheable prefix here. */
  breakpoint: boolean;
}

export interface CacheUse {
  readTokens: number;
  writeTokens: number;
}

/** A cache entry lives this long after it was last written or read (Anthropic's default TTL; OpenAI keeps at least as long). */
export const CACHE_TTL_MS = 5 * 60 * 1_000;
/** How many blocks before a breakpoint the cache looks for an earlier hit (the breakpoint's own block included). */
export const BREAKPOINT_LOOKBACK_BLOCKS = 20;
/** Automatic caching starts at this many tokens and grows in steps of `AUTOMATIC_CACHE_STEP_TOKENS`. */
export const AUTOMATIC_CACHE_MIN_TOKENS = 1_024;
export const AUTOMATIC_CACHE_STEP_TOKENS = 128;
/** Prompts kept per scope for automatic prefix matching. */
const AUTOMATIC_ENTRIES_PER_SCOPE = 256;

const NO_USE: CacheUse = { readTokens: 0, writeTokens: 0 };

/** Hashes of every prefix: `hashes[j]` names blocks 0..j. */
function prefixHashes(blocks: readonly PromptBlock[]): string[] {
  const hashes: string[] = [];
  let previous = '';
  for (const block of blocks) {
    previous = createHash('sha256').update(previous).update('\u0000').update(block.kind).update('\u0000').update(block.text).digest('hex');
    hashes.push(previous);
  }
  return hashes;
}

function cumulativeTokens(blocks: readonly PromptBlock[]): number[] {
  const sums: number[] = [];
  let total = 0;
  for (const block of blocks) {
    total += block.tokens;
    sums.push(total);
  }
  return sums;
}

function commonPrefixLength(left: string, right: string): number {
  const limit = Math.min(left.length, right.length);
  let index = 0;
  while (index < limit && left.charCodeAt(index) === right.charCodeAt(index)) index += 1;
  return index;
}

interface AutomaticEntry {
  hashes: string[];
  blocks: PromptBlock[];
  expiresAt: number;
}

export class SimulatedPromptCache {
  readonly #prefixes = new Map<string, number>();
  readonly #prompts = new Map<string, AutomaticEntry[]>();

  constructor(private readonly now: () => number = Date.now) {}

  #alive(key: string): boolean {
    const expiresAt = this.#prefixes.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.now()) return true;
    this.#prefixes.delete(key);
    return false;
  }

  /** Breakpoint caching (Anthropic, Bedrock) for one request in `scope` (account and model). */
  breakpoints(scope: string, blocks: readonly PromptBlock[], minCacheableTokens: number): CacheUse {
    const marks = blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));
    if (marks.length === 0) return NO_USE;
    const hashes = prefixHashes(blocks);
    const sums = cumulativeTokens(blocks);
    const keyAt = (index: number): string => `${scope}\u0000${hashes[index]}`;
    let readEnd = -1;
    for (const mark of marks) {
      for (let index = mark; index >= Math.max(0, mark - BREAKPOINT_LOOKBACK_BLOCKS + 1); index -= 1) {
        if (index <= readEnd) break;
        if (this.#alive(keyAt(index))) {
          readEnd = index;
          break;
        }
      }
    }
    const expiresAt = this.now() + CACHE_TTL_MS;
    if (readEnd >= 0) this.#prefixes.set(keyAt(readEnd), expiresAt);
    const readTokens = readEnd >= 0 ? (sums[readEnd] ?? 0) : 0;
    let writtenEnd = -1;
    for (const mark of marks) {
      if (mark <= readEnd || (sums[mark] ?? 0) < minCacheableTokens) continue;
      this.#prefixes.set(keyAt(mark), expiresAt);
      writtenEnd = mark;
    }
    const writeTokens = writtenEnd >= 0 ? (sums[writtenEnd] ?? 0) - readTokens : 0;
    return { readTokens, writeTokens };
  }

  /** Automatic prefix caching (OpenAI) for one request in `scope` (model). */
  automatic(scope: string, blocks: readonly PromptBlock[], family: TokenFamily): CacheUse {
    const now = this.now();
    const entries = (this.#prompts.get(scope) ?? []).filter((entry) => entry.expiresAt > now);
    const hashes = prefixHashes(blocks);
    let best: { entry: AutomaticEntry; blocks: number } | undefined;
    for (const entry of entries) {
      let shared = 0;
      while (shared < hashes.length && shared < entry.hashes.length && entry.hashes[shared] === hashes[shared]) shared += 1;
      if (!best || shared > best.blocks) best = { entry, blocks: shared };
    }
    let shared = 0;
    if (best) {
      shared = blocks.slice(0, best.blocks).reduce((sum, block) => sum + block.tokens, 0);
      const next = blocks[best.blocks];
      const stored = best.entry.blocks[best.blocks];
      if (next && stored && next.kind === stored.kind) {
        shared += estimateTokens(next.text.slice(0, commonPrefixLength(next.text, stored.text)), family);
      }
      best.entry.expiresAt = now + CACHE_TTL_MS;
    }
    const total = blocks.reduce((sum, block) => sum + block.tokens, 0);
    if (total >= AUTOMATIC_CACHE_MIN_TOKENS) {
      entries.push({ hashes, blocks: [...blocks], expiresAt: now + CACHE_TTL_MS });
      if (entries.length > AUTOMATIC_ENTRIES_PER_SCOPE) entries.shift();
    }
    this.#prompts.set(scope, entries);
    const readTokens =
      shared < AUTOMATIC_CACHE_MIN_TOKENS
        ? 0
        : AUTOMATIC_CACHE_MIN_TOKENS +
          Math.floor((shared - AUTOMATIC_CACHE_MIN_TOKENS) / AUTOMATIC_CACHE_STEP_TOKENS) * AUTOMATIC_CACHE_STEP_TOKENS;
    return { readTokens: Math.min(readTokens, total), writeTokens: 0 };
  }
}
