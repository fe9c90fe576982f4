/** What the SQL guard decides about one statement (shared by the dialect guards). */
import type { SqlDialect } from './sql-functions.js';

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
}

export type GuardVerdict = AllowedSql | RefusedSql;

export function refuse(dialect: SqlDialect, reason: string): RefusedSql {
  return { allowed: false, dialect, reason };
}
