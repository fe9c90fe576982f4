/**
 * Numeric quantiles of one column in bounded memory.
 *
 * Every finite value is kept while there are at most QUANTILE_EXACT_CAP of them, and the quantiles are
 * exact. Past the cap the buffer becomes a uniform reservoir sample (Vitter's Algorithm R) driven by a
 * fixed-seed PRNG, so the same input still gives the same output. With k = 20,000 samples the rank error
 * of a quantile q has standard deviation sqrt(q(1-q)/k): 0.35 % of the rows at the median, 0.31 % at the
 * quartiles, so within ±1.1 % of rank at three sigma. Min and max are tracked separately and stay exact.
 *
 * Quantile method: linear interpolation between order statistics, Hyndman & Fan type 7 (the default of
 * R's `quantile` and NumPy's `percentile`): h = (n - 1)·q, value = x[⌊h⌋] + (h - ⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]).
 *
 * Adding a value is a store into a typed array: the digest's hot loop does no hashing and no allocation
 * for numbers. The work is done once, at the end (`summarise`): one pass through a hash table for the
 * distinct count, then the order statistics from that table or by selection.
 */
import { NumberTally } from './number-tally.js';
import { medianOfThree } from './sort-pivot.js';

/** 20k doubles = 160 KiB per numeric column; exact for typical aggregates, bounded for million-row results. */
export const QUANTILE_EXACT_CAP = 20_000;
const INITIAL_CAPACITY = 256;
/** Any fixed seed works; fixing it is what makes the reservoir deterministic. */
const RESERVOIR_SEED = 0x9e3779b9;

/**
 * One table reused by every `summarise` (they run one at a time, start to end): a digest summarises
 * many numeric columns, and allocating and zeroing a fresh table for each was a tenth of its time.
 * Kept only while small (SCRATCH_MAX_SLOTS × 12 bytes); a larger one is left to the collector.
 */
let scratch: NumberTally | undefined;
const SCRATCH_MAX_SLOTS = 16_384;

function scratchTally(expected: number): NumberTally {
  const reused = scratch;
  scratch = undefined;
  if (reused === undefined) return new NumberTally(expected);
  reused.clear(expected);
  return reused;
}

function releaseScratchTally(tally: NumberTally): void {
  if (tally.capacity <= SCRATCH_MAX_SLOTS) scratch = tally;
}

/** Exact count of distinct values (`-0` and `0` are one value). */
export function countDistinct(values: Float64Array): number {
  const tally = scratchTally(Math.min(values.length, 2048));
  for (let index = 0; index < values.length; index += 1) tally.add(values[index] as number);
  const distinct = tally.size;
  releaseScratchTally(tally);
  return distinct;
}

export interface Quartiles {
  p25: number;
  median: number;
  p75: number;
}

export class QuantileSample {
  private values: Float64Array;
  private seen = 0;
  private randomState = RESERVOIR_SEED;

  /** `expected`: how many values are likely to come (the row count, when known), so the buffer need not grow. */
  constructor(expected = INITIAL_CAPACITY) {
    this.values = new Float64Array(Math.max(16, Math.min(expected, QUANTILE_EXACT_CAP)));
  }

  /** Values added so far (kept or not). */
  get count(): number {
    return this.seen;
  }

  add(value: number): void {
    const position = this.seen;
    this.seen = position + 1;
    if (position < QUANTILE_EXACT_CAP) {
      if (position === this.values.length) this.grow();
      this.values[position] = value;
      return;
    }
    const slot = Math.floor(this.nextRandom() * (position + 1));
    if (slot < QUANTILE_EXACT_CAP) this.values[slot] = value;
  }

  /** True once the quartiles come from the reservoir rather than from every value. */
  get approximate(): boolean {
    return this.seen > QUANTILE_EXACT_CAP;
  }

  /** While not `approximate`: every value added, in order (a view, not a copy). */
  keptValues(): Float64Array {
    return this.values.subarray(0, Math.min(this.seen, QUANTILE_EXACT_CAP));
  }

  /**
   * The quartiles, and while every value is kept the exact count of distinct values (`-0` and `0` are
   * one value). Reorders the kept values, so call it once, after the last `add`.
   *
   * The kept values are tallied in a hash table (the distinct count needs it anyway). When they repeat a
   * lot (at most a quarter as many distinct values as values, as in counts, ratings, minutes or miles),
   * the order statistics are read off the few sorted distinct values and their counts; otherwise by
   * selection over the values. Both give the very same type-7 result.
   */
  summarise(): { distinct: number | undefined; quartiles: Quartiles | undefined } {
    const size = Math.min(this.seen, QUANTILE_EXACT_CAP);
    if (size === 0) return { distinct: this.approximate ? undefined : 0, quartiles: undefined };
    const kept = this.values.subarray(0, size);
    if (this.approximate) return { distinct: undefined, quartiles: quartilesOf(kept) };
    const tally = scratchTally(Math.min(size, 2048));
    for (let index = 0; index < size; index += 1) tally.add(kept[index] as number);
    const distinct = tally.size;
    const quartiles = distinct * 4 <= size ? quartilesOfTally(tally.sorted(), size) : quartilesOf(kept);
    releaseScratchTally(tally);
    return { distinct, quartiles };
  }

  private grow(): void {
    const larger = new Float64Array(Math.min(this.values.length * 2, QUANTILE_EXACT_CAP));
    larger.set(this.values);
    this.values = larger;
  }

  /** mulberry32: a tiny, well-mixed 32-bit PRNG; uniform in [0, 1). */
  private nextRandom(): number {
    this.randomState = (this.randomState + 0x6d2b79f5) >>> 0;
    let mixed = this.randomState;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  }
}

/** Type-7 quartiles of `size` values given as ascending distinct values with their counts. */
function quartilesOfTally(tally: { values: Float64Array; counts: Int32Array }, size: number): Quartiles {
  const last = size - 1;
  let position = 0;
  let seenBefore = 0; // how many values sort before tally.values[position]
  /** The k-th smallest value (0-based); k never decreases between calls. */
  const orderStatistic = (k: number): number => {
    while (seenBefore + (tally.counts[position] as number) <= k) {
      seenBefore += tally.counts[position] as number;
      position += 1;
    }
    return tally.values[position] as number;
  };
  const at = (quantile: number): number => {
    const exact = last * quantile;
    const lowerIndex = Math.floor(exact);
    const lower = orderStatistic(lowerIndex);
    const fraction = exact - lowerIndex;
    if (fraction === 0) return lower;
    const savedPosition = position;
    const savedBefore = seenBefore;
    const upper = orderStatistic(lowerIndex + 1);
    position = savedPosition;
    seenBefore = savedBefore;
    return weighted(lower, upper, fraction);
  };
  return { p25: at(0.25), median: at(0.5), p75: at(0.75) };
}

/** Linear interpolation that cannot overflow when the ends are huge and of opposite signs, kept between them. */
function weighted(lower: number, upper: number, fraction: number): number {
  const value = (1 - fraction) * lower + fraction * upper;
  return Math.min(Math.max(value, lower), upper);
}

/**
 * Type-7 quartiles of `values`, which are reordered in place. The median is selected first over the
 * whole array; the lower quartile then only needs the left part and the upper quartile the right part,
 * and each right neighbour (the next order statistic) is the minimum of the part between two selections.
 */
function quartilesOf(values: Float64Array): Quartiles {
  const last = values.length - 1;
  const medianIndex = Math.floor(last * 0.5);
  const lowIndex = Math.floor(last * 0.25);
  const highIndex = Math.floor(last * 0.75);
  selectKth(values, medianIndex, 0, last);
  if (lowIndex < medianIndex) selectKth(values, lowIndex, 0, medianIndex - 1);
  if (highIndex > medianIndex) selectKth(values, highIndex, medianIndex + 1, last);
  // Now values[low] ≤ values(low, median] ≤ values[median] ≤ values(median, high] ≤ values[high] ≤ values(high, last].
  return {
    p25: interpolate(values, last * 0.25, lowIndex, lowIndex === medianIndex ? last : medianIndex),
    median: interpolate(values, last * 0.5, medianIndex, highIndex === medianIndex ? last : highIndex),
    p75: interpolate(values, last * 0.75, highIndex, last),
  };
}

/**
 * The type-7 value at fractional `position`, whose lower order statistic sits at `lowerIndex`; the upper
 * one is the smallest value in (lowerIndex, rangeEnd], which holds every value between the two.
 */
function interpolate(values: Float64Array, position: number, lowerIndex: number, rangeEnd: number): number {
  const lower = values[lowerIndex] as number;
  const fraction = position - lowerIndex;
  if (fraction === 0) return lower;
  let upper = Number.POSITIVE_INFINITY;
  for (let index = lowerIndex + 1; index <= rangeEnd; index += 1) if ((values[index] as number) < upper) upper = values[index] as number;
  return weighted(lower, upper, fraction);
}

/** Below this size a partition is finished by insertion sort. */
const INSERTION_SORT_SIZE = 16;

/**
 * Hoare-style quickselect with a median-of-three pivot over `values[from..to]`: afterwards `values[k]` is
 * the k-th smallest of that range, everything in the range left of it ≤ it and everything right ≥ it.
 * Falls back to sorting a range that keeps failing to shrink, so adversarial orderings cannot make it quadratic.
 */
function selectKth(values: Float64Array, k: number, from: number, to: number): void {
  let left = from;
  let right = to;
  let budget = 2 * Math.ceil(Math.log2(to - from + 2)) + 8;
  while (right - left > INSERTION_SORT_SIZE) {
    if (budget-- === 0) {
      values.subarray(left, right + 1).sort();
      return;
    }
    const middle = (left + right) >>> 1;
    const pivot = medianOfThree(values[left] as number, values[middle] as number, values[right] as number);
    let low = left;
    let high = right;
    while (low <= high) {
      while ((values[low] as number) < pivot) low += 1;
      while ((values[high] as number) > pivot) high -= 1;
      if (low <= high) {
        const swap = values[low] as number;
        values[low] = values[high] as number;
        values[high] = swap;
        low += 1;
        high -= 1;
      }
    }
    if (k <= high) right = high;
    else if (k >= low) left = low;
    else return;
  }
  for (let index = left + 1; index <= right; index += 1) {
    const value = values[index] as number;
    let position = index - 1;
    while (position >= left && (values[position] as number) > value) {
      values[position + 1] = values[position] as number;
      position -= 1;
    }
    values[position + 1] = value;
  }
}
