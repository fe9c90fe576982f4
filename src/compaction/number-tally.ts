/**
 * Exact per-value counts of finite numbers in an open-addressing hash table over typed arrays. A `Map`
 * keyed by numbers boxes every double and hashes it generically; this is several times faster on the
 * digest's hot path and holds 12 bytes per slot, none of it seen by the garbage collector. A slot is
 * empty while its count is 0, so a new table is the arrays as allocated (zeroed), with nothing to fill.
 * The slots in use are also listed in insertion order, so reading or clearing the table costs its
 * size, not its capacity. Grows by doubling, at most load 1/2.
 */
import { medianOfThree } from './sort-pivot.js';

const MIN_CAPACITY = 64;
const float64 = new Float64Array(1);
const words = new Uint32Array(float64.buffer);

export class NumberTally {
  private keys: Float64Array;
  private counts: Int32Array;
  /** The slot of each value, in insertion order (`size` of them). */
  private used: Int32Array;
  private mask: number;
  size = 0;

  /** `expected`: how many distinct values may come, so a table filled in one go need not grow. */
  constructor(expected = 0) {
    const capacity = capacityFor(expected);
    this.keys = new Float64Array(capacity);
    this.counts = new Int32Array(capacity);
    this.used = new Int32Array(capacity / 2 + 1);
    this.mask = capacity - 1;
  }

  /** Empty the table for reuse, keeping its arrays when they are large enough for `expected` values. */
  clear(expected = 0): void {
    const capacity = capacityFor(expected);
    if (this.keys.length < capacity) {
      this.keys = new Float64Array(capacity);
      this.counts = new Int32Array(capacity);
      this.used = new Int32Array(capacity / 2 + 1);
      this.mask = capacity - 1;
    } else for (let index = 0; index < this.size; index += 1) this.counts[this.used[index] as number] = 0;
    this.size = 0;
  }

  /** Slots in use: the table's memory is 12 bytes per slot. */
  get capacity(): number {
    return this.keys.length;
  }

  /** Count one finite `value`; returns true when it was not in the table before. */
  add(value: number): boolean {
    const key = value === 0 ? 0 : value; // -0 and 0 are one value, as in a Map
    const keys = this.keys;
    const counts = this.counts;
    const mask = this.mask;
    let slot = slotOf(key) & mask;
    for (;;) {
      const count = counts[slot] as number;
      if (count === 0) break; // an empty slot
      if (keys[slot] === key) {
        counts[slot] = count + 1;
        return false;
      }
      slot = (slot + 1) & mask;
    }
    keys[slot] = key;
    counts[slot] = 1;
    this.used[this.size] = slot;
    this.size += 1;
    if (this.size * 2 > keys.length) this.grow();
    return true;
  }

  has(value: number): boolean {
    const key = value === 0 ? 0 : value;
    let slot = slotOf(key) & this.mask;
    for (;;) {
      if (this.counts[slot] === 0) return false;
      if (this.keys[slot] === key) return true;
      slot = (slot + 1) & this.mask;
    }
  }

  /** The values in ascending order, with their counts at the same positions. */
  sorted(): { values: Float64Array; counts: Int32Array } {
    const size = this.size;
    const values = new Float64Array(size);
    const counts = new Int32Array(size);
    for (let index = 0; index < size; index += 1) {
      const slot = this.used[index] as number;
      values[index] = this.keys[slot] as number;
      counts[index] = this.counts[slot] as number;
    }
    sortAscending(values, counts, 0, size - 1);
    return { values, counts };
  }

  /** Every value, in insertion order. */
  values(): Float64Array {
    const values = new Float64Array(this.size);
    for (let index = 0; index < this.size; index += 1) values[index] = this.keys[this.used[index] as number] as number;
    return values;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldCounts = this.counts;
    const oldUsed = this.used;
    const capacity = oldKeys.length * 2;
    const keys = new Float64Array(capacity);
    const counts = new Int32Array(capacity);
    const used = new Int32Array(capacity / 2 + 1);
    const mask = capacity - 1;
    for (let index = 0; index < this.size; index += 1) {
      const oldSlot = oldUsed[index] as number;
      const key = oldKeys[oldSlot] as number;
      let slot = slotOf(key) & mask;
      while (counts[slot] !== 0) slot = (slot + 1) & mask;
      keys[slot] = key;
      counts[slot] = oldCounts[oldSlot] as number;
      used[index] = slot;
    }
    this.keys = keys;
    this.counts = counts;
    this.used = used;
    this.mask = mask;
  }
}

function capacityFor(expected: number): number {
  let capacity = MIN_CAPACITY;
  while (capacity < expected * 2) capacity *= 2;
  return capacity;
}

/** Mix the two 32-bit words of the double's bits (murmur3 finaliser) into a table slot. */
function slotOf(key: number): number {
  float64[0] = key;
  let hash = Math.imul((words[0] as number) ^ Math.imul(words[1] as number, 0x9e3779b1), 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/**
 * In-place quicksort of finite doubles, moving `counts` along (median-of-three pivot, insertion sort below
 * 16 elements). Recurses into the smaller part and loops over the larger, so the depth stays logarithmic.
 */
function sortAscending(values: Float64Array, counts: Int32Array, from: number, to: number): void {
  let left = from;
  let right = to;
  while (right - left > 16) {
    const middle = (left + right) >>> 1;
    const pivot = medianOfThree(values[left] as number, values[middle] as number, values[right] as number);
    let low = left;
    let high = right;
    while (low <= high) {
      while ((values[low] as number) < pivot) low += 1;
      while ((values[high] as number) > pivot) high -= 1;
      if (low <= high) {
        swap(values, counts, low, high);
        low += 1;
        high -= 1;
      }
    }
    if (high - left < right - low) {
      sortAscending(values, counts, left, high);
      left = low;
    } else {
      sortAscending(values, counts, low, right);
      right = high;
    }
  }
  for (let index = left + 1; index <= right; index += 1) {
    const value = values[index] as number;
    const count = counts[index] as number;
    let position = index - 1;
    while (position >= left && (values[position] as number) > value) {
      values[position + 1] = values[position] as number;
      counts[position + 1] = counts[position] as number;
      position -= 1;
    }
    values[position + 1] = value;
    counts[position + 1] = count;
  }
}

function swap(values: Float64Array, counts: Int32Array, left: number, right: number): void {
  const value = values[left] as number;
  values[left] = values[right] as number;
  values[right] = value;
  const count = counts[left] as number;
  counts[left] = counts[right] as number;
  counts[right] = count;
}
