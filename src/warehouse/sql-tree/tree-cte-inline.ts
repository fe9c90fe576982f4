/**
 * Common table expressions written out as derived tables, for servers that read `WITH name AS
 * (subquery)` as an error (ClickHouse before 20.11, see ../clickhouse/clickhouse-warehouse.ts).
 *
 * Every reference to a CTE in a FROM or JOIN clause becomes `(subquery) AS name` (an alias the
 * reference had stays), wherever it is: the main query, another CTE (a CTE reads the CTEs before it),
 * a derived table, a scalar or IN subquery. A CTE referenced twice is written out twice; a name that an
 * inner WITH defines again means the inner definition inside that query; the WITH clauses are removed.
 * The rewrite works on the statement's text at the positions the parser reports, so everything that
 * is not a CTE reference or a WITH clause is kept exactly as written.
 *
 * A statement it cannot rewrite faithfully (a recursive CTE, a CTE with a column list, a position the
 * parser did not report) comes back as it is, with the reason: the server's own error then stands.
 */
import { isNode, parseSqlTree, SourcePositions, type JsonNode, type ParserDialect } from './sqlparser.js';

export type CteInlining = { inlined: true; statement: string } | { inlined: false; statement: string; reason?: string };

interface Position {
  line: number;
  column: number;
}

interface CteDefinition {
  /** Offsets of the subquery's text, inside its parentheses. */
  start: number;
  end: number;
  query: JsonNode;
  /** The CTEs this one may read: the outer ones and those written before it. */
  scope: ReadonlyMap<string, CteDefinition>;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

class NotInlinable extends Error {}

function spanOf(node: unknown): { start?: Position; end?: Position } {
  const span = isNode(node) && isNode(node.span) ? node.span : undefined;
  const start = span && isNode(span.start) ? (span.start as unknown as Position) : undefined;
  const end = span && isNode(span.end) ? (span.end as unknown as Position) : undefined;
  return { start, end };
}

/** A single-part FROM name as written (`{ Identifier: { value, span } }`), or undefined. */
function singleName(name: unknown): { value: string; node: JsonNode } | undefined {
  if (!Array.isArray(name) || name.length !== 1) return undefined;
  const part = name[0];
  const identifier =
    isNode(part) && isNode(part.Identifier) ? part.Identifier : isNode(part) && typeof part.value === 'string' ? part : undefined;
  if (identifier === undefined || typeof identifier.value !== 'string') return undefined;
  return { value: identifier.value, node: identifier };
}

class Inliner {
  private readonly positions: SourcePositions;

  constructor(
    private readonly text: string,
    private readonly quote: (name: string) => string,
  ) {
    this.positions = new SourcePositions(text);
  }

  private offset(position: Position | undefined, what: string): number {
    const offset = position === undefined ? undefined : this.positions.offset(position.line, position.column);
    if (offset === undefined) throw new NotInlinable(`the parser gave no position for ${what}`);
    return offset;
  }

  /** The text of `start`–`end` with the edits inside it applied. */
  private render(start: number, end: number, edits: readonly Edit[]): string {
    let result = '';
    let at = start;
    for (const edit of [...edits].sort((left, right) => left.start - right.start)) {
      result += this.text.slice(at, edit.start) + edit.text;
      at = edit.end;
    }
    return result + this.text.slice(at, end);
  }

  /** The CTE's subquery with its own references inlined. */
  private renderDefinition(definition: CteDefinition): string {
    const edits: Edit[] = [];
    this.collect(definition.query, definition.scope, edits);
    return this.render(definition.start, definition.end, edits);
  }

  /** `WITH a AS (…), b AS (…)`: the definitions, and the range of the clause to remove. */
  private definitions(withClause: JsonNode, outer: ReadonlyMap<string, CteDefinition>): { scope: Map<string, CteDefinition>; edit: Edit } {
    if (withClause.recursive === true) throw new NotInlinable('a recursive CTE cannot be written as a derived table');
    const tables = Array.isArray(withClause.cte_tables) ? withClause.cte_tables : [];
    const scope = new Map(outer);
    const clauseStart = this.offset(spanOf(withClause.with_token).start, 'WITH');
    let clauseEnd = clauseStart;
    for (const cte of tables) {
      if (!isNode(cte) || !isNode(cte.alias) || !isNode(cte.alias.name) || !isNode(cte.query))
        throw new NotInlinable('a CTE the parser did not describe');
      const alias = cte.alias;
      if (Array.isArray(alias.columns) && alias.columns.length > 0)
        throw new NotInlinable('a CTE with a column list has no derived-table form here');
      if (cte.materialized !== undefined && cte.materialized !== null) throw new NotInlinable('a MATERIALIZED CTE is kept as written');
      const name = String((alias.name as JsonNode).value);
      const nameEnd = this.offset(spanOf(alias.name).end, `the CTE name ${name}`);
      const close = this.offset(spanOf(cte.closing_paren_token).start, `the end of CTE ${name}`);
      // between the name and the subquery there is only `AS (` (the guard removed comments)
      const opening = /^\s*AS\s*\(/i.exec(this.text.slice(nameEnd, close));
      if (opening === null) throw new NotInlinable(`CTE ${name} is not written as name AS (subquery)`);
      scope.set(name, { start: nameEnd + opening[0].length, end: close, query: cte.query, scope: new Map(scope) });
      clauseEnd = close + 1;
    }
    // the white space after the clause goes with it: `(WITH a AS (…) SELECT` becomes `(SELECT`
    while (clauseEnd < this.text.length && /\s/.test(this.text[clauseEnd] ?? '')) clauseEnd += 1;
    return { scope, edit: { start: clauseStart, end: clauseEnd, text: '' } };
  }

  /** Gathers the edits of `value`'s subtree, reading CTE names in `scope`. */
  collect(value: unknown, scope: ReadonlyMap<string, CteDefinition>, edits: Edit[]): void {
    if (Array.isArray(value)) {
      for (const item of value) this.collect(item, scope, edits);
      return;
    }
    if (!isNode(value)) return;
    // a query block with its own WITH clause: its names hold inside it, over the outer ones
    if (
      'body' in value &&
      'locks' in value &&
      isNode(value.with) &&
      Array.isArray(value.with.cte_tables) &&
      value.with.cte_tables.length > 0
    ) {
      const { scope: inner, edit } = this.definitions(value.with, scope);
      edits.push(edit);
      for (const [key, child] of Object.entries(value)) if (key !== 'with') this.collect(child, inner, edits);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'span') continue;
      if (key === 'relation' && isNode(child) && isNode(child.Table)) {
        const table = child.Table;
        const name = table.args === undefined || table.args === null ? singleName(table.name) : undefined;
        const definition = name === undefined ? undefined : scope.get(name.value);
        if (name !== undefined && definition !== undefined) {
          const { start, end } = spanOf(name.node);
          const alias = isNode(table.alias) ? '' : ` AS ${this.quote(name.value)}`;
          edits.push({
            start: this.offset(start, `the reference to ${name.value}`),
            end: this.offset(end, `the reference to ${name.value}`),
            text: `(${this.renderDefinition(definition)})${alias}`,
          });
          continue;
        }
      }
      this.collect(child, scope, edits);
    }
  }

  run(root: JsonNode): string {
    const edits: Edit[] = [];
    this.collect(root, new Map(), edits);
    return this.render(0, this.text.length, edits).trim();
  }
}

/**
 * `statement` (one query, comments already removed — the guard's output) with its CTEs written out
 * as derived tables; `quote` writes a CTE name as an alias. Unchanged when it has no CTE.
 */
export async function inlineCtes(statement: string, dialect: ParserDialect, quote: (name: string) => string): Promise<CteInlining> {
  if (!/\bWITH\b/i.test(statement)) return { inlined: false, statement };
  const parsed = await parseSqlTree(statement, dialect);
  const root = parsed.statements[0];
  if (parsed.statements.length !== 1 || root === undefined || parsed.comments.length > 0) {
    return { inlined: false, statement, reason: 'only one statement without comments is rewritten' };
  }
  try {
    const rewritten = new Inliner(statement, quote).run(root);
    return rewritten === statement ? { inlined: false, statement } : { inlined: true, statement: rewritten };
  } catch (error) {
    if (error instanceof NotInlinable) return { inlined: false, statement, reason: error.message };
    throw error;
  }
}
