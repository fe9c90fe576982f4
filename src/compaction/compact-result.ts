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
import type { Cell, ColumnKind, CompactResult, Row } from '../domain/index.js';
import { clipText } from './clip.js';
import { type ColumnAccumulator, createAccumulator, isNullCell, textOfValue } from './column-accumulator.js';
import {
  CELL_MAX_CHARS,
  COMPACT_INLINE_THRESHOLD,
  DIGEST_MAX_COLUMNS,
  HEAD_TAIL_ROW_COUNT,
  OMITTED_COLUMN_NAMES_MAX,
  ROW_MAX_COLUMNS,
} from './digest-limits.js';
import { kindOfEngineType } from './engine-type.js';
import { RowFeed, RowRing } from './row-feed.js';

export * from './digest-limits.js';

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
