/**
 * The local embedder: deterministic feature hashing, no network, no model files.
 * Good enough to rank table and step descriptions by shared vocabulary; not a semantic model.
 */
import type { Embedder } from './port.js';
import { ValidationError } from '../errors/index.js';
import { fmix32 } from '../common/fmix32.js';

/** 384 matches the small sentence-transformer models, so collections look alike across embedders. */
export const LOCAL_EMBEDDER_DEFAULT_DIMENSIONS = 384;
/** Below this, bucket collisions drown the signal; above it, vectors only cost memory. */
const MIN_DIMENSIONS = 16;
const MAX_DIMENSIONS = 8192;

/** Whole words carry the most meaning. */
const WORD_WEIGHT = 1.0;
/** Adjacent word pairs keep a little word order ("order items" vs "items order"). */
const BIGRAM_WEIGHT = 0.6;
/** Character n-grams match inflections and abbreviations (`abandon` ~ `abandoned`) without swamping words. */
const CHAR_NGRAM_WEIGHT = 0.25;
const CHAR_NGRAM_SIZES = [3, 4] as const;

export interface LocalEmbedderOptions {
  /** @defaultValue 384 */
  dimensions?: number;
}

export function createLocalEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? LOCAL_EMBEDDER_DEFAULT_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < MIN_DIMENSIONS || dimensions > MAX_DIMENSIONS) {
    throw new ValidationError(
      `local embedder: dimensions must be an integer from ${MIN_DIMENSIONS} to ${MAX_DIMENSIONS}, got ${dimensions}`,
    );
  }
  return {
    id: `local:hash-${dimensions}`,
    dimensions,
    async embed(texts) {
      return texts.map((text) => embedText(text, dimensions));
    },
  };
}

/**
 * Words of a text, lower-cased, with identifiers split: `order_items` → order, items;
 * `orderItems` → order, items; `HTTPServer` → http, server.
 */
export function splitWords(text: string): string[] {
  const separated = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase();
  return separated.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
}

function embedText(text: string, dimensions: number): number[] {
  const weights = new Map<string, { weight: number; count: number }>();
  const add = (feature: string, weight: number): void => {
    const entry = weights.get(feature);
    if (entry) entry.count += 1;
    else weights.set(feature, { weight, count: 1 });
  };

  const words = splitWords(text);
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    add(`w:${word}`, WORD_WEIGHT);
    const next = words[index + 1];
    if (next !== undefined) add(`b:${word} ${next}`, BIGRAM_WEIGHT);
    const padded = `<${word}>`;
    for (const size of CHAR_NGRAM_SIZES) {
      for (let start = 0; start + size <= padded.length; start++) add(`c:${padded.slice(start, start + size)}`, CHAR_NGRAM_WEIGHT);
    }
  }

  const vector = new Float64Array(dimensions);
  for (const [feature, { weight, count }] of weights) {
    const hash = fnv1a32(feature);
    const bucket = hash % dimensions;
    // The sign comes from a mixed copy of the hash so colliding features cancel out on average.
    const sign = (fmix32(hash) & 1) === 0 ? 1 : -1;
    // Sublinear term frequency: a word repeated ten times is not ten times as important.
    vector[bucket] = (vector[bucket] as number) + sign * weight * (1 + Math.log(count));
  }

  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return Array.from(vector, (value) => (norm === 0 ? 0 : value / norm));
}

/** FNV-1a, 32 bit, over UTF-16 code units: stable across runs, platforms and Node versions. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
