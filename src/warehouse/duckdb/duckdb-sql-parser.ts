/**
 * DuckDB's own parser, reached through a private, empty, locked-down in-memory instance:
 * `extractStatements` counts statements, `json_serialize_sql` returns the SELECT's syntax tree,
 * `json_deserialize_sql` turns a (rewritten) tree back into SQL. Nothing here ever touches data.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createLimiter } from '../../concurrency/index.js';

/**
 * Settings of every DuckDB instance agent SQL can reach: no files, no network, no extension
 * loading, and no changing it back. Applied in this order: the lock must come last.
 */
export const DUCKDB_LOCKDOWN_SETTINGS = {
  enable_external_access: 'false',
  autoload_known_extensions: 'false',
  autoinstall_known_extensions: 'false',
  lock_configuration: 'true',
} as const;

export interface SerializedDuckdbSql {
  error: boolean;
  error_type?: string;
  error_message?: string;
  statements?: Array<{ node: Record<string, unknown> }>;
}

/** Marks integers JavaScript numbers cannot hold exactly (DuckDB writes uint64 locations and constants). */
const BIG_INTEGER_MARK = '\u0000assay-bigint:';

/** A JSON string, or an integer of 16+ digits in value position (the only numbers a double may round). */
const STRING_OR_BIG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<=[:,[]\s*)-?\d{16,}(?![.eE\d])/g;

/** JSON.parse, except long integers stay exact (as marked strings) so the tree can be rendered back unchanged. */
function parseKeepingBigIntegers(text: string): unknown {
  return JSON.parse(
    text.replace(STRING_OR_BIG_INTEGER, (token) => (token.startsWith('"') ? token : JSON.stringify(`${BIG_INTEGER_MARK}${token}`))),
  );
}

function stringifyRestoringBigIntegers(tree: unknown): string {
  const marked = new RegExp(`"${JSON.stringify(BIG_INTEGER_MARK).slice(1, -1).replaceAll('\\', '\\\\')}(-?\\d+)"`, 'g');
  return JSON.stringify(tree).replace(marked, '$1');
}

let parserConnection: Promise<DuckDBConnection> | undefined;
/** The parser connection executes one statement at a time. */
const parserQueue = createLimiter(1);

function connection(): Promise<DuckDBConnection> {
  parserConnection ??= DuckDBInstance.create(':memory:', { ...DUCKDB_LOCKDOWN_SETTINGS }).then((instance) => instance.connect());
  return parserConnection;
}

/** Number of statements in `sql`; throws the parser's error when it does not parse. */
export function countDuckdbStatements(sql: string): Promise<number> {
  return parserQueue(async () => (await (await connection()).extractStatements(sql)).count);
}

export function serializeDuckdbSql(sql: string): Promise<SerializedDuckdbSql> {
  return parserQueue(async () => {
    const reader = await (await connection()).runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
    const text = reader.getRows()[0]?.[0];
    return parseKeepingBigIntegers(String(text)) as SerializedDuckdbSql;
  });
}

export function deserializeDuckdbSql(tree: SerializedDuckdbSql): Promise<string> {
  return parserQueue(async () => {
    const reader = await (await connection()).runAndReadAll('SELECT json_deserialize_sql($1::JSON)', [stringifyRestoringBigIntegers(tree)]);
    return String(reader.getRows()[0]?.[0]);
  });
}
