/**
 * Reading a JSON query result as it arrives, for `assay compact`: text goes in chunk by chunk (`write`),
 * rows come out one by one, so the document is never held whole and memory stays bounded by the
 * largest row.
 *
 * The input forms: a top-level array of row objects, or an object whose "rows" member is that array and
 * whose optional "columns" member lists the columns (`"name"` or `{"name", "type"}`), before or after the
 * rows. A small state machine (container stack, in-string, escape) walks the structure; each row, and
 * the columns, are handed to JSON.parse on their own as soon as they are complete, so a row or a list of
 * columns is checked exactly as JSON.parse checks it. Other members of the top-level object are skipped
 * without being parsed: their brackets and strings must balance, their scalars are not checked.
 *
 * Errors are ValidationErrors that say what was expected and where: the row (`rows[3]`) and the byte
 * offset for invalid JSON, every row that is not an object (counted to the end, the first 20 listed).
 */
import { Buffer } from 'node:buffer';
import type { ResultColumn } from '../compaction/compact-result.js';
import type { Row } from '../domain/index.js';
import { ValidationError, type ValidationIssue } from '../errors/index.js';

export const EXPECTED_INPUT =
  'expected a JSON array of row objects ([{"col": 1}, …]) or an object {"columns": [{"name": "col", "type": "BIGINT"} | "col", …], "rows": [{…}, …]}';

/** Issues listed in an error at most; the message still gives the count. */
const ISSUES_LISTED = 20;

/** What the reader hands over, in document order. */
export interface ResultJsonHandler {
  /** The rows array begins (at most once per document); every `row` call follows it. */
  rowsStart(): void;
  /** One row object, with its nested values (lists, objects) turned into their JSON text. */
  row(row: Row): void;
  /** The declared columns, when the document has them: before `rowsStart` or after the last row, as written. */
  columns(columns: ResultColumn[]): void;
}

// Where the reader is in the document, between values.
const DOCUMENT = 0; // before the top-level value
const ROWS_OPEN = 1; // after the rows' `[`: a row or `]`
const ROW_EXPECTED = 2; // after a `,` between rows
const AFTER_ROW = 3; // `,` or `]`
const OBJECT_OPEN = 4; // after the top-level `{`: a key or `}`
const KEY_EXPECTED = 5; // after a `,` between members
const COLON_EXPECTED = 6;
const MEMBER_VALUE = 7;
const AFTER_MEMBER = 8; // `,` or `}`
const DONE = 9;

// What the value being scanned is for.
const NO_VALUE = 0;
const ROW_VALUE = 1;
const COLUMNS_VALUE = 2;
const KEY_VALUE = 3;
const SKIPPED_VALUE = 4;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

function isWhitespace(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB;
}

/** First characters of a number, `true`, `false` or `null`. */
function startsScalar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x74 || code === 0x66 || code === 0x6e;
}

/** The push parser: `write` each chunk of text in order, then `end`. Throws a ValidationError at the first problem. */
export class ResultJsonReader {
  private mode = DOCUMENT;
  private topLevel: 'array' | 'object' | undefined;
  /** `rows` in the object form, empty in the array form: row paths are `rows[3]` or `[3]`. */
  private rowsPath = '';
  private rowIndex = 0;
  private key = '';
  private sawRows = false;
  private sawColumns = false;
  private readonly issues: ValidationIssue[] = [];
  private issueCount = 0;

  // The value being scanned (a row, the columns, a key or a skipped member), possibly across chunks.
  private target = NO_VALUE;
  private scalar = false;
  private inString = false;
  private escaped = false;
  /** A container opened inside the value: a row with nested cells. */
  private nested = false;
  private readonly closers: number[] = [];
  /** The value's text from earlier chunks. */
  private parts: string[] = [];
  /** Where the value's text starts in the current chunk (0 when it began in an earlier one). */
  private pieceStart = 0;
  private startChunk = '';
  private startIndex = 0;
  private startChunkOffset = 0;

  // The current chunk, its byte offset in the input, and the next `"` and `\` in it (-1: none left).
  private chunk = '';
  private chunkOffset = 0;
  private nextQuote = -1;
  private nextBackslash = -1;

  constructor(
    private readonly source: string,
    private readonly handler: ResultJsonHandler,
  ) {}

  /** The top-level value's form, once its first character is read. */
  get form(): 'array' | 'object' | undefined {
    return this.topLevel;
  }

  write(text: string): void {
    this.chunkOffset += Buffer.byteLength(this.chunk);
    this.chunk = text;
    this.nextQuote = text.indexOf('"');
    this.nextBackslash = text.indexOf('\\');
    this.pieceStart = 0;
    const length = text.length;
    let index = 0;
    while (index < length) {
      if (this.target !== NO_VALUE) {
        index = this.scalar ? this.scanScalar(text, index) : this.scanValue(text, index);
        continue;
      }
      const code = text.charCodeAt(index);
      index = isWhitespace(code) ? index + 1 : this.structure(text, index, code);
    }
    if (this.target !== NO_VALUE && this.target !== SKIPPED_VALUE && this.pieceStart < length) this.parts.push(text.slice(this.pieceStart));
  }

  /** The input is over: throws when the document is incomplete, has rows that are not objects, or has no rows. */
  end(): void {
    if (this.mode === DOCUMENT && this.target === NO_VALUE) throw this.invalidJson('the input is empty', '');
    if (this.mode !== DONE || this.target !== NO_VALUE) {
      const inside = this.target === ROW_VALUE ? ` inside ${this.rowsPath}[${this.rowIndex}]` : '';
      throw this.invalidJson(`the input ends at byte ${this.offsetAt(this.chunk.length)} before the JSON is complete${inside}`, '');
    }
    if (this.issueCount > 0) {
      throw new ValidationError(
        `${this.source}: ${this.issueCount} row(s) are not objects (first at ${this.issues[0]?.path || 'top level'}); ${EXPECTED_INPUT}`,
        this.issues,
      );
    }
    if (!this.sawRows) throw this.wrongShape('', 'neither an array nor an object with "rows"');
  }

  /** A character between values: punctuation, or the first character of a value. Returns the index after what it consumed. */
  private structure(text: string, index: number, code: number): number {
    switch (this.mode) {
      case DOCUMENT:
        if (code === OPEN_BRACKET) {
          this.topLevel = 'array';
          return this.startRows('', index);
        }
        if (code === OPEN_BRACE) {
          this.topLevel = 'object';
          this.mode = OBJECT_OPEN;
          return index + 1;
        }
        if (code === QUOTE || startsScalar(code)) throw this.wrongShape('', 'neither an array nor an object with "rows"');
        throw this.unexpected(index);
      case ROWS_OPEN:
        if (code === CLOSE_BRACKET) return this.endRows(index);
        return this.startValue(text, index, code, ROW_VALUE);
      case ROW_EXPECTED:
        return this.startValue(text, index, code, ROW_VALUE);
      case AFTER_ROW:
        if (code === COMMA) {
          this.mode = ROW_EXPECTED;
          return index + 1;
        }
        if (code === CLOSE_BRACKET) return this.endRows(index);
        throw this.unexpected(index);
      case OBJECT_OPEN:
      case KEY_EXPECTED:
        if (code === QUOTE) return this.startValue(text, index, code, KEY_VALUE);
        if (code === CLOSE_BRACE && this.mode === OBJECT_OPEN) return this.endDocument(index);
        throw this.unexpected(index);
      case COLON_EXPECTED:
        if (code !== COLON) throw this.unexpected(index);
        this.mode = MEMBER_VALUE;
        return index + 1;
      case MEMBER_VALUE:
        return this.startMember(text, index, code);
      case AFTER_MEMBER:
        if (code === COMMA) {
          this.mode = KEY_EXPECTED;
          return index + 1;
        }
        if (code === CLOSE_BRACE) return this.endDocument(index);
        throw this.unexpected(index);
      default:
        throw this.unexpected(index);
    }
  }

  private startMember(text: string, index: number, code: number): number {
    if (this.key === 'rows') {
      if (this.sawRows) throw this.wrongShape('rows', '"rows" appears twice');
      if (code !== OPEN_BRACKET) {
        if (code === QUOTE || code === OPEN_BRACE || startsScalar(code))
          throw this.wrongShape('rows', '"rows" must be an array of row objects');
        throw this.unexpected(index);
      }
      return this.startRows('rows', index);
    }
    if (this.key === 'columns') {
      if (this.sawColumns) throw this.wrongShape('columns', '"columns" appears twice');
      this.sawColumns = true;
      return this.startValue(text, index, code, COLUMNS_VALUE);
    }
    return this.startValue(text, index, code, SKIPPED_VALUE);
  }

  private startRows(path: string, index: number): number {
    this.sawRows = true;
    this.rowsPath = path;
    this.mode = ROWS_OPEN;
    this.handler.rowsStart();
    return index + 1;
  }

  private endRows(index: number): number {
    if (this.topLevel === 'array') return this.endDocument(index);
    this.mode = AFTER_MEMBER;
    return index + 1;
  }

  private endDocument(index: number): number {
    this.mode = DONE;
    return index + 1;
  }

  /** Begin scanning a value at its first character; returns the index after that character. */
  private startValue(text: string, index: number, code: number, target: number): number {
    if (code === QUOTE) this.inString = true;
    else if (code === OPEN_BRACE) this.closers.push(CLOSE_BRACE);
    else if (code === OPEN_BRACKET) this.closers.push(CLOSE_BRACKET);
    else if (startsScalar(code)) this.scalar = true;
    else throw this.unexpected(index);
    this.target = target;
    this.nested = false;
    this.pieceStart = index;
    this.startChunk = text;
    this.startIndex = index;
    this.startChunkOffset = this.chunkOffset;
    return index + 1;
  }

  /** A string or container value, from `from`: returns the index after its end, or the chunk's length when it goes on. */
  private scanValue(text: string, from: number): number {
    const length = text.length;
    const closers = this.closers;
    let index = from;
    while (index < length) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          index += 1;
          continue;
        }
        // Jump to the string's next `"` or `\` (both searches only move forward, so a chunk is searched once).
        let quote = this.nextQuote;
        if (quote !== -1 && quote < index) quote = this.nextQuote = text.indexOf('"', index);
        let backslash = this.nextBackslash;
        if (backslash !== -1 && backslash < index) backslash = this.nextBackslash = text.indexOf('\\', index);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          this.escaped = true;
          index = backslash + 1;
          continue;
        }
        if (quote === -1) return length;
        this.inString = false;
        index = quote + 1;
        if (closers.length === 0) return this.complete(text, index);
        continue;
      }
      const code = text.charCodeAt(index);
      index += 1;
      if (code === QUOTE) this.inString = true;
      else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        this.nested = true;
        closers.push(code === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        if (closers.pop() !== code) throw this.unexpected(index - 1);
        if (closers.length === 0) return this.complete(text, index);
      } else if (code === BACKSLASH) throw this.unexpected(index - 1);
    }
    return length;
  }

  /** A number, `true`, `false` or `null`, which ends at the first delimiter (not consumed). */
  private scanScalar(text: string, from: number): number {
    const length = text.length;
    for (let index = from; index < length; index += 1) {
      const code = text.charCodeAt(index);
      if (code === COMMA || code === CLOSE_BRACKET || code === CLOSE_BRACE || isWhitespace(code)) return this.complete(text, index);
    }
    return length;
  }

  /** The value ends before `end` in `text`: hand it over. Returns `end`. */
  private complete(text: string, end: number): number {
    const target = this.target;
    this.target = NO_VALUE;
    this.scalar = false;
    if (target === SKIPPED_VALUE) {
      this.mode = AFTER_MEMBER;
      return end;
    }
    const piece = text.slice(this.pieceStart, end);
    const value = this.parts.length === 0 ? piece : this.parts.join('') + piece;
    this.parts = [];
    if (target === ROW_VALUE) {
      this.mode = AFTER_ROW;
      this.takeRow(value);
    } else if (target === COLUMNS_VALUE) {
      this.mode = AFTER_MEMBER;
      this.handler.columns(parseColumns(this.parse(value, 'columns'), this.source));
    } else {
      this.mode = COLON_EXPECTED;
      this.key = this.parse(value, 'a key of the top-level object') as string;
    }
    return end;
  }

  private takeRow(text: string): void {
    const index = this.rowIndex;
    this.rowIndex = index + 1;
    const row = this.parse(text, `${this.rowsPath}[${index}]`);
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      this.issueCount += 1;
      if (this.issues.length < ISSUES_LISTED) {
        this.issues.push({ path: `${this.rowsPath}[${index}]`, message: 'expected an object mapping column name to value' });
      }
      return;
    }
    // The input will be refused: the rows after a bad one are only checked.
    if (this.issueCount > 0) return;
    if (this.nested) nestedCellsAsText(row as Record<string, unknown>);
    this.handler.row(row as Row);
  }

  private parse(text: string, what: string): unknown {
    try {
      return JSON.parse(text);
    } catch (error) {
      const offset = this.startChunkOffset + Buffer.byteLength(this.startChunk.slice(0, this.startIndex));
      throw this.invalidJson(`${what}, which starts at byte ${offset}: ${(error as Error).message}`, what);
    }
  }

  /** The byte offset of `index` in the current chunk. */
  private offsetAt(index: number): number {
    return this.chunkOffset + Buffer.byteLength(this.chunk.slice(0, index));
  }

  private unexpected(index: number): ValidationError {
    const character = String.fromCodePoint(this.chunk.codePointAt(index) ?? 0);
    return this.invalidJson(`unexpected ${JSON.stringify(character)} at byte ${this.offsetAt(index)}`, '');
  }

  private invalidJson(detail: string, path: string): ValidationError {
    return new ValidationError(`${this.source} is not valid JSON (${detail}); ${EXPECTED_INPUT}`, [{ path, message: 'not JSON' }]);
  }

  private wrongShape(path: string, message: string): ValidationError {
    return new ValidationError(`${this.source}: ${path === '' ? '' : `${message}; `}${EXPECTED_INPUT}`, [{ path, message }]);
  }
}

/** Cells must be scalars: a nested list or object is shown as its JSON text. */
function nestedCellsAsText(row: Record<string, unknown>): void {
  for (const name in row) {
    const cell = row[name];
    if (typeof cell === 'object' && cell !== null) row[name] = JSON.stringify(cell);
  }
}

function parseColumns(value: unknown, source: string): ResultColumn[] {
  const fail = (message: string): never => {
    throw new ValidationError(`${source}: "columns" ${message}; ${EXPECTED_INPUT}`, [{ path: 'columns', message }]);
  };
  if (!Array.isArray(value)) return fail('must be an array');
  return value.map((column, index) => {
    if (typeof column === 'string') return { name: column };
    if (typeof column === 'object' && column !== null && 'name' in column && typeof column.name === 'string') {
      const type = 'type' in column && typeof column.type === 'string' ? column.type : undefined;
      return type === undefined ? { name: column.name } : { name: column.name, type };
    }
    return fail(`entry ${index} must be a name or {"name": string, "type"?: string}`);
  });
}
