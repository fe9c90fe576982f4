/** Layer 1 for DuckDB: DuckDB's own parser (statement extraction + JSON syntax tree) and a walk over every node. */
import { deniedFunctionReason, deniedTableFunctionReason, functionPolicyFor } from '../sql-function-policy.js';
import { refuse, type GuardVerdict, type RelationReference } from '../sql-guard-verdict.js';
import { countDuckdbStatements, serializeDuckdbSql } from './duckdb-sql-parser.js';

const POLICY = functionPolicyFor('duckdb');
const QUERY_NODE_TYPES = new Set(['SELECT_NODE', 'SET_OPERATION_NODE', 'RECURSIVE_CTE_NODE', 'CTE_NODE']);
/** DuckDB reads a table name with a path separator, scheme, extension dot or glob as a file ("replacement scan"). */
const FILE_LIKE_TABLE_NAME = /[./\\:*?~]/;

type JsonNode = Record<string, unknown>;

function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

interface WalkState {
  relations: RelationReference[];
  cteNames: string[];
  refusal?: string;
}

function visit(node: JsonNode, state: WalkState): void {
  if (typeof node.function_name === 'string') {
    const reason = deniedFunctionReason(POLICY, node.function_name);
    if (reason !== undefined) state.refusal = reason;
  }
  if (node.type === 'TABLE_FUNCTION') {
    const call = node.function;
    const name = isNode(call) && typeof call.function_name === 'string' ? call.function_name : '';
    const reason = name === '' ? 'only plain function calls may appear as FROM-clause functions' : deniedTableFunctionReason(POLICY, name);
    if (reason !== undefined) state.refusal = reason;
  }
  if (node.type === 'BASE_TABLE' && typeof node.table_name === 'string') {
    if (FILE_LIKE_TABLE_NAME.test(node.table_name)) {
      state.refusal = `table name ${JSON.stringify(node.table_name)} looks like a file or URL, which DuckDB would read`;
      return;
    }
    state.relations.push({
      catalog: text(node.catalog_name),
      schema: text(node.schema_name),
      name: node.table_name,
      location: typeof node.query_location === 'number' ? node.query_location : -1,
      alias: text(node.alias),
    });
  }
  if (isNode(node.cte_map) && Array.isArray(node.cte_map.map)) {
    for (const entry of node.cte_map.map) {
      if (!isNode(entry)) continue;
      if (typeof entry.key === 'string') state.cteNames.push(entry.key);
      const query = isNode(entry.value) && isNode(entry.value.query) ? entry.value.query.node : undefined;
      if (!isNode(query) || !QUERY_NODE_TYPES.has(String(query.type))) {
        state.refusal = `a WITH clause may only hold SELECT queries (CTE ${String(entry.key)})`;
      }
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
  visit(value, state);
  for (const child of Object.values(value)) {
    walk(child, state);
    if (state.refusal !== undefined) return;
  }
}

/** Turns DuckDB's parser messages for constructs it rejects outright into the guard's reasons; anything else is a syntax error. */
function parserRefusal(message: string): GuardVerdict {
  if (/only select statements/i.test(message)) return refuse('duckdb', 'only a single SELECT statement is allowed');
  if (/SELECT INTO/i.test(message)) return refuse('duckdb', 'SELECT … INTO creates a table');
  if (/locking clause/i.test(message)) return refuse('duckdb', 'FOR UPDATE/SHARE takes row locks');
  if (/CTE needs a SELECT/i.test(message)) return refuse('duckdb', 'a WITH clause may only hold SELECT queries');
  return refuse('duckdb', `the SQL does not parse (${message.replace(/^Failed to extract statements: /, '')})`, { syntaxError: true });
}

export async function guardDuckdbSql(sql: string): Promise<GuardVerdict> {
  let statementCount: number;
  try {
    statementCount = await countDuckdbStatements(sql);
  } catch (error) {
    return parserRefusal(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
  }
  if (statementCount !== 1) {
    return refuse('duckdb', `only a single SELECT statement is allowed (found ${statementCount} statements)`);
  }
  const tree = await serializeDuckdbSql(sql);
  if (tree.error || !Array.isArray(tree.statements) || tree.statements.length !== 1) {
    return tree.error
      ? parserRefusal(tree.error_message ?? 'unknown parser error')
      : refuse('duckdb', 'only a single SELECT statement is allowed');
  }
  const root = tree.statements[0]?.node;
  if (!isNode(root) || !QUERY_NODE_TYPES.has(String(root.type))) {
    return refuse('duckdb', 'only a single SELECT statement is allowed');
  }
  const state: WalkState = { relations: [], cteNames: [] };
  walk(root, state);
  if (state.refusal !== undefined) return refuse('duckdb', state.refusal);
  const statement = sql.trim();
  return { allowed: true, dialect: 'duckdb', statement, relations: state.relations, cteNames: state.cteNames };
}
