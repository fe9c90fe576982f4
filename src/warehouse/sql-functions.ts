/**
 * The shape of a dialect's function allow-list and the one rule that reads it. Each dialect keeps its
 * list as a plain data module beside its adapter (`src/warehouse/<engine>/functions.ts`); a guard asks
 * `functionCallRefusal` about every call it finds, in every position of the statement. A name that is
 * not on the list is refused — a deny-list always misses one (PostgreSQL's `ts_stat` runs the SQL held
 * in its string argument). Adding a dialect is adding a file of this shape and a guard that walks its
 * parser's tree; adding a function is adding a name (docs/architecture.md, "Read-only by construction").
 */
import type { SqlDialect } from './dialect.js';

export type { SqlDialect };

export interface SqlFunctionList {
  dialect: SqlDialect;
  /** How a refusal names the engine: "PostgreSQL", "DuckDB". */
  engineName: string;
  /**
   * Schemas (and, for three-part names, catalogs) a call may be qualified with: the engine's own
   * built-in namespaces. A call qualified with any other schema names a function the warehouse
   * defined, which no list here vouches for.
   */
  builtinSchemas: readonly string[];
  builtinCatalogs: readonly string[];
  /**
   * true when the engine matches function names case-insensitively even when quoted (DuckDB);
   * false when a quoted name is exact and the parser has already folded unquoted ones (PostgreSQL),
   * so `"LOWER"(x)` is not `lower(x)`.
   */
  caseInsensitiveNames: boolean;
  /** Scalar functions, operators written as functions, and set-returning functions allowed in expressions. */
  scalar: readonly string[];
  aggregate: readonly string[];
  window: readonly string[];
  /** Functions allowed as FROM-clause items (where the engines' readers of files, URLs and SQL strings live), and in expressions too. */
  table: readonly string[];
  /**
   * Why well-known functions are absent: `[name, why]`, a trailing `*` matching a prefix. Only explains a
   * refusal; absence from the lists above is what refuses.
   */
  knownHazards: ReadonlyArray<readonly [pattern: string, why: string]>;
}

/** A function call as the parser resolved it: the name after unquoting, and its qualification if any. */
export interface FunctionCallName {
  catalog?: string | undefined;
  schema?: string | undefined;
  name: string;
}

/** `expression`: select list, WHERE, ORDER BY, window, FILTER, arguments…; `from`: a FROM-clause function. */
export type FunctionPosition = 'expression' | 'from';

interface CompiledList {
  expression: ReadonlySet<string>;
  from: ReadonlySet<string>;
  schemas: ReadonlySet<string>;
  catalogs: ReadonlySet<string>;
}

const compiled = new WeakMap<SqlFunctionList, CompiledList>();

function compile(list: SqlFunctionList): CompiledList {
  let entry = compiled.get(list);
  if (entry === undefined) {
    const fold = (name: string): string => (list.caseInsensitiveNames ? name.toLowerCase() : name);
    entry = {
      // a FROM-clause function may also be called as an expression (set-returning functions in the select list)
      expression: new Set([...list.scalar, ...list.aggregate, ...list.window, ...list.table].map(fold)),
      from: new Set(list.table.map(fold)),
      schemas: new Set(list.builtinSchemas.map((schema) => schema.toLowerCase())),
      catalogs: new Set(list.builtinCatalogs.map((catalog) => catalog.toLowerCase())),
    };
    compiled.set(list, entry);
  }
  return entry;
}

function hazardOf(list: SqlFunctionList, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [pattern, why] of list.knownHazards) {
    if (pattern.endsWith('*') ? lower.startsWith(pattern.slice(0, -1)) : lower === pattern) return why;
  }
  return undefined;
}

function displayName(call: FunctionCallName): string {
  return [call.catalog, call.schema, call.name].filter((part) => part !== undefined && part !== '').join('.');
}

/**
 * Why `call` may not run in `position`, as a sentence fragment naming the function, or undefined when the
 * list allows it. Qualification is resolved first (`pg_catalog.lower` is `lower`; `public.lower` is not),
 * then the name as the engine would match it.
 */
export function functionCallRefusal(list: SqlFunctionList, call: FunctionCallName, position: FunctionPosition): string | undefined {
  const allowed = compile(list);
  const shown = displayName(call);
  const schema = call.schema?.toLowerCase();
  const catalog = call.catalog?.toLowerCase();
  if (
    (schema !== undefined && schema !== '' && !allowed.schemas.has(schema)) ||
    (catalog !== undefined && catalog !== '' && !allowed.catalogs.has(catalog))
  ) {
    return `function ${shown} is not on the ${list.engineName} allow-list: only built-in functions may be called, qualified with ${list.builtinSchemas.join(' or ')} at most`;
  }
  const name = list.caseInsensitiveNames ? call.name.toLowerCase() : call.name;
  if ((position === 'from' ? allowed.from : allowed.expression).has(name)) return undefined;
  const hazard = hazardOf(list, call.name);
  if (hazard !== undefined) return `function ${shown} is not on the ${list.engineName} allow-list: it ${hazard}`;
  if (position === 'from') {
    const also = allowed.expression.has(name) ? ' (it may be called in an expression instead)' : '';
    return `table function ${shown} is not on the ${list.engineName} allow-list of FROM-clause functions (${list.table.join(', ')})${also}`;
  }
  return `function ${shown} is not on the ${list.engineName} allow-list of analysis functions (math, string, date/time, regex, JSON reading, statistics, full-text)`;
}
