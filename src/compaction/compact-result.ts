/**
 * `compactResult`: the deterministic per-step digest of a query result (analysis-phase-compaction seed).
 *
 * What the digest holds, and the decisions behind it (docs for prompt authors and reviewers):
 * - `row_count`, and one `ColumnSummary` per column: kind, null_count, distinct; min/p25/median/p75/max
 *   for numbers; min_time/max_time for timestamps; the top 3 values (with counts) for string and boolean
 *   columns of at most TOP_VALUE_CARDINALITY distinct values.
 * - Kind: the engine type when it declares one (see `kindOfEngineType`), else inferred from the values;
 *   ISO-8601 date/timestamp strings count as timestamps. A value that contradicts the declared type, or
 *   values of several kinds, make the column `mixed` (count-only statistics).
 * - Nulls: null, missing keys, NaN and ±Infinity all count toward null_count and never enter statistics.
 * - Distinct: exact up to EXACT_DISTINCT_CAP values per column, then a HyperLogLog estimate (≈0.8 % standard
 *   error) with `distinct_approx: true`. Numbers are counted exactly while all of them are kept for the
 *   quantiles (up to QUANTILE_EXACT_CAP). Timestamps count by instant (`…10:00+02:00` and `…08:00Z` are
 *   one value). Past 2,048 distinct strings a string is remembered by a 53-bit fingerprint (a collision,
 *   which would undercount by one, has odds of about one in 10^8 at 10,000 strings).
 * - Quantiles: exact, linear interpolation (Hyndman & Fan type 7) up to QUANTILE_EXACT_CAP values per column,
 *   then from a fixed-seed reservoir sample (rank error ≈ ±1.1 % at three sigma) with `quantiles_approx: true`.
 *   Min and max are always exact. All five are rounded together to 6 significant digits unless all are
 *   safe integers (see `stableNumbers`).
 * - Rows: ≤ COMPACT_INLINE_THRESHOLD rows → `all_rows` holds every row and `head_rows` is empty (it would
 *   only repeat the first rows of `all_rows`); otherwise `head_rows` holds the first HEAD_TAIL_ROW_COUNT rows
 *   and `tail_rows` the last HEAD_TAIL_ROW_COUNT.
 * - Size bound, whatever the data: string cells, top values and column names are cut at CELL_MAX_CHARS with
 *   a `…(+N chars)` marker; at most DIGEST_MAX_COLUMNS columns are summarised (the least-null ones, shown in
 *   result order; `column_count` and `omitted_columns` say what was left out) and shown rows carry at most
 *   ROW_MAX_COLUMNS of those columns.
 * Input: `compactResult` takes the rows as an array or any iterable; `createDigestBuilder` takes them pushed
 * one at a time, with the column list or without it (the columns are then the rows' keys, found as they come).
 * Pure: no clock, no locale, no randomness beyond a fixed seed; key order is fixed, so the same input
 * serialises to the same bytes. O(rows × columns) time, memory bounded per column.
 *
 * Speed (`npm run bench -- compaction`): the digest should cost no more than JSON.stringify of the same
 * rows. One pass over the rows; each column keeps typed state (a Float64Array of numbers, hash tables
 * over typed arrays, counters) and reads its cells in a loop specialised to its declared kind (see
 * `RowFeed`), so nothing is allocated per cell. The one exception to "one pass": a wide result held in
 * an array (more than DIGEST_MAX_COLUMNS columns) first counts nulls, to summarise only the columns it
 * will show; a streamed one accumulates every column and chooses at the end, with the same result.
 */
import type { Cell, ColumnKind, ColumnSummary, CompactResult, Row, ValueCount } from '../domain/index.js';
import { clipText } from './clip.js';
import { DistinctCounter } from './distinct-counter.js';
import { kindOfEngineType } from './engine-type.js';
import { parseIsoTimestamp } from './iso-timestamp.js';
import { QUANTILE_EXACT_CAP, QuantileSample, countDistinct } from './quantile-sample.js';
import { stableNumbers } from './stable-number.js';

/** Results this small are inlined whole: a digest would not be shorter and the rows say more. */
export const COMPACT_INLINE_THRESHOLD = 20;
/** Above this many distinct values a column may hold identifiers or PII: its values are never shown as top values. */
export const TOP_VALUE_CARDINALITY = 20;
/** Rows shown from each end of a larger result: enough to see the shape and the ordering. */
export const HEAD_TAIL_ROW_COUNT = 5;
/** Top values per low-cardinality column: the dominant categories without listing them all. */
export const TOP_VALUE_COUNT = 3;
/** Longest string kept in a cell, top value or column name: one huge cell must not blow the digest. */
export const CELL_MAX_CHARS = 64;
/** Columns summarised at most: wide (200+ column) results stay a bounded size. */
export const DIGEST_MAX_COLUMNS = 40;
/** Columns shown per head/tail/all row at most: rows are examples, the summaries carry the width. */
export const ROW_MAX_COLUMNS = 20;
/** Names listed in `omitted_columns` at most; `column_count` still gives the total. */
export const OMITTED_COLUMN_NAMES_MAX = 40;

export interface ResultColumn {
  name: string;
  /** The engine's type name (`BIGINT`, `varchar`, `TIMESTAMP WITH TIME ZONE` …), when known. */
  type?: string;
}

/**
 * Build the digest of one query result. `rows` may be any iterable, so huge results can be streamed
 * (see `createDigestBuilder`, which a stream goes through).
 */
export function compactResult(columns: readonly ResultColumn[], rows: Iterable<Row>): CompactResult {
  if (!Array.isArray(rows)) {
    const builder = createDigestBuilder(columns);
    for (const row of rows) builder.add(row);
    return builder.finish();
  }
  const rowArray = rows as readonly Row[];
  const unique = uniqueColumns(columns).map((column) => ({ name: column.name, kind: kindOfEngineType(column.type) }));
  const rowCount = rowArray.length;
  let chosen = unique;
  let omitted: string[] = [];
  if (unique.length > DIGEST_MAX_COLUMNS) {
    // A wide result held in memory: count nulls first (cheap), then gather statistics only for the
    // columns that will be summarised, instead of for all of them and discarding most.
    const nulls = unique.map((column) => countNulls(rowArray, column.name, column.kind));
    const kept = new Set(densestPositions(nulls));
    chosen = unique.filter((_, position) => kept.has(position));
    omitted = unique.filter((_, position) => !kept.has(position)).map((column) => column.name);
  }
  const summarised = chosen.map((column) => createAccumulator(column.name, column.kind, rowCount));
  const feed = new RowFeed(summarised, chosen.length === unique.length, false);
  for (let index = 0; index < rowCount; index += 1) feed.add(rowArray[index] as Row);
  feed.flush();
  return assembleDigest({
    summarised,
    omitted,
    columnCount: unique.length,
    rowCount,
    firstRows: rowArray.slice(0, COMPACT_INLINE_THRESHOLD),
    lastRows: rowArray.slice(Math.max(0, rowCount - HEAD_TAIL_ROW_COUNT)),
  });
}

/** Takes a result's rows one at a time, in order, and builds their digest once the last one is in. */
export interface DigestBuilder {
  add(row: Row): void;
  /** The digest of every row added; call once, after the last row. */
  finish(): CompactResult;
}

/**
 * A digest built row by row, in memory bounded by the column count (the rows themselves are not kept,
 * only the first COMPACT_INLINE_THRESHOLD and the last HEAD_TAIL_ROW_COUNT).
 *
 * With `columns`, those are the result's columns (in that order, with their engine types): keys a row has
 * beyond them are ignored, columns it lacks read as null; the digest equals `compactResult(columns, rows)`.
 * Without, the columns are the rows' keys in first-seen order, as `columnsFromRows` lists them: a key that
 * first appears in a later row becomes a column that was null in every earlier row, and the digest equals
 * `compactResult(columnsFromRows(rows), rows)`, without holding the rows to list their keys first.
 */
export function createDigestBuilder(columns?: readonly ResultColumn[]): DigestBuilder {
  return new StreamedDigest(columns);
}

/** A stream is read once: every column is accumulated, and the densest are chosen at the end. */
class StreamedDigest implements DigestBuilder {
  private readonly accumulators: ColumnAccumulator[];
  /** Columns found in the rows so far; undefined when the columns were declared. */
  private readonly discovered: Set<string> | undefined;
  private feed: RowFeed;
  private readonly firstRows: Row[] = [];
  private readonly lastRows = new RowRing(HEAD_TAIL_ROW_COUNT);
  private rowCount = 0;
  private finished = false;

  constructor(columns: readonly ResultColumn[] | undefined) {
    if (columns === undefined) {
      this.accumulators = [];
      this.discovered = new Set();
    } else {
      this.accumulators = uniqueColumns(columns).map((column) => createAccumulator(column.name, kindOfEngineType(column.type), undefined));
      this.discovered = undefined;
    }
    this.feed = new RowFeed(this.accumulators, true, this.discovered !== undefined);
  }

  add(row: Row): void {
    if (this.finished) throw new Error('DigestBuilder.add called after finish');
    if (!this.feed.add(row)) {
      this.addColumnsOf(row);
      this.feed.add(row);
    }
    if (this.rowCount < COMPACT_INLINE_THRESHOLD) this.firstRows.push(row);
    this.lastRows.push(row);
    this.rowCount += 1;
  }

  finish(): CompactResult {
    if (this.finished) throw new Error('DigestBuilder.finish called twice');
    this.finished = true;
    this.feed.flush();
    const accumulators = this.accumulators;
    const kept = new Set(densestPositions(accumulators.map((accumulator) => accumulator.nullCount)));
    return assembleDigest({
      summarised: accumulators.filter((_, position) => kept.has(position)),
      omitted: accumulators.filter((_, position) => !kept.has(position)).map((accumulator) => accumulator.name),
      columnCount: accumulators.length,
      rowCount: this.rowCount,
      firstRows: this.firstRows,
      lastRows: this.lastRows.toArray(),
    });
  }

  /**
   * New columns from a row that has keys no earlier row had: each was missing, so null, in every row
   * before. The rows buffered so far are handed over first, then the feed is rebuilt for the wider list.
   */
  private addColumnsOf(row: Row): void {
    const discovered = this.discovered as Set<string>;
    this.feed.flush();
    for (const name in row) {
      if (discovered.has(name)) continue;
      discovered.add(name);
      const accumulator = createAccumulator(name, undefined, undefined);
      accumulator.nullCount = this.rowCount;
      this.accumulators.push(accumulator);
    }
    this.feed = new RowFeed(this.accumulators, true, true);
  }
}

interface DigestParts {
  /** The columns summarised, in result order. */
  summarised: readonly ColumnAccumulator[];
  /** Names of the columns left out (see DIGEST_MAX_COLUMNS). */
  omitted: readonly string[];
  columnCount: number;
  rowCount: number;
  /** The first COMPACT_INLINE_THRESHOLD rows (or all, when fewer). */
  firstRows: readonly Row[];
  /** The last HEAD_TAIL_ROW_COUNT rows (or all, when fewer). */
  lastRows: readonly Row[];
}

function assembleDigest({ summarised, omitted, columnCount, rowCount, firstRows, lastRows }: DigestParts): CompactResult {
  const shownNames = summarised.slice(0, ROW_MAX_COLUMNS).map((accumulator) => accumulator.name);
  const digest: CompactResult = {
    row_count: rowCount,
    columns: summarised.map((accumulator) => accumulator.summary(rowCount)),
    head_rows: rowCount <= COMPACT_INLINE_THRESHOLD ? [] : firstRows.slice(0, HEAD_TAIL_ROW_COUNT).map((row) => shownRow(row, shownNames)),
  };
  if (rowCount > COMPACT_INLINE_THRESHOLD) digest.tail_rows = lastRows.map((row) => shownRow(row, shownNames));
  else digest.all_rows = firstRows.map((row) => shownRow(row, shownNames));
  if (omitted.length > 0) {
    digest.column_count = columnCount;
    digest.omitted_columns = omitted.slice(0, OMITTED_COLUMN_NAMES_MAX).map((name) => clipText(name, CELL_MAX_CHARS));
  }
  return digest;
}

/** Columns in first-seen key order, for row arrays that come without a column list (CLI input, old steps). */
export function columnsFromRows(rows: Iterable<Row>): ResultColumn[] {
  const names = new Set<string>();
  for (const row of rows) for (const name of Object.keys(row)) names.add(name);
  return [...names].map((name) => ({ name }));
}

function uniqueColumns(columns: readonly ResultColumn[]): ResultColumn[] {
  const seen = new Set<string>();
  return columns.filter((column) => {
    if (seen.has(column.name)) return false;
    seen.add(column.name);
    return true;
  });
}

/**
 * Positions of the DIGEST_MAX_COLUMNS least-null columns (ties: result order), in result order so the
 * digest reads like the query; every position when there are no more than that.
 */
function densestPositions(nullCounts: readonly number[]): number[] {
  const positions = nullCounts.map((_, position) => position);
  if (positions.length <= DIGEST_MAX_COLUMNS) return positions;
  return positions
    .sort((left, right) => (nullCounts[left] as number) - (nullCounts[right] as number) || left - right)
    .slice(0, DIGEST_MAX_COLUMNS)
    .sort((left, right) => left - right);
}

/** Nulls of one column, counted exactly as its accumulator would count them (see `isNullCell`). */
function countNulls(rows: readonly Row[], name: string, declaredKind: ColumnKind | undefined): number {
  let nulls = 0;
  for (let index = 0; index < rows.length; index += 1) if (isNullCell((rows[index] as Row)[name], declaredKind)) nulls += 1;
  return nulls;
}

/** Null, missing, NaN, ±Infinity, and in a declared number column the text of a non-finite number. */
function isNullCell(cell: unknown, declaredKind: ColumnKind | undefined): boolean {
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

function shownRow(row: Row, names: readonly string[]): Row {
  const shown: Row = {};
  for (const name of names) shown[clipText(name, CELL_MAX_CHARS)] = shownCell(row[name]);
  return shown;
}

function shownCell(cell: unknown): Cell {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'string') return clipText(cell, CELL_MAX_CHARS);
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell === 'boolean') return cell;
  return clipText(textOfValue(cell), CELL_MAX_CHARS);
}

/** Nested values (lists, structs) that reach a digest despite the `Cell` type are shown as JSON text. */
function textOfValue(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Rows whose cells are gathered per column before each column takes them in one call. */
const CHUNK_ROWS = 256;
/**
 * Above this many columns a row is read column by column by name instead of by walking its keys: V8
 * keeps objects with more than 128 properties as hash tables, where `for…in` has no fast path.
 */
const KEY_WALK_MAX_COLUMNS = 128;

/**
 * Hands the cells of each row to their columns, a chunk of rows at a time. Each cell goes into its
 * column's buffer; every CHUNK_ROWS rows each column takes its buffer in one `addCells` call, a loop
 * specialised to the column's kind that sees one kind of cell, instead of one generic call per cell
 * that sees numbers, strings, booleans and nulls by turns.
 *
 * Rows of up to KEY_WALK_MAX_COLUMNS columns, all of them wanted, are read by walking their own keys with `for…in`, which V8
 * serves from the shape's enumeration cache, instead of one lookup by name per column (a megamorphic
 * keyed load that costs more than the statistics of a number cell). When the keys are exactly the
 * columns in order, as they are for rows built by a driver or by JSON.parse, matching a key is one
 * pointer comparison; any other row takes the slow path. Either way a column the row lacks reads as
 * `undefined` (null) and keys that are no column are ignored, unless the feed was built to `discover`
 * columns: then `add` takes no row with such a key and says so (see `StreamedDigest.addColumnsOf`).
 */
class RowFeed {
  private readonly names: string[];
  private readonly positions: Map<string, number>;
  private readonly buffers: unknown[][];
  private readonly walkKeys: boolean;
  private readonly discover: boolean;
  /** Wide rows only: the chunk's rows, read column by column at `flush`. */
  private readonly chunk: Row[] = [];
  private rows = 0;

  /**
   * `everyColumn`: the accumulators are all the result's columns (else some are skipped, and keys are no guide).
   * `discover`: a key that is no column is a column still to add, not one to ignore.
   */
  constructor(
    private readonly accumulators: readonly ColumnAccumulator[],
    everyColumn: boolean,
    discover: boolean,
  ) {
    this.names = accumulators.map((accumulator) => accumulator.name);
    this.positions = new Map(this.names.map((name, position) => [name, position]));
    this.buffers = accumulators.map(() => new Array<unknown>(CHUNK_ROWS).fill(null));
    this.walkKeys = everyColumn && accumulators.length <= KEY_WALK_MAX_COLUMNS;
    this.discover = discover;
  }

  /** False, and the row is not taken, when the feed discovers columns and the row has a key that is none yet. */
  add(row: Row): boolean {
    const at = this.rows;
    if (this.walkKeys) {
      if (!this.addByKeys(row, at)) return false;
    } else {
      if (this.discover && this.hasUnknownKey(row)) return false;
      this.chunk[at] = row;
    }
    this.rows = at + 1;
    if (this.rows === CHUNK_ROWS) this.flush();
    return true;
  }

  /** Hand every buffered cell over; call after the last row. */
  flush(): void {
    const count = this.rows;
    if (count === 0) return;
    for (let column = 0; column < this.accumulators.length; column += 1) {
      const buffer = this.buffers[column] as unknown[];
      if (!this.walkKeys) {
        const name = this.names[column] as string;
        for (let index = 0; index < count; index += 1) buffer[index] = (this.chunk[index] as Row)[name];
      }
      (this.accumulators[column] as ColumnAccumulator).addCells(buffer, count);
    }
    this.rows = 0;
  }

  private addByKeys(row: Row, at: number): boolean {
    const names = this.names;
    const buffers = this.buffers;
    const width = names.length;
    let position = 0;
    for (const key in row) {
      if (position === width || key !== names[position]) {
        position = -1;
        break;
      }
      (buffers[position] as unknown[])[at] = row[key];
      position += 1;
    }
    return position === width || this.addByName(row, at);
  }

  /** A row whose keys are not exactly the columns in order. Cells written before a refusal are overwritten by the next row. */
  private addByName(row: Row, at: number): boolean {
    for (const buffer of this.buffers) buffer[at] = undefined;
    for (const key in row) {
      const column = this.positions.get(key);
      if (column !== undefined) (this.buffers[column] as unknown[])[at] = row[key];
      else if (this.discover) return false;
    }
    return true;
  }

  private hasUnknownKey(row: Row): boolean {
    for (const key in row) if (!this.positions.has(key)) return true;
    return false;
  }
}

/** The last N rows seen, in order, in O(N) memory. */
class RowRing {
  private readonly slots: Row[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  push(row: Row): void {
    if (this.slots.length < this.capacity) this.slots.push(row);
    else this.slots[this.next] = row;
    this.next = (this.next + 1) % this.capacity;
  }

  toArray(): Row[] {
    if (this.slots.length < this.capacity) return [...this.slots];
    return [...this.slots.slice(this.next), ...this.slots.slice(0, this.next)];
  }
}

/** Which kinds of value a column has shown so far (a bit set, so inference is one OR per cell). */
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
class ColumnAccumulator {
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

function createAccumulator(name: string, declaredKind: ColumnKind | undefined, expectedRows: number | undefined): ColumnAccumulator {
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

/**
 * `String.prototype.charCodeAt`, held in a constant and called with `.call`. Once any loaded module
 * defines a `class … extends String` (ioredis does, and the fleet workers load it), V8 stops inlining
 * `text.charCodeAt(i)` and every call costs about four times as much; a call through the constant keeps
 * the inlined builtin either way.
 */
const charCodeAt = String.prototype.charCodeAt;
const CHAR_0 = 48;
const CHAR_DOT = 46;
const CHAR_MINUS = 45;
/** Powers of ten that are exact doubles. */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);

/**
 * `Number(text.trim())` for the decimal strings engines send (`-1234.50`), several times faster: with at
 * most 15 digits the digits form an exact integer and one division by an exact power of ten rounds
 * correctly, so the result is the very double `Number` returns. Anything else goes to `Number`.
 */
function parseDecimal(text: string): number {
  const length = text.length;
  if (length === 0 || length > 16) return numberOfText(text);
  let index = charCodeAt.call(text, 0) === CHAR_MINUS ? 1 : 0;
  if (index === length) return numberOfText(text);
  let digits = 0;
  let mantissa = 0;
  let fractionDigits = -1;
  for (; index < length; index += 1) {
    const code = charCodeAt.call(text, index);
    if (code === CHAR_DOT && fractionDigits < 0) {
      fractionDigits = 0;
      continue;
    }
    const digit = code - CHAR_0;
    if (digit < 0 || digit > 9) return numberOfText(text);
    mantissa = mantissa * 10 + digit;
    digits += 1;
    if (fractionDigits >= 0) fractionDigits += 1;
  }
  if (digits === 0 || digits > 15) return numberOfText(text);
  const value = fractionDigits > 0 ? mantissa / (EXACT_POWERS_OF_TEN[fractionDigits] as number) : mantissa;
  return charCodeAt.call(text, 0) === CHAR_MINUS ? -value : value;
}

function numberOfText(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? Number.NaN : Number(trimmed);
}
