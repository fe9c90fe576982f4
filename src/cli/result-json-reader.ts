/**
 * Reading a JSON query result as it arrives, for `assay compact`: text goes in chunk by chunk (`write`),
 * rows come out one by one, so the document is never held whole and memory stays bounded by the
 * largest row.
 *
 * The input forms: a top-level array of row objects, or an object whose "rows" member is that array and
 * whose optional "columns" member lists the columns (`"name"` or `{"name", "type"}`), before or after the
 * rows. Tokenizing and building values is @streamparser/json's (a maintained streaming parser that
 * accepts exactly what JSON.parse accepts): its tokenizer feeds a token parser that emits each row, and
 * the columns, once complete, and drops them from memory (`keepStack: false`). This file watches the same
 * tokens for the document's shape: which form it has, where the rows begin, which row is being read.
 * Other members of the top-level object are parsed and discarded.
 *
 * Errors are ValidationErrors that say what was expected and where: the row (`rows[3]`) and the byte
 * offset for invalid JSON, every row that is not an object (counted to the end, the first 20 listed).
 */
import { Buffer } from 'node:buffer';
import { type ParsedTokenInfo, TokenParser, TokenParserError, TokenType, Tokenizer, TokenizerError } from '@streamparser/json';
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

const TOKEN_TEXT: Partial<Record<TokenType, string>> = {
  [TokenType.LEFT_BRACE]: '{',
  [TokenType.RIGHT_BRACE]: '}',
  [TokenType.LEFT_BRACKET]: '[',
  [TokenType.RIGHT_BRACKET]: ']',
  [TokenType.COLON]: ':',
  [TokenType.COMMA]: ',',
};

function opensValue(token: TokenType): boolean {
  return token !== TokenType.COMMA && token !== TokenType.COLON && token !== TokenType.RIGHT_BRACE && token !== TokenType.RIGHT_BRACKET;
}

/** The push parser: `write` each chunk of text in order, then `end`. Throws a ValidationError at the first problem. */
export class ResultJsonReader {
  private readonly tokenizer = new Tokenizer();
  /** Created at the first token, when the form (and so the paths to emit) is known. */
  private parser: TokenParser | undefined;
  private topLevel: 'array' | 'object' | undefined;
  /** `rows` in the object form, empty in the array form: row paths are `rows[3]` or `[3]`. */
  private rowsPath = '';
  /** Containers open around the next token. */
  private depth = 0;
  /** The depth of the rows' elements once the rows array is open; 0 outside it. */
  private rowsDepth = 0;
  private sawRows = false;
  private sawColumns = false;
  /** Top-level object only: the next string at depth 1 is a key; `key` is the member whose value comes next. */
  private expectingKey = false;
  private key = '';
  /** Rows begun so far, and the byte where the one being read began (-1 between rows). */
  private rowsBegun = 0;
  private rowStart = -1;
  private readonly issues: ValidationIssue[] = [];
  private issueCount = 0;
  private bytes = 0;
  private lastToken: ParsedTokenInfo | undefined;
  private pendingHalf = '';

  constructor(
    private readonly source: string,
    private readonly handler: ResultJsonHandler,
  ) {
    this.tokenizer.onToken = (token) => this.take(token);
  }

  /** The top-level value's form, once its first character is read. */
  get form(): 'array' | 'object' | undefined {
    return this.topLevel;
  }

  write(text: string): void {
    // A chunk may end between the two halves of a surrogate pair: the first half waits for the second.
    let whole = this.pendingHalf + text;
    this.pendingHalf = '';
    const last = whole.charCodeAt(whole.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.pendingHalf = whole.slice(-1);
      whole = whole.slice(0, -1);
    }
    const chunk = Buffer.from(whole, 'utf8');
    this.tokenizerWrite(chunk);
  }

  private tokenizerWrite(chunk: Buffer): void {
    try {
      this.tokenizer.write(chunk);
    } catch (error) {
      throw this.translate(error);
    }
    this.bytes += chunk.length;
  }

  /** The input is over: throws when the document is incomplete, has rows that are not objects, or has no rows. */
  end(): void {
    if (this.pendingHalf !== '') {
      const half = this.pendingHalf;
      this.pendingHalf = '';
      this.tokenizerWrite(Buffer.from(half, 'utf8'));
    }
    try {
      // the token parser ends by itself after the document's last token
      if (!this.tokenizer.isEnded) this.tokenizer.end();
      if (this.parser !== undefined && !this.parser.isEnded) this.parser.end();
    } catch (error) {
      if (error instanceof ValidationError) throw error;
      const inside = this.rowStart >= 0 ? ` inside ${this.rowsPath}[${this.rowsBegun - 1}]` : '';
      throw this.invalidJson(`the input ends at byte ${this.bytes} before the JSON is complete${inside}`, '');
    }
    if (this.parser === undefined) throw this.invalidJson('the input is empty', '');
    if (this.issueCount > 0) {
      throw new ValidationError(
        `${this.source}: ${this.issueCount} row(s) are not objects (first at ${this.issues[0]?.path || 'top level'}); ${EXPECTED_INPUT}`,
        this.issues,
      );
    }
    if (!this.sawRows) throw this.wrongShape('', 'neither an array nor an object with "rows"');
  }

  /** One token: checked against the document's shape, then handed to the token parser. */
  private take(info: ParsedTokenInfo): void {
    this.lastToken = info;
    const { token } = info;
    if (this.parser === undefined) this.parser = this.startDocument(info);
    const opens = token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET;
    if (this.rowsDepth > 0 && this.depth === this.rowsDepth && opensValue(token)) {
      // counted before the parser sees the token: a scalar row is emitted at this very token
      this.rowStart = info.offset;
      this.rowsBegun += 1;
    }
    this.parser.write(info);
    if (this.topLevel === 'object' && this.depth === 1) this.topLevelMember(info);
    if (opens) this.depth += 1;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.depth -= 1;
    if (this.depth < this.rowsDepth) this.rowsDepth = 0;
    // back between rows: after a scalar row, the `}` or `]` that closed a row, or a comma
    if (this.rowsDepth === 0 || (this.depth === this.rowsDepth && !opens)) this.rowStart = -1;
  }

  private startDocument(info: ParsedTokenInfo): TokenParser {
    let paths: string[];
    if (info.token === TokenType.LEFT_BRACKET) {
      this.topLevel = 'array';
      paths = ['$.*'];
    } else if (info.token === TokenType.LEFT_BRACE) {
      this.topLevel = 'object';
      this.expectingKey = true;
      paths = ['$.rows.*', '$.columns'];
    } else throw this.wrongShape('', 'neither an array nor an object with "rows"');
    const parser = new TokenParser({ paths, keepStack: false });
    parser.onValue = ({ value, stack }) => {
      if (stack.length === 1 && this.topLevel === 'object') this.handler.columns(parseColumns(value, this.source));
      else this.takeRow(value);
    };
    if (this.topLevel === 'array') {
      // the rows' elements are at depth 1 once the `[` is counted
      this.startRows('', 1);
    }
    return parser;
  }

  /** A token directly inside the top-level object: a key, its colon, its value's first token, or a comma. */
  private topLevelMember({ token, value }: ParsedTokenInfo): void {
    if (token === TokenType.COMMA) {
      this.expectingKey = true;
      return;
    }
    if (token === TokenType.COLON) return;
    if (this.expectingKey && token === TokenType.STRING) {
      this.expectingKey = false;
      this.key = value as string;
      return;
    }
    if (this.key === 'rows') {
      if (this.sawRows) throw this.wrongShape('rows', '"rows" appears twice');
      if (token !== TokenType.LEFT_BRACKET) throw this.wrongShape('rows', '"rows" must be an array of row objects');
      this.startRows('rows', 2);
    } else if (this.key === 'columns') {
      if (this.sawColumns) throw this.wrongShape('columns', '"columns" appears twice');
      this.sawColumns = true;
    }
    this.key = '';
  }

  private startRows(path: string, elementDepth: number): void {
    this.sawRows = true;
    this.rowsPath = path;
    this.rowsDepth = elementDepth;
    this.handler.rowsStart();
  }

  private takeRow(row: unknown): void {
    const index = this.rowsBegun - 1;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      this.issueCount += 1;
      if (this.issues.length < ISSUES_LISTED) {
        this.issues.push({ path: `${this.rowsPath}[${index}]`, message: 'expected an object mapping column name to value' });
      }
      return;
    }
    // The input will be refused: the rows after a bad one are only checked.
    if (this.issueCount > 0) return;
    nestedCellsAsText(row as Record<string, unknown>);
    this.handler.row(row as Row);
  }

  /** The parser's errors, said as where the input went wrong. */
  private translate(error: unknown): unknown {
    if (error instanceof TokenParserError) {
      const token = this.lastToken;
      if (token === undefined) return this.invalidJson(error.message, '');
      const text = TOKEN_TEXT[token.token] ?? JSON.stringify(token.value);
      return this.invalidJson(`unexpected ${JSON.stringify(text)} at byte ${token.offset}`, '');
    }
    if (error instanceof TokenizerError) {
      if (this.rowStart >= 0) {
        const path = `${this.rowsPath}[${this.rowsBegun - 1}]`;
        return this.invalidJson(`${path}, which starts at byte ${this.rowStart}: ${error.message}`, path);
      }
      const found = /^Unexpected "(.*)" at chunk position "\d+" \(absolute position "(\d+)"\)/s.exec(error.message);
      if (found !== null) return this.invalidJson(`unexpected ${JSON.stringify(found[1])} at byte ${found[2]}`, '');
      return this.invalidJson(error.message, '');
    }
    return error;
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
