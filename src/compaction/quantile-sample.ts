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
 */

/** 20k doubles = 160 KiB per numeric column; exact for typical aggregates, bounded for million-row results. */
export const QUANTILE_EXACT_CAP = 20_000;
const INITIAL_CAPACITY = 256;
/** Any fixed seed works; fixing it is what makes the reservoir deterministic. */
const RESERVOIR_SEED = 0x9e3779b9;

export interface Quartiles {
  p25: number;
  median: number;
  p75: number;
}

export class QuantileSample {
  private values = new Float64Array(INITIAL_CAPACITY);
  private seen = 0;
  private randomState = RESERVOIR_SEED;

  add(value: number): void {
    const position = this.seen;
    this.seen += 1;
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

  quartiles(): Quartiles | undefined {
    const size = Math.min(this.seen, QUANTILE_EXACT_CAP);
    if (size === 0) return undefined;
    // Selection instead of a full sort: three order statistics (and their right neighbours) in O(n).
    const values = this.values.slice(0, size);
    return { p25: interpolate(values, 0.25), median: interpolate(values, 0.5), p75: interpolate(values, 0.75) };
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

/** Type-7 quantile of `values`, which it partially reorders in place. */
function interpolate(values: Float64Array, quantile: number): number {
  const position = (values.length - 1) * quantile;
  const lowerIndex = Math.floor(position);
  const lower = selectKth(values, lowerIndex);
  const fraction = position - lowerIndex;
  if (fraction === 0) return lower;
  // After selection everything right of lowerIndex is ≥ lower; the next order statistic is their minimum.
  let upper = Number.POSITIVE_INFINITY;
  for (let index = lowerIndex + 1; index < values.length; index += 1)
    if ((values[index] as number) < upper) upper = values[index] as number;
  // The weighted form cannot overflow when lower and upper are huge and of opposite signs.
  const value = (1 - fraction) * lower + fraction * upper;
  return Math.min(Math.max(value, lower), upper);
}

/** Below this size a partition is finished by insertion sort. */
const INSERTION_SORT_SIZE = 16;

/**
 * Hoare-style quickselect with a median-of-three pivot: afterwards `values[k]` is the k-th smallest,
 * everything left of it ≤ it and everything right ≥ it. Falls back to sorting a range that keeps
 * failing to shrink, so adversarial orderings cannot make it quadratic.
 */
function selectKth(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  let budget = 2 * Math.ceil(Math.log2(values.length + 1)) + 8;
  while (right - left > INSERTION_SORT_SIZE) {
    if (budget-- === 0) {
      values.subarray(left, right + 1).sort();
      return values[k] as number;
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
    else return values[k] as number;
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
  return values[k] as number;
}

function medianOfThree(first: number, second: number, third: number): number {
  if (first < second) return second < third ? second : first < third ? third : first;
  return first < third ? first : second < third ? third : second;
}
