/** How a result's rows reach its column statistics: cells gathered per column a chunk at a time, and the last rows kept. */
import type { Row } from '../domain/index.js';
import type { ColumnAccumulator } from './column-accumulator.js';

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
export class RowFeed {
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
export class RowRing {
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
