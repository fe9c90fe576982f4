/** What the SQL guard decides about one statement (shared by the dialect guards). */
import type { SqlDialect } from './sql-function-policy.js';

/** A table (or view, or CTE) named in the statement's FROM clauses. */
export interface RelationReference {
  catalog?: string | undefined;
  schema?: string | undefined;
  name: string;
  /** Where the reference starts: a UTF-8 byte offset (PostgreSQL) or a character offset (DuckDB). */
  location: number;
  /** The alias the statement gave it, if any. */
  alias?: string | undefined;
}

export interface AllowedSql {
  allowed: true;
  dialect: SqlDialect;
  /** The single statement, trimmed of surrounding whitespace and trailing semicolons. */
  statement: string;
  relations: RelationReference[];
  /** Names of every CTE the statement defines, at any depth. */
  cteNames: string[];
}

export interface RefusedSql {
  allowed: false;
  dialect: SqlDialect;
  /** Why, as a sentence fragment after "refused: ". */
  reason: string;
  /** The statement does not parse: a typo to fix, not a rule it broke. */
  syntaxError?: true;
}

export type GuardVerdict = AllowedSql | RefusedSql;

export function refuse(dialect: SqlDialect, reason: string, options: { syntaxError?: boolean } = {}): RefusedSql {
  return { allowed: false, dialect, reason, ...(options.syntaxError ? { syntaxError: true as const } : {}) };
}
