/**
 * Distinct values of one column in bounded memory: exact counts up to a cap, then a HyperLogLog sketch.
 *
 * Strings, numbers and timestamps (as instants) are counted here; booleans (two possible values) are
 * counted by the column itself.
 * - The first STRING_MAP_CAP distinct strings are kept in a `Map`, the first `countedStrings` of them with
 *   their counts: the digest's top values need exact counts, and are only shown for columns of at most
 *   that many distinct values.
 * - Past that, a string is remembered by a 53-bit fingerprint (two independent 32-bit hashes) in a set
 *   of doubles: no string is retained, so the set stays off the garbage collector's books (a `Map` of
 *   10,000 strings is a large old-space object that every young string stored in it must be recorded
 *   against, which made high-cardinality columns several times slower than JSON.stringify). Two
 *   different strings share a fingerprint with probability about n²/2^54 — one in 10^8 at 10,000.
 * - Numbers and instants only need a distinct count (the digest never lists top numbers or times), so
 *   each goes into a table of doubles.
 */
import { fmix32 } from '../common/fmix32.js';
import { NumberTally } from './number-tally.js';

/** Values counted exactly before switching to the sketch; 10k fingerprints per column is 256 KiB at most. */
export const EXACT_DISTINCT_CAP = 10_000;
/** 2^14 one-byte registers (16 KiB per column): standard error 1.04 / sqrt(16384) ≈ 0.8 %. */
const HLL_PRECISION = 14;
const HLL_REGISTER_COUNT = 1 << HLL_PRECISION;
const HLL_RANK_BITS = 32 - HLL_PRECISION;
const TWO_POW_32 = 2 ** 32;
const TWO_POW_21 = 2 ** 21;
/**
 * Distinct strings kept in a `Map` (V8 hashes them natively and caches the hash in the string) before
 * fingerprints take over: below a few thousand entries the map is small and fast; above, it becomes a
 * large old-space object and every young string stored in it costs the garbage collector.
 */
const STRING_MAP_CAP = 2_048;

export class DistinctCounter {
  /** While there are at most STRING_MAP_CAP distinct strings: each one and its slot (counted below `countedStrings`). */
  private strings: Map<string, number> | undefined = new Map();
  private readonly counts: Int32Array;
  /** Past STRING_MAP_CAP distinct strings: their fingerprints. */
  private fingerprints: NumberTally | undefined;
  /** Distinct numbers, created with the first number. */
  private numbers: NumberTally | undefined;
  /** Distinct timestamps (as instants), created with the first one. */
  private instants: NumberTally | undefined;
  private registers: Uint8Array | undefined;

  /**
   * `countedStrings`: how many distinct strings keep exact per-value counts (see `stringCounts`).
   * `expectedValues`: how many values will come, when known: the tables for numbers and instants start
   * at that size (up to the cap) instead of growing to it.
   */
  constructor(
    countedStrings: number,
    private readonly expectedValues = 0,
  ) {
    this.counts = new Int32Array(countedStrings);
  }

  /**
   * Count one string. Returns false when it is known to have been seen before (exact mode only), so
   * callers can skip work they already did for it; true when it is new or the sketch cannot tell.
   */
  addString(text: string): boolean {
    const strings = this.strings;
    if (strings !== undefined) {
      const slot = strings.get(text);
      if (slot !== undefined) {
        if (slot < this.counts.length) (this.counts[slot] as number) += 1;
        return false;
      }
      const size = strings.size;
      if (size < STRING_MAP_CAP) {
        if (size < this.counts.length) this.counts[size] = 1;
        strings.set(text, size);
        return true;
      }
      // From here on, fingerprints only.
      this.strings = undefined;
      // Sized for the cap up front: a column that got here is likely to get there, and growing rehashes.
      this.fingerprints = new NumberTally(EXACT_DISTINCT_CAP);
      for (const known of strings.keys()) this.fingerprints.add(fingerprint(known));
    }
    if (this.registers === undefined) {
      const fingerprints = this.fingerprints as NumberTally;
      const key = fingerprint(text);
      if (this.exactSize() < EXACT_DISTINCT_CAP) return fingerprints.add(key);
      if (fingerprints.has(key)) return false;
      this.switchToSketch();
    }
    this.addHash(firstHash(text));
    return true;
  }

  /** Count one finite number; the same contract as `addString`. */
  addNumber(value: number): boolean {
    if (this.registers === undefined) {
      this.numbers ??= new NumberTally(Math.min(this.expectedValues, EXACT_DISTINCT_CAP));
      const numbers = this.numbers;
      if (this.exactSize() < EXACT_DISTINCT_CAP) return numbers.add(value);
      if (numbers.has(value)) return false;
      this.switchToSketch();
    }
    this.addHash(hashNumber(value, NUMBER_SEED));
    return true;
  }

  /**
   * Count one timestamp by its instant (milliseconds since the epoch): two texts for the same instant
   * (`…T10:00:00+02:00`, `… 08:00:00Z`) are one value. Kept apart from numbers; the same contract.
   */
  addInstant(epochMs: number): boolean {
    if (this.registers === undefined) {
      this.instants ??= new NumberTally(Math.min(this.expectedValues, EXACT_DISTINCT_CAP));
      const instants = this.instants;
      if (this.exactSize() < EXACT_DISTINCT_CAP) return instants.add(epochMs);
      if (instants.has(epochMs)) return false;
      this.switchToSketch();
    }
    this.addHash(hashNumber(epochMs, INSTANT_SEED));
    return true;
  }

  /** True while every distinct value is still counted exactly. */
  get exact(): boolean {
    return this.registers === undefined;
  }

  /** The exact count, or the HyperLogLog estimate once the cap was passed. */
  get distinct(): number {
    if (this.registers === undefined) return this.exactSize();
    return estimateCardinality(this.registers);
  }

  /** Exact per-string counts in first-seen order, while there are at most `countedStrings` distinct strings. */
  stringCounts(): Array<[string, number]> | undefined {
    if (this.strings === undefined || this.strings.size > this.counts.length) return undefined;
    return [...this.strings].map(([text, slot]): [string, number] => [text, this.counts[slot] as number]);
  }

  private exactSize(): number {
    return (this.strings?.size ?? this.fingerprints?.size ?? 0) + (this.numbers?.size ?? 0) + (this.instants?.size ?? 0);
  }

  private switchToSketch(): void {
    const strings = this.strings;
    const fingerprints = this.fingerprints;
    const numbers = this.numbers;
    const instants = this.instants;
    this.registers = new Uint8Array(HLL_REGISTER_COUNT);
    this.strings = undefined;
    this.fingerprints = undefined;
    this.numbers = undefined;
    this.instants = undefined;
    if (strings !== undefined) for (const text of strings.keys()) this.addHash(firstHash(text));
    if (fingerprints !== undefined) for (const key of fingerprints.values()) this.addHash(sketchHashOfFingerprint(key));
    if (numbers !== undefined) for (const value of numbers.values()) this.addHash(hashNumber(value, NUMBER_SEED));
    if (instants !== undefined) for (const value of instants.values()) this.addHash(hashNumber(value, INSTANT_SEED));
  }

  private addHash(hash: number): void {
    const registers = this.registers as Uint8Array;
    const index = hash >>> HLL_RANK_BITS;
    const rest = (hash << HLL_PRECISION) >>> 0;
    const rank = rest === 0 ? HLL_RANK_BITS + 1 : Math.clz32(rest) + 1;
    if (rank > (registers[index] as number)) registers[index] = rank;
  }
}

/** 2^-rank for every rank a register can hold (at most HLL_RANK_BITS + 1). */
const INVERSE_POWERS_OF_TWO = Float64Array.from({ length: HLL_RANK_BITS + 2 }, (_, rank) => 2 ** -rank);

/** Flajolet et al. HyperLogLog estimate with the small-range (linear counting) and 32-bit large-range corrections. */
function estimateCardinality(registers: Uint8Array): number {
  const registerCount = registers.length;
  let inverseSum = 0;
  let zeroRegisters = 0;
  for (let index = 0; index < registerCount; index += 1) {
    const register = registers[index] as number;
    inverseSum += INVERSE_POWERS_OF_TWO[register] as number;
    if (register === 0) zeroRegisters += 1;
  }
  const alpha = 0.7213 / (1 + 1.079 / registerCount);
  let estimate = (alpha * registerCount * registerCount) / inverseSum;
  if (estimate <= 2.5 * registerCount && zeroRegisters > 0) {
    estimate = registerCount * Math.log(registerCount / zeroRegisters);
  } else if (estimate > TWO_POW_32 / 30) {
    estimate = -TWO_POW_32 * Math.log(1 - estimate / TWO_POW_32);
  }
  return Math.round(estimate);
}

/**
 * `String.prototype.charCodeAt`, held in a constant and called with `.call`. Once any loaded module
 * defines a `class … extends String` (ioredis does, and the fleet workers load it), V8 stops inlining
 * `text.charCodeAt(i)` and every call costs about four times as much; a call through the constant keeps
 * the inlined builtin either way.
 */
const charCodeAt = String.prototype.charCodeAt;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** The second hash: a different start and multiplier (MurmurHash2's), so the two fail independently. */
const SECOND_OFFSET = 0x3c6ef372;
const SECOND_PRIME = 0x5bd1e995;
/** Distinct seeds for numbers and instants, so `1`, `"1"` and 1 ms after the epoch hash apart. */
const NUMBER_SEED = 0x9e3779b1;
const INSTANT_SEED = 0x7f4a7c15;
const numberBits = new Float64Array(1);
const numberWords = new Uint32Array(numberBits.buffer);

/**
 * A string's 53-bit fingerprint, the same on every machine: two 32-bit hashes over its UTF-16 code units,
 * two at a time, each finished with the murmur3 finaliser for avalanche; the 32 bits of the first and 21
 * of the second make an integer a double holds exactly.
 */
function fingerprint(text: string): number {
  let first = FNV_OFFSET;
  let second = SECOND_OFFSET;
  const length = text.length;
  let index = 0;
  for (; index + 1 < length; index += 2) {
    const word = charCodeAt.call(text, index) | (charCodeAt.call(text, index + 1) << 16);
    first = Math.imul(first ^ word, FNV_PRIME);
    second = Math.imul(second ^ word, SECOND_PRIME);
    second ^= second >>> 15;
  }
  if (index < length) {
    const word = charCodeAt.call(text, index);
    first = Math.imul(first ^ word, FNV_PRIME);
    second = Math.imul(second ^ word, SECOND_PRIME);
  }
  return fmix32(first ^ length) * TWO_POW_21 + (fmix32(second ^ length) >>> 11);
}

/** The first of the fingerprint's two hashes alone: all the sketch needs, at half the work. */
function firstHash(text: string): number {
  let first = FNV_OFFSET;
  const length = text.length;
  let index = 0;
  for (; index + 1 < length; index += 2)
    first = Math.imul(first ^ (charCodeAt.call(text, index) | (charCodeAt.call(text, index + 1) << 16)), FNV_PRIME);
  if (index < length) first = Math.imul(first ^ charCodeAt.call(text, index), FNV_PRIME);
  return fmix32(first ^ length);
}

/** The sketch's 32-bit hash of a fingerprinted string: the fingerprint's first hash, as `firstHash` gives it. */
function sketchHashOfFingerprint(key: number): number {
  return Math.floor(key / TWO_POW_21) >>> 0;
}

/** A number's 32-bit hash over the two words of its IEEE-754 bits (no number-to-text conversion per cell). */
function hashNumber(value: number, seed: number): number {
  numberBits[0] = value === 0 ? 0 : value;
  let hash = Math.imul(FNV_OFFSET ^ seed, FNV_PRIME);
  hash = Math.imul(hash ^ (numberWords[0] as number), FNV_PRIME);
  hash = Math.imul(hash ^ (numberWords[1] as number), FNV_PRIME);
  return fmix32(hash);
}
