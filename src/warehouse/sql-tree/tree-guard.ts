/**
 * Layer 1 of the guard for the dialects read by sqlparser-rs (see sqlparser.ts): exactly one
 * statement, and it is a query; no SELECT … INTO, locking clause, variable assignment, or
 * statement-level FORMAT/SETTINGS; every function call and every FROM-clause function on the
 * dialect's allow-list; relations the dialect keeps private (system catalogs, stages) refused.
 * What runs is the statement with its comments removed, so nothing the parser skipped reaches the engine.
 */
import type { SqlDialect } from '../dialect.js';
import { refuse, type AllowedSql, type GuardVerdict, type RelationReference } from '../sql-guard-verdict.js';
import { isNode, parseSqlTree, SourcePositions, withoutComments, type JsonNode, type ParserDialect } from './sqlparser.js';

/** A relation as written, with where it ends and its name parts: what a rewrite needs. */
export interface TreeRelation extends RelationReference {
  /** Offset just after the name (character offset into `statement`), -1 when unknown. */
  end: number;
  /** The name parts as written, unquoted (`["db", "orders"]`). */
  parts: string[];
}

export interface TreeAllowedSql extends AllowedSql {
  relations: TreeRelation[];
}

export type TreeGuardVerdict = TreeAllowedSql | Extract<GuardVerdict, { allowed: false }>;

export interface DialectGuardRules {
  dialect: SqlDialect;
  parser: ParserDialect;
  /** Scalar, aggregate and window functions agent SQL may call (lower case; dotted for namespaced names). */
  functions: ReadonlySet<string>;
  /** Functions allowed in FROM (lower case). */
  tableFunctions: ReadonlySet<string>;
  /** Why a relation named by these parts may not be read, or undefined. */
  relationRefusal(parts: readonly string[]): string | undefined;
  /** Why a comment may not appear (MySQL runs `/*! … *\/` as SQL), or undefined. */
  commentRefusal?(content: string, kind: 'singleLine' | 'multiLine'): string | undefined;
  /** The name a namespaced call is checked under (BigQuery `SAFE.DIVIDE` → `divide`); default: the parts joined by dots. */
  functionName?(parts: readonly string[]): string;
}

/** Parser statement kinds as the SQL words a user wrote. */
const STATEMENT_WORDS: Record<string, string> = {
  CopyIntoSnowflake: 'COPY INTO',
  ExportData: 'EXPORT DATA',
  CreateTable: 'CREATE TABLE',
  CreateView: 'CREATE VIEW',
  AlterTable: 'ALTER TABLE',
  StartTransaction: 'START TRANSACTION',
  SetVariable: 'SET',
  Set: 'SET',
  ShowVariables: 'SHOW',
  ExplainTable: 'DESCRIBE',
};

function statementWord(kind: string): string {
  return (
    STATEMENT_WORDS[kind] ??
    kind
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toUpperCase()
      .trim()
  );
}

/** `[{ Identifier: { value, span } }]` → the name parts and the span of the whole name. */
function nameParts(name: unknown): { parts: string[]; start?: { line: number; column: number }; end?: { line: number; column: number } } {
  const parts: string[] = [];
  let start: { line: number; column: number } | undefined;
  let end: { line: number; column: number } | undefined;
  if (!Array.isArray(name)) return { parts };
  for (const part of name) {
    const identifier =
      isNode(part) && isNode(part.Identifier) ? part.Identifier : isNode(part) && typeof part.value === 'string' ? part : undefined;
    if (identifier === undefined || typeof identifier.value !== 'string') {
      parts.push('');
      continue;
    }
    parts.push(identifier.value);
    const span = isNode(identifier.span) ? identifier.span : undefined;
    const spanStart = span && isNode(span.start) ? (span.start as { line: number; column: number }) : undefined;
    const spanEnd = span && isNode(span.end) ? (span.end as { line: number; column: number }) : undefined;
    if (spanStart && spanStart.line > 0 && (start === undefined || before(spanStart, start))) start = spanStart;
    if (spanEnd && spanEnd.line > 0 && (end === undefined || before(end, spanEnd))) end = spanEnd;
  }
  return { parts, start, end };
}

function before(left: { line: number; column: number }, right: { line: number; column: number }): boolean {
  return left.line < right.line || (left.line === right.line && left.column < right.column);
}

function aliasName(alias: unknown): string | undefined {
  if (!isNode(alias)) return undefined;
  const name = isNode(alias.name) ? alias.name : undefined;
  return name && typeof name.value === 'string' ? name.value : undefined;
}

interface WalkState {
  rules: DialectGuardRules;
  positions: SourcePositions;
  relations: TreeRelation[];
  cteNames: string[];
  refusal?: string;
}

function functionCheckName(rules: DialectGuardRules, parts: readonly string[]): string {
  return (rules.functionName?.(parts) ?? parts.join('.')).toLowerCase();
}

function checkFunction(state: WalkState, parts: readonly string[]): void {
  const name = functionCheckName(state.rules, parts);
  if (name === '' || !state.rules.functions.has(name)) {
    state.refusal = `function ${parts.join('.')} is not on the ${state.rules.dialect} allow-list of functions agent SQL may call`;
  }
}

function checkTableFunction(state: WalkState, parts: readonly string[]): void {
  const name = functionCheckName(state.rules, parts);
  if (!state.rules.tableFunctions.has(name)) {
    const allowed = [...state.rules.tableFunctions].join(', ') || 'none';
    state.refusal = `table function ${parts.join('.')} is not on the ${state.rules.dialect} allow-list (${allowed})`;
  }
}

/** A FROM-clause item (`TableFactor`): a relation, a derived table, a join, or a function. */
function visitRelation(factor: JsonNode, state: WalkState): void {
  const kind = Object.keys(factor)[0] ?? '';
  const body = factor[kind];
  if (!isNode(body)) return;
  switch (kind) {
    case 'Table': {
      const { parts, start, end } = nameParts(body.name);
      if (body.args !== undefined && body.args !== null) {
        checkTableFunction(state, parts);
        return;
      }
      const refusal = state.rules.relationRefusal(parts);
      if (refusal !== undefined) {
        state.refusal = refusal;
        return;
      }
      const name = parts[parts.length - 1] ?? '';
      state.relations.push({
        catalog: parts.length >= 3 ? parts[parts.length - 3] : undefined,
        schema: parts.length >= 2 ? parts[parts.length - 2] : undefined,
        name,
        parts,
        location: start === undefined ? -1 : (state.positions.offset(start.line, start.column) ?? -1),
        end: end === undefined ? -1 : (state.positions.offset(end.line, end.column) ?? -1),
        alias: aliasName(body.alias),
      });
      return;
    }
    case 'TableFunction': {
      const call = isNode(body.expr) && isNode(body.expr.Function) ? body.expr.Function : undefined;
      if (call === undefined) {
        state.refusal = 'only plain function calls may appear as FROM-clause functions';
        return;
      }
      checkTableFunction(state, nameParts(call.name).parts);
      // the call's own name is checked as a table function; its arguments like any expression
      walk(call.args, state);
      return;
    }
    case 'Function': {
      checkTableFunction(state, nameParts(body.name).parts);
      walk(body.args, state);
      return;
    }
    case 'Derived':
    case 'NestedJoin':
    case 'UNNEST':
      return;
    case 'JsonTable':
      if (!state.rules.tableFunctions.has('json_table')) state.refusal = 'JSON_TABLE is not allowed in this dialect';
      return;
    default:
      state.refusal = `the FROM-clause construct ${statementWord(kind)} is not allowed`;
  }
}

/** A query block (`Query`): its statement-level clauses. */
function visitQuery(query: JsonNode, state: WalkState): void {
  if (Array.isArray(query.locks) && query.locks.length > 0) state.refusal = 'FOR UPDATE/SHARE takes row locks';
  if (query.format_clause !== undefined && query.format_clause !== null)
    state.refusal = 'a FORMAT clause is not allowed (the adapter chooses the result format)';
  if (query.settings !== undefined && query.settings !== null)
    state.refusal = 'a SETTINGS clause is not allowed (limits and read-only mode are set by the adapter)';
  if (query.for_clause !== undefined && query.for_clause !== null) state.refusal = 'a FOR clause is not allowed';
  const withClause = isNode(query.with) ? query.with : undefined;
  if (withClause && Array.isArray(withClause.cte_tables)) {
    for (const cte of withClause.cte_tables) {
      const name = isNode(cte) ? aliasName(cte.alias) : undefined;
      if (name !== undefined) state.cteNames.push(name);
    }
  }
}

function visit(key: string, value: JsonNode, state: WalkState): boolean {
  // a query block wherever it appears: the statement, a CTE, a derived table, a subquery expression
  if ('body' in value && 'locks' in value) visitQuery(value, state);
  switch (key) {
    case 'relation':
      visitRelation(value, state);
      // a function relation walked its own arguments; everything else goes on below
      return !('Function' in value || 'TableFunction' in value);
    case 'Function':
      if (Array.isArray(value.name)) checkFunction(state, nameParts(value.name).parts);
      return true;
    case 'Select':
      if (value.into !== undefined && value.into !== null) state.refusal = 'SELECT … INTO writes a table, a file or a variable';
      return true;
    case 'Insert':
    case 'Update':
    case 'Delete':
    case 'Merge':
      // a data-modifying statement in a WITH clause or a subquery
      state.refusal = `a query may not contain ${statementWord(key)}`;
      return false;
    case 'BinaryOp':
      if (value.op === 'Assignment') state.refusal = 'assigning a variable (:=) is not allowed';
      return true;
    default:
      return true;
  }
}

function walk(value: unknown, state: WalkState): void {
  if (state.refusal !== undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, state);
    return;
  }
  if (!isNode(value)) return;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'span') continue;
    if (isNode(child) && !visit(key, child, state)) continue;
    if (state.refusal !== undefined) return;
    walk(child, state);
    if (state.refusal !== undefined) return;
  }
}

/** The statement without trailing semicolons and whitespace. */
function trimStatement(text: string): string {
  return text.trim().replace(/[\s;]+$/, '');
}

export async function guardTreeSql(sql: string, rules: DialectGuardRules): Promise<TreeGuardVerdict> {
  let parsed: Awaited<ReturnType<typeof parseSqlTree>>;
  try {
    parsed = await parseSqlTree(sql, rules.parser);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return refuse(rules.dialect, `the SQL could not be parsed as ${rules.dialect} (${message.replace(/^sql parser error: /, '')})`);
  }
  for (const comment of parsed.comments) {
    const reason = rules.commentRefusal?.(comment.content, comment.commentType);
    if (reason !== undefined) return refuse(rules.dialect, reason);
  }
  if (parsed.statements.length !== 1) {
    return refuse(rules.dialect, `only a single SELECT statement is allowed (found ${parsed.statements.length} statements)`);
  }
  const root = parsed.statements[0] ?? {};
  const kind = Object.keys(root)[0] ?? 'unknown';
  const query = root[kind];
  if (kind !== 'Query' || !isNode(query)) {
    return refuse(rules.dialect, `only a single SELECT statement is allowed (found ${statementWord(kind)})`);
  }
  // spans refer to the text without comments, so parse that text (same tokens, same tree)
  const positions = new SourcePositions(sql);
  const statement = trimStatement(withoutComments(sql, parsed.comments, positions));
  const clean = parsed.comments.length === 0 && statement === sql ? parsed : await parseSqlTree(statement, rules.parser);
  const state: WalkState = { rules, positions: new SourcePositions(statement), relations: [], cteNames: [] };
  walk(clean.statements, state);
  if (state.refusal !== undefined) return refuse(rules.dialect, state.refusal);
  return { allowed: true, dialect: rules.dialect, statement, relations: state.relations, cteNames: state.cteNames };
}
