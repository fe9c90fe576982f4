/** Layer 1 for PostgreSQL: the real PostgreSQL parser (libpg-query) and a walk over every node. */
import { loadModule, parseSync } from 'libpg-query';
import { deniedFunctionReason, deniedTableFunctionReason, functionPolicyFor } from '../sql-function-policy.js';
import { refuse, type GuardVerdict, type RelationReference } from '../sql-guard-verdict.js';

const POLICY = functionPolicyFor('postgres');
let moduleLoaded: Promise<void> | undefined;

type JsonNode = Record<string, unknown>;

function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `[{String:{sval:'pg_catalog'}},{String:{sval:'pg_read_file'}}]` → `pg_read_file`. */
function lastNamePart(nameList: unknown): string {
  if (!Array.isArray(nameList)) return '';
  const last: unknown = nameList[nameList.length - 1];
  if (isNode(last) && isNode(last.String) && typeof last.String.sval === 'string') return last.String.sval;
  return '';
}

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
    case 'FuncCall': {
      const reason = deniedFunctionReason(POLICY, lastNamePart(body.funcname));
      if (reason !== undefined) state.refusal = reason;
      return;
    }
    case 'RangeFunction': {
      for (const item of Array.isArray(body.functions) ? body.functions : []) {
        const pair = isNode(item) && isNode(item.List) && Array.isArray(item.List.items) ? item.List.items : [];
        const call: unknown = pair[0];
        const name = isNode(call) && isNode(call.FuncCall) ? lastNamePart(call.FuncCall.funcname) : '';
        // a FROM-clause item that is not a plain function call (SQL-standard special forms) is refused too
        const reason =
          name === '' ? 'only plain function calls may appear as FROM-clause functions' : deniedTableFunctionReason(POLICY, name);
        if (reason !== undefined) state.refusal = reason;
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
    default:
      return;
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
