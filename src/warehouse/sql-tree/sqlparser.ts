/**
 * The SQL parser of the dialects without an embeddable engine parser (MySQL/MariaDB, ClickHouse,
 * BigQuery, Snowflake): datafusion-sqlparser-rs, compiled to WebAssembly. It returns the syntax tree
 * as JSON, with source spans (1-based line and column, counted in characters) on identifiers and
 * literals, and the comments it skipped. Nothing here touches a warehouse.
 */
import { init, parseWithComments, type SourceComment } from '@guanmingchiu/sqlparser-ts';

/** The parser's names of the dialects it reads for us. */
export type ParserDialect = 'mysql' | 'clickhouse' | 'bigquery' | 'snowflake';

export type JsonNode = Record<string, unknown>;

export interface ParsedSql {
  /** One entry per statement: `{ Query: … }`, `{ Delete: … }` … */
  statements: JsonNode[];
  comments: SourceComment[];
}

let ready: Promise<void> | undefined;

/** Parses `sql`; throws the parser's error (with its line and column) when it does not parse. */
export async function parseSqlTree(sql: string, dialect: ParserDialect): Promise<ParsedSql> {
  ready ??= init();
  await ready;
  const result = parseWithComments(sql, dialect);
  return { statements: result.statements as unknown as JsonNode[], comments: result.comments };
}

export function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Converts the parser's (line, column) positions into offsets of the JavaScript string: columns
 * count Unicode characters, JavaScript strings count UTF-16 units.
 */
export class SourcePositions {
  private readonly lineStarts: number[] = [0];

  constructor(private readonly text: string) {
    for (let index = 0; index < text.length; index += 1) if (text[index] === '\n') this.lineStarts.push(index + 1);
  }

  /** Offset of (line, column), both 1-based; `undefined` for the parser's "no position" (0, 0). */
  offset(line: number, column: number): number | undefined {
    if (line < 1 || column < 1) return undefined;
    let offset = this.lineStarts[line - 1];
    if (offset === undefined) return undefined;
    for (let characters = 1; characters < column && offset < this.text.length; characters += 1) {
      const code = this.text.charCodeAt(offset);
      offset += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
    }
    return offset;
  }
}

/** The text with every comment replaced by one space: what runs is what the parser read. */
export function withoutComments(text: string, comments: readonly SourceComment[], positions: SourcePositions): string {
  const ranges = comments
    .map((comment) => ({
      start: positions.offset(comment.startLine, comment.startColumn),
      end: positions.offset(comment.endLine, comment.endColumn) ?? text.length,
    }))
    .filter((range): range is { start: number; end: number } => range.start !== undefined)
    .sort((left, right) => right.start - left.start);
  let result = text;
  for (const range of ranges) result = `${result.slice(0, range.start)} ${result.slice(range.end)}`;
  return result;
}
