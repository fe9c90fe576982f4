/**
 * Distinct values of one column in bounded memory: exact counts up to a cap, then a HyperLogLog sketch.
 * Exact below the cap because the digest's top values need exact counts, and those are only shown
 * for low-cardinality columns anyway; above it, memory would otherwise grow with the data.
 */
import { NumberTally } from './number-tally.js';
import { fmix32 } from '../common/fmix32.js';

/** Values counted exactly before switching to the sketch; 10k map entries per column stays small even at 200 columns. */
export const EXACT_DISTINCT_CAP = 10_000;
/** 2^14 one-byte registers (16 KiB per column): standard error 1.04 / sqrt(16384) ≈ 0.8 %. */
const HLL_PRECISION = 14;
const HLL_REGISTER_COUNT = 1 << HLL_PRECISION;
const HLL_RANK_BITS = 32 - HLL_PRECISION;
const TWO_POW_32 = 2 ** 32;

export type DistinctValue = string | number | boolean;

/** A mutable count, so a repeated value costs one map lookup instead of a get and a set. */
interface Tally {
  count: number;
}

export class DistinctCounter {
  /** Strings and booleans. */
  private tallies: Map<DistinctValue, Tally> | undefined = new Map();
  /** Numbers, in their own faster table; together with `tallies` they hold the exact counts. */
  private numbers: NumberTally | undefined = new NumberTally();
  private registers: Uint8Array | undefined;

  /**
   * Count one value. Returns false when the value is known to have been seen before (exact mode only),
   * so callers can skip work they already did for it; true when it is new or the sketch cannot tell.
   */
  add(value: DistinctValue): boolean {
    const tallies = this.tallies;
    const numbers = this.numbers;
    if (tallies !== undefined && numbers !== undefined) {
      const full = tallies.size + numbers.size >= EXACT_DISTINCT_CAP;
      if (typeof value === 'number') {
        if (!full) return numbers.add(value);
        if (numbers.has(value)) return numbers.add(value);
      } else {
        const tally = tallies.get(value);
        if (tally !== undefined) {
          tally.count += 1;
          return false;
        }
        if (!full) {
          tallies.set(value, { count: 1 });
          return true;
        }
      }
      this.switchToSketch(tallies, numbers);
    }
    this.addToSketch(value);
    return true;
  }

  /** True while every distinct value is still counted exactly. */
  get exact(): boolean {
    return this.registers === undefined;
  }

  /** The exact count, or the HyperLogLog estimate once the cap was passed. */
  get distinct(): number {
    if (this.registers === undefined) return (this.tallies?.size ?? 0) + (this.numbers?.size ?? 0);
    return estimateCardinality(this.registers ?? new Uint8Array(HLL_REGISTER_COUNT));
  }

  /** Exact per-value counts, or `undefined` once the counter switched to the sketch. */
  valueCounts(): Array<[DistinctValue, number]> | undefined {
    if (this.tallies === undefined || this.numbers === undefined) return undefined;
    return [...[...this.tallies].map(([value, tally]): [DistinctValue, number] => [value, tally.count]), ...this.numbers.entries()];
  }

  private switchToSketch(tallies: Map<DistinctValue, Tally>, numbers: NumberTally): void {
    this.registers = new Uint8Array(HLL_REGISTER_COUNT);
    this.tallies = undefined;
    this.numbers = undefined;
    for (const value of tallies.keys()) this.addToSketch(value);
    for (const [value] of numbers.entries()) this.addToSketch(value);
  }

  private addToSketch(value: DistinctValue): void {
    const registers = this.registers as Uint8Array;
    const hash = hashValue(value);
    const index = hash >>> HLL_RANK_BITS;
    const rest = (hash << HLL_PRECISION) >>> 0;
    const rank = rest === 0 ? HLL_RANK_BITS + 1 : Math.clz32(rest) + 1;
    if (rank > (registers[index] ?? 0)) registers[index] = rank;
  }
}

/** Flajolet et al. HyperLogLog estimate with the small-range (linear counting) and 32-bit large-range corrections. */
function estimateCardinality(registers: Uint8Array): number {
  const registerCount = registers.length;
  let inverseSum = 0;
  let zeroRegisters = 0;
  for (const register of registers) {
    inverseSum += 2 ** -register;
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

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Distinct seeds per type, so `1`, `"1"` and `true` hash apart. */
const NUMBER_SEED = 0x9e3779b1;
const BOOLEAN_TRUE_HASH = 0x7f4a7c15;
const BOOLEAN_FALSE_HASH = 0x2545f491;
const numberBits = new Float64Array(1);
const numberWords = new Uint32Array(numberBits.buffer);

/**
 * A fixed 32-bit hash, so the sketch is deterministic: FNV-1a over a string's UTF-16 code units, or over
 * the two 32-bit words of a number's IEEE-754 bits (no number-to-text conversion per cell), then the
 * murmur3 finaliser for avalanche.
 */
function hashValue(value: DistinctValue): number {
  let hash = FNV_OFFSET;
  if (typeof value === 'string') {
    for (let index = 0; index < value.length; index += 1) {
      hash ^= value.charCodeAt(index);
      hash = Math.imul(hash, FNV_PRIME);
    }
  } else if (typeof value === 'number') {
    numberBits[0] = value === 0 ? 0 : value;
    hash = Math.imul(hash ^ NUMBER_SEED, FNV_PRIME);
    hash = Math.imul(hash ^ (numberWords[0] as number), FNV_PRIME);
    hash = Math.imul(hash ^ (numberWords[1] as number), FNV_PRIME);
  } else {
    return value ? BOOLEAN_TRUE_HASH : BOOLEAN_FALSE_HASH;
  }
  return fmix32(hash);
}
