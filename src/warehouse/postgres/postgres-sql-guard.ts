/** Layer 1 for PostgreSQL: the real PostgreSQL parser (libpg-query) and a walk over every node. */
import { loadModule, parseSync } from 'libpg-query';
import { refuse, type GuardVerdict, type RelationReference } from '../sql-guard-verdict.js';
import { functionCallRefusal, type FunctionCallName, type FunctionPosition } from '../sql-functions.js';
import { POSTGRES_FUNCTIONS } from './functions.js';
let moduleLoaded: Promise<void> | undefined;

type JsonNode = Record<string, unknown>;

function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `[{String:{sval:'pg_catalog'}},{String:{sval:'pg_read_file'}}]` → `['pg_catalog', 'pg_read_file']`. */
function nameParts(nameList: unknown): string[] {
  if (!Array.isArray(nameList)) return [];
  return nameList.map((part: unknown) =>
    isNode(part) && isNode(part.String) && typeof part.String.sval === 'string' ? part.String.sval : '',
  );
}

/** A qualified name as the parser resolved it (quotes removed, unquoted parts folded to lower case). */
function callName(nameList: unknown): FunctionCallName {
  const parts = nameParts(nameList);
  const name = parts[parts.length - 1] ?? '';
  if (parts.length === 3) return { catalog: parts[0], schema: parts[1], name };
  if (parts.length === 2) return { schema: parts[0], name };
  return { name };
}

function checkCall(nameList: unknown, position: FunctionPosition, state: WalkState): void {
  const reason = functionCallRefusal(POSTGRES_FUNCTIONS, callName(nameList), position);
  if (reason !== undefined) state.refusal = reason;
}

/** Sampling methods are functions too (`TABLESAMPLE tsm_system_time(…)` comes from an extension). */
const SAMPLING_METHODS = new Set(['bernoulli', 'system']);

/** Expressions that are not function calls in the tree but run code the allow-list does not cover. */
const REFUSED_EXPRESSIONS: Record<string, string> = {
  XmlExpr: 'XML functions are not on the PostgreSQL allow-list',
  XmlSerialize: 'XML functions are not on the PostgreSQL allow-list',
  RangeTableFunc: 'XMLTABLE is not on the PostgreSQL allow-list',
};

/** Parser node names whose words do not read as the SQL the user wrote. */
const STATEMENT_KIND_NAMES: Record<string, string> = {
  VariableSetStmt: 'SET',
  TransactionStmt: 'a transaction command',
  ViewStmt: 'CREATE VIEW',
  VacuumStmt: 'VACUUM/ANALYZE',
  DeclareCursorStmt: 'DECLARE CURSOR',
  CreateTableAsStmt: 'CREATE TABLE AS',
  DoStmt: 'DO',
};

/** "DeleteStmt" → "DELETE"; "AlterTableStmt" → "ALTER TABLE". */
function statementKind(nodeType: string): string {
  return (
    STATEMENT_KIND_NAMES[nodeType] ??
    nodeType
      .replace(/Stmt$/, '')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toUpperCase()
  );
}

interface WalkState {
  relations: RelationReference[];
  cteNames: string[];
  refusal?: string;
}

function visitNode(nodeType: string, body: JsonNode, state: WalkState): void {
  switch (nodeType) {
    case 'FuncCall':
      checkCall(body.funcname, 'expression', state);
      return;
    case 'RangeFunction': {
      for (const item of Array.isArray(body.functions) ? body.functions : []) {
        const pair = isNode(item) && isNode(item.List) && Array.isArray(item.List.items) ? item.List.items : [];
        const call: unknown = pair[0];
        // a FROM-clause item that is not a plain function call (SQL-standard special forms) is refused too
        if (isNode(call) && isNode(call.FuncCall)) checkCall(call.FuncCall.funcname, 'from', state);
        else state.refusal = 'only plain function calls may appear as FROM-clause functions';
        if (state.refusal !== undefined) return;
      }
      return;
    }
    case 'A_Expr': {
      // `a OPERATOR(myschema.+) b` calls whatever function that schema's operator names
      const parts = nameParts(body.name);
      if (parts.length > 1 && parts[0] !== 'pg_catalog') {
        state.refusal = `operator ${parts.join('.')} is not on the PostgreSQL allow-list: only built-in operators may be called, qualified with pg_catalog at most`;
      }
      return;
    }
    case 'RangeTableSample': {
      const method = nameParts(body.method);
      const name = method[method.length - 1] ?? '';
      if (!SAMPLING_METHODS.has(name) || (method.length > 1 && method[0] !== 'pg_catalog')) {
        state.refusal = `sampling method ${method.join('.')} is not on the PostgreSQL allow-list (${[...SAMPLING_METHODS].join(', ')})`;
      }
      return;
    }
    case 'CommonTableExpr': {
      if (typeof body.ctename === 'string') state.cteNames.push(body.ctename);
      const query = body.ctequery;
      if (!isNode(query) || !('SelectStmt' in query)) {
        const kind = isNode(query) ? statementKind(Object.keys(query)[0] ?? 'unknown') : 'unknown';
        state.refusal = `a WITH clause may only hold SELECT queries (found ${kind} in CTE ${String(body.ctename)})`;
      }
      return;
    }
    case 'SelectStmt': {
      if (body.intoClause !== undefined) state.refusal = 'SELECT … INTO creates a table';
      if (Array.isArray(body.lockingClause) && body.lockingClause.length > 0) state.refusal = 'FOR UPDATE/SHARE takes row locks';
      return;
    }
    case 'RangeVar': {
      state.relations.push({
        catalog: typeof body.catalogname === 'string' ? body.catalogname : undefined,
        schema: typeof body.schemaname === 'string' ? body.schemaname : undefined,
        name: typeof body.relname === 'string' ? body.relname : '',
        location: typeof body.location === 'number' ? body.location : -1,
        alias: isNode(body.alias) && typeof body.alias.aliasname === 'string' ? body.alias.aliasname : undefined,
      });
      return;
    }
    default: {
      const refused = REFUSED_EXPRESSIONS[nodeType];
      if (refused !== undefined) state.refusal = refused;
      return;
    }
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
    // node wrappers are `{ NodeType: { …fields } }`; node types start with an upper-case letter
    if (/^[A-Z]/.test(key) && isNode(child)) visitNode(key, child, state);
    walk(child, state);
    if (state.refusal !== undefined) return;
  }
}

/** The byte range of the one statement, so trailing `;` and comments never reach DECLARE … CURSOR FOR. */
function statementText(sql: string, location: number | undefined, length: number | undefined): string {
  const bytes = Buffer.from(sql, 'utf8');
  const start = location ?? 0;
  const end = length === undefined || length === 0 ? bytes.length : start + length;
  return bytes.subarray(start, end).toString('utf8').trim();
}

export async function guardPostgresSql(sql: string): Promise<GuardVerdict> {
  moduleLoaded ??= loadModule();
  await moduleLoaded;
  let parsed: ReturnType<typeof parseSync>;
  try {
    parsed = parseSync(sql);
  } catch (error) {
    return refuse('postgres', `the SQL does not parse (${error instanceof Error ? error.message : String(error)})`, { syntaxError: true });
  }
  const statements = parsed.stmts ?? [];
  if (statements.length !== 1) {
    return refuse('postgres', `only a single SELECT statement is allowed (found ${statements.length} statements)`);
  }
  const raw = statements[0];
  const statement: unknown = raw?.stmt;
  const topType = isNode(statement) ? (Object.keys(statement)[0] ?? 'unknown') : 'unknown';
  if (topType !== 'SelectStmt') {
    return refuse('postgres', `only a single SELECT statement is allowed (found ${statementKind(topType)})`);
  }
  const state: WalkState = { relations: [], cteNames: [] };
  walk(statement, state);
  if (state.refusal !== undefined) return refuse('postgres', state.refusal);
  return {
    allowed: true,
    dialect: 'postgres',
    statement: statementText(sql, raw?.stmt_location, raw?.stmt_len),
    relations: state.relations,
    cteNames: state.cteNames,
  };
}
