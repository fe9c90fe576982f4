/**
 * Streaming statistics of one result column, for the digest (`compactResult`): kind inference, nulls,
 * distinct counts, quantiles, time range and top values, in state bounded whatever the row count.
 */
import type { ColumnKind, ColumnSummary, ValueCount } from '../domain/index.js';
import { clipText } from './clip.js';
import { parseDecimal } from './decimal-text.js';
import { CELL_MAX_CHARS, TOP_VALUE_CARDINALITY, TOP_VALUE_COUNT } from './digest-limits.js';
import { DistinctCounter } from './distinct-counter.js';
import { parseIsoTimestamp } from './iso-timestamp.js';
import { QUANTILE_EXACT_CAP, QuantileSample, countDistinct } from './quantile-sample.js';
import { stableNumbers } from './stable-number.js';

const SEEN_NUMBER = 1;
const SEEN_STRING = 2;
const SEEN_BOOLEAN = 4;
const SEEN_TIMESTAMP = 8;
/** A value that contradicts the declared engine type. */
const SEEN_CONTRADICTION = 16;

const KIND_BY_SEEN: ReadonlyMap<number, ColumnKind> = new Map([
  [0, 'null'],
  [SEEN_NUMBER, 'number'],
  [SEEN_STRING, 'string'],
  [SEEN_BOOLEAN, 'boolean'],
  [SEEN_TIMESTAMP, 'timestamp'],
]);

/** Local copy for the hot loop (an imported binding may be a getter call under some module loaders). */
const NUMBERS_KEPT = QUANTILE_EXACT_CAP;

const NON_FINITE_LITERALS = new Set(['NaN', 'Infinity', '+Infinity', '-Infinity', 'inf', '-inf', 'nan']);

/**
 * Streaming statistics of one column; everything it keeps is bounded, whatever the row count. The state
 * is plain numbers and typed arrays: a number cell is a store into the quantile buffer and two
 * comparisons, a string cell one map lookup, a boolean one increment; nothing is allocated per cell.
 * This class reads any cell (`add`), for columns whose kind is inferred from the values; the subclasses
 * below read the cells of a declared kind in a tighter loop and hand anything unexpected to `add`.
 */
export class ColumnAccumulator {
  nullCount = 0;
  protected seen = 0;
  private trueCount = 0;
  private falseCount = 0;
  protected readonly distinct: DistinctCounter;
  private numbers: QuantileSample | undefined;
  /** Timestamps as instants, while there are at most NUMBERS_KEPT of them. */
  private instants: Float64Array | undefined;
  private instantCount = 0;
  private instantsInOrder = true;
  private lastInstant = Number.NEGATIVE_INFINITY;
  private minNumber = Number.POSITIVE_INFINITY;
  private maxNumber = Number.NEGATIVE_INFINITY;
  private minTimeMs = Number.POSITIVE_INFINITY;
  private minTimeText = '';
  private maxTimeMs = Number.NEGATIVE_INFINITY;
  private maxTimeText = '';
  private readonly acceptsNumbers: boolean;
  private readonly acceptsBooleans: boolean;
  private readonly readsTimestamps: boolean;

  constructor(
    readonly name: string,
    private readonly declaredKind: ColumnKind | undefined,
    /** The row count when known up front, so the quantile buffer is allocated once. */
    private readonly expectedRows: number | undefined,
  ) {
    // Numbers are counted by the quantile buffer until it overflows (QUANTILE_EXACT_CAP), so only the rest is expected here.
    this.distinct = new DistinctCounter(
      TOP_VALUE_CARDINALITY,
      declaredKind === 'number' ? Math.max(0, (expectedRows ?? 0) - QUANTILE_EXACT_CAP) : (expectedRows ?? 0),
    );
    this.acceptsNumbers = declaredKind === undefined || declaredKind === 'number';
    this.acceptsBooleans = declaredKind === undefined || declaredKind === 'boolean';
    this.readsTimestamps = declaredKind === undefined || declaredKind === 'timestamp';
  }

  /** Take the first `count` cells of `cells`, one per row, in row order (`undefined`: the row lacks the column). */
  addCells(cells: readonly unknown[], count: number): void {
    for (let index = 0; index < count; index += 1) this.add(cells[index]);
  }

  add(cell: unknown): void {
    switch (typeof cell) {
      case 'number':
        if (cell - cell !== 0)
          this.nullCount += 1; // NaN and ±Infinity
        else if (this.acceptsNumbers) this.addNumber(cell);
        else this.addContradictingNumber(cell);
        return;
      case 'string':
        if (this.declaredKind === 'number') this.addNumericText(cell);
        else this.addString(cell);
        return;
      case 'boolean':
        this.addBoolean(cell);
        return;
      case 'undefined':
        this.nullCount += 1;
        return;
      case 'bigint':
        // Beyond 2^53 the statistics lose precision, which is fine for a digest.
        this.add(Number(cell));
        return;
      default:
        if (cell === null) this.nullCount += 1;
        else this.addContradictingText(textOfValue(cell));
    }
  }

  protected addBoolean(value: boolean): void {
    if (value) this.trueCount += 1;
    else this.falseCount += 1;
    this.seen |= this.acceptsBooleans ? SEEN_BOOLEAN : SEEN_CONTRADICTION;
  }

  protected addNumber(value: number): void {
    this.seen |= SEEN_NUMBER;
    if (value < this.minNumber) this.minNumber = value;
    if (value > this.maxNumber) this.maxNumber = value;
    let numbers = this.numbers;
    if (numbers === undefined) {
      numbers = new QuantileSample(this.expectedRows);
      this.numbers = numbers;
    }
    const count = numbers.count;
    if (count >= NUMBERS_KEPT) {
      // The buffer stops holding every value: from here on distinct numbers are counted as they come.
      if (count === NUMBERS_KEPT) for (const kept of numbers.keptValues()) this.distinct.addNumber(kept);
      this.distinct.addNumber(value);
    }
    numbers.add(value);
  }

  /** Engines hand big integers and decimals over as strings to keep them exact in JSON. */
  protected addNumericText(text: string): void {
    const value = parseDecimal(text);
    if (value - value === 0) this.addNumber(value);
    else if (NON_FINITE_LITERALS.has(text.trim())) this.nullCount += 1;
    else this.addContradictingText(text);
  }

  protected addString(text: string): void {
    if (this.readsTimestamps) {
      // Every cell is checked (a cheap shape test rejects most non-dates): a timestamp counts by its instant.
      const epochMs = parseIsoTimestamp(text);
      if (epochMs !== undefined) this.addTimestamp(text, epochMs);
      else if (this.declaredKind === undefined) {
        this.seen |= SEEN_STRING;
        this.distinct.addString(text);
      } else this.addContradictingText(text);
      return;
    }
    this.seen |= this.declaredKind === 'string' ? SEEN_STRING : SEEN_CONTRADICTION;
    this.distinct.addString(text);
  }

  protected addTimestamp(text: string, epochMs: number): void {
    this.seen |= SEEN_TIMESTAMP;
    // Like numbers, instants are kept (up to NUMBERS_KEPT) and counted at the end; in order, as results
    // ordered by time are, counting is one comparison per value.
    const count = this.instantCount;
    if (count < NUMBERS_KEPT) {
      let instants = this.instants;
      if (instants === undefined || count === instants.length) {
        const larger = new Float64Array(Math.min(NUMBERS_KEPT, Math.max(this.expectedRows ?? 0, 256, count * 2)));
        if (instants !== undefined) larger.set(instants);
        instants = larger;
        this.instants = larger;
      }
      instants[count] = epochMs;
      if (epochMs < this.lastInstant) this.instantsInOrder = false;
      this.lastInstant = epochMs;
    } else {
      if (count === NUMBERS_KEPT) for (const kept of this.instants as Float64Array) this.distinct.addInstant(kept);
      this.distinct.addInstant(epochMs);
    }
    this.instantCount = count + 1;
    // Strict comparisons keep the first-seen text among equal instants: deterministic for a given row order.
    if (epochMs < this.minTimeMs) {
      this.minTimeMs = epochMs;
      this.minTimeText = text;
    }
    if (epochMs > this.maxTimeMs) {
      this.maxTimeMs = epochMs;
      this.maxTimeText = text;
    }
  }

  private addContradictingNumber(value: number): void {
    this.seen |= SEEN_CONTRADICTION;
    this.distinct.addNumber(value);
  }

  protected addContradictingText(text: string): void {
    this.seen |= SEEN_CONTRADICTION;
    this.distinct.addString(text);
  }

  private kind(): ColumnKind {
    if (this.declaredKind !== undefined) return (this.seen & SEEN_CONTRADICTION) !== 0 ? 'mixed' : this.declaredKind;
    return KIND_BY_SEEN.get(this.seen) ?? 'mixed';
  }

  /** Call once, after the last row. */
  summary(rowCount: number): ColumnSummary {
    const kind = this.kind();
    const numbers = this.numbers?.summarise();
    const summary: ColumnSummary = {
      name: clipText(this.name, CELL_MAX_CHARS),
      kind,
      null_count: this.nullCount,
      distinct: this.distinctCount(numbers?.distinct),
    };
    if (!this.distinct.exact) summary.distinct_approx = true;
    const nonNull = rowCount - this.nullCount;
    if (kind === 'number' && nonNull > 0 && numbers?.quartiles !== undefined) {
      const { p25, median, p75 } = numbers.quartiles;
      const [min, p25Shown, medianShown, p75Shown, max] = stableNumbers([this.minNumber, p25, median, p75, this.maxNumber]);
      Object.assign(summary, { min, p25: p25Shown, median: medianShown, p75: p75Shown, max });
      if (this.numbers?.approximate) summary.quantiles_approx = true;
    }
    if (kind === 'timestamp' && this.minTimeMs !== Number.POSITIVE_INFINITY) {
      summary.min_time = clipText(this.minTimeText, CELL_MAX_CHARS);
      summary.max_time = clipText(this.maxTimeText, CELL_MAX_CHARS);
    }
    if (kind === 'string' || kind === 'boolean') {
      const top = this.topValues();
      if (top !== undefined) summary.top = top;
    }
    return summary;
  }

  /** `keptDistinct`: the distinct numbers while every number is still in the quantile buffer. */
  /**
   * Values the counter saw, plus the numbers and instants still only in their buffers: counted there
   * while the counter is exact, else added to the sketch the other values overflowed into.
   * `keptDistinct`: the distinct numbers while every number is still in the quantile buffer.
   */
  private distinctCount(keptDistinct: number | undefined): number {
    const booleans = (this.trueCount > 0 ? 1 : 0) + (this.falseCount > 0 ? 1 : 0);
    const keptNumbers = keptDistinct !== undefined ? this.numbers?.keptValues() : undefined;
    const keptInstants =
      this.instantCount <= NUMBERS_KEPT && this.instants !== undefined ? this.instants.subarray(0, this.instantCount) : undefined;
    if (this.distinct.exact) {
      const instants = keptInstants === undefined ? 0 : this.instantsInOrder ? changesInOrder(keptInstants) : countDistinct(keptInstants);
      return this.distinct.distinct + (keptDistinct ?? 0) + instants + booleans;
    }
    if (keptNumbers !== undefined) for (const value of keptNumbers) this.distinct.addNumber(value);
    if (keptInstants !== undefined) for (const value of keptInstants) this.distinct.addInstant(value);
    return this.distinct.distinct + booleans;
  }

  /** Most frequent first; equal counts by value (false before true; strings by UTF-16 code units, not locale). */
  private topValues(): ValueCount[] | undefined {
    const booleans = (this.trueCount > 0 ? 1 : 0) + (this.falseCount > 0 ? 1 : 0);
    if (!this.distinct.exact || this.distinct.distinct + booleans > TOP_VALUE_CARDINALITY) return undefined;
    const counts: Array<[string | boolean, number]> = this.distinct.stringCounts() ?? [];
    if (this.falseCount > 0) counts.push([false, this.falseCount]);
    if (this.trueCount > 0) counts.push([true, this.trueCount]);
    if (counts.length === 0) return undefined;
    return counts
      .sort(([leftValue, leftCount], [rightValue, rightCount]) => rightCount - leftCount || compareValues(leftValue, rightValue))
      .slice(0, TOP_VALUE_COUNT)
      .map(([value, count]) => ({ value: typeof value === 'string' ? clipText(value, CELL_MAX_CHARS) : value, count }));
  }
}

/** A declared number column: numbers, and decimal text (how engines send exact decimals and big integers). */
class NumberColumn extends ColumnAccumulator {
  override addCells(cells: readonly unknown[], count: number): void {
    for (let index = 0; index < count; index += 1) {
      const cell = cells[index];
      if (typeof cell === 'number') {
        if (cell - cell === 0) this.addNumber(cell);
        else this.nullCount += 1; // NaN and ±Infinity
      } else if (typeof cell === 'string') this.addNumericText(cell);
      else if (cell === null || cell === undefined) this.nullCount += 1;
      else this.add(cell);
    }
  }
}

/** A declared string column: every distinct string is counted, none is read as a date. */
class StringColumn extends ColumnAccumulator {
  override addCells(cells: readonly unknown[], count: number): void {
    for (let index = 0; index < count; index += 1) {
      const cell = cells[index];
      if (typeof cell === 'string') {
        this.seen |= SEEN_STRING;
        this.distinct.addString(cell);
      } else if (cell === null || cell === undefined) this.nullCount += 1;
      else this.add(cell);
    }
  }
}

/** A declared timestamp column: ISO-8601 text, counted and ordered by instant. */
class TimestampColumn extends ColumnAccumulator {
  override addCells(cells: readonly unknown[], count: number): void {
    for (let index = 0; index < count; index += 1) {
      const cell = cells[index];
      if (typeof cell === 'string') {
        const epochMs = parseIsoTimestamp(cell);
        if (epochMs !== undefined) this.addTimestamp(cell, epochMs);
        else this.addContradictingText(cell);
      } else if (cell === null || cell === undefined) this.nullCount += 1;
      else this.add(cell);
    }
  }
}

/** A declared boolean column. */
class BooleanColumn extends ColumnAccumulator {
  override addCells(cells: readonly unknown[], count: number): void {
    for (let index = 0; index < count; index += 1) {
      const cell = cells[index];
      if (typeof cell === 'boolean') this.addBoolean(cell);
      else if (cell === null || cell === undefined) this.nullCount += 1;
      else this.add(cell);
    }
  }
}

export function createAccumulator(name: string, declaredKind: ColumnKind | undefined, expectedRows: number | undefined): ColumnAccumulator {
  switch (declaredKind) {
    case 'number':
      return new NumberColumn(name, declaredKind, expectedRows);
    case 'string':
      return new StringColumn(name, declaredKind, expectedRows);
    case 'timestamp':
      return new TimestampColumn(name, declaredKind, expectedRows);
    case 'boolean':
      return new BooleanColumn(name, declaredKind, expectedRows);
    default:
      return new ColumnAccumulator(name, declaredKind, expectedRows);
  }
}

/** Distinct values of an ascending array: one more at every change. */
function changesInOrder(values: Float64Array): number {
  if (values.length === 0) return 0;
  let distinct = 1;
  for (let index = 1; index < values.length; index += 1) if (values[index] !== values[index - 1]) distinct += 1;
  return distinct;
}

function compareValues(left: string | boolean, right: string | boolean): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

/** Null, missing, NaN, ±Infinity, and in a declared number column the text of a non-finite number. */
export function isNullCell(cell: unknown, declaredKind: ColumnKind | undefined): boolean {
  if (cell === null || cell === undefined) return true;
  switch (typeof cell) {
    case 'number':
      return cell - cell !== 0;
    case 'bigint': {
      const value = Number(cell);
      return value - value !== 0;
    }
    case 'string': {
      if (declaredKind !== 'number') return false;
      const value = parseDecimal(cell);
      return value - value !== 0 && NON_FINITE_LITERALS.has(cell.trim());
    }
    default:
      return false;
  }
}

/** Nested values (lists, structs) that reach a digest despite the `Cell` type are shown as JSON text. */
export function textOfValue(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
