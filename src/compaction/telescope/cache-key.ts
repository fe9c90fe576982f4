/**
 * Content-addressed keys for compacted nodes: `compact:{source}:{strategyVersion}:{strategy}:{hash}`
 * (telescoping-compaction seed), where the hash covers the content, the strategy and the level, so a
 * change to any of them makes a new key without invalidating siblings, and the version makes a changed
 * strategy skip every old entry.
 *
 * The seed's hash is 8 hex characters (32 bits). Assay widens it to 16 (64 bits): one shared store holds
 * the nodes of every project and run for the TTL, easily 10^5–10^6 entries, and at 32 bits the chance
 * of some collision passes 50 % near 77,000 entries — a collision would silently serve one step's
 * summary for another. At 64 bits it stays below 10^-7 at a million entries.
 */
import { createHash } from 'node:crypto';

/** Hex characters of the content hash in a key. */
export const CACHE_KEY_HASH_CHARS = 16;
/** How long a compacted node stays reusable (seed: "TTL (30 days?)"). */
export const COMPACT_CACHE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** The RunStore cache namespace the nodes live in. */
export const COMPACT_CACHE_NAMESPACE = 'compact';

export function contentHash(content: string, strategy: string, level: number): string {
  return createHash('sha256')
    .update(content)
    .update('\u0000')
    .update(strategy)
    .update('\u0000')
    .update(String(level))
    .digest('hex')
    .slice(0, CACHE_KEY_HASH_CHARS);
}

/** `source` names where the content came from (e.g. the project's warehouse hash); no `:` allowed in it. */
export function compactCacheKey(input: {
  source: string;
  strategy: string;
  strategyVersion: number;
  level: number;
  content: string;
}): string {
  const source = input.source.replace(/:/g, '_');
  return `compact:${source}:v${input.strategyVersion}:${input.strategy}:${contentHash(input.content, input.strategy, input.level)}`;
}

/** A node id the model can quote back: level plus the first 12 hex characters of its content hash. */
export function nodeId(level: number, content: string): string {
  return `L${level}-${createHash('sha256').update(content).digest('hex').slice(0, 12)}`;
}
