/** Runs agent SQL through the guarded warehouse path, asking for a fix after each failure (up to MAX_SQL_FIXES). */
import { AssayError, CancelledError, UnsafeSqlError, describeError } from '../../errors/index.js';
import type { QueryOptions, QueryResult, Warehouse } from '../../warehouse/port.js';
import { MAX_SQL_FIXES } from './sql-fixer.js';
import { timedSql } from '../phases/phase-timing.js';

export interface SqlAttempt {
  sql: string;
  error: string;
}

export interface ExecutionOutcome {
  /** Present when a statement succeeded. */
  result?: QueryResult;
  originalSql: string;
  /** The last statement run: the one that succeeded, or the last that failed. */
  executedSql: string;
  fixAttempts: number;
  attempts: SqlAttempt[];
  error?: string;
  /** True when the guard refused the statement: it never ran and is not sent to the fixer. */
  refused: boolean;
}

/** Asks for a corrected statement; null means the fixer had nothing usable. */
export type SqlFixer = (failure: { sql: string; error: string; previous: SqlAttempt[] }) => Promise<string | null>;

export async function executeWithFixes(options: {
  warehouse: Warehouse;
  sql: string;
  fix: SqlFixer;
  queryOptions?: QueryOptions;
  maxFixes?: number;
}): Promise<ExecutionOutcome> {
  const maxFixes = options.maxFixes ?? MAX_SQL_FIXES;
  const attempts: SqlAttempt[] = [];
  let sql = options.sql;
  for (let fixes = 0; ; fixes++) {
    if (options.queryOptions?.signal?.aborted) throw new CancelledError('cancelled before running the query');
    try {
      const result = await timedSql(() => options.warehouse.query(sql, options.queryOptions));
      return { result, originalSql: options.sql, executedSql: sql, fixAttempts: fixes, attempts, refused: false };
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      const message = describeError(error);
      attempts.push({ sql, error: message });
      const refused = error instanceof UnsafeSqlError;
      // a refusal is a rule, not a typo: the model hears it and chooses again
      if (refused || fixes >= maxFixes || !(error instanceof AssayError)) {
        return { originalSql: options.sql, executedSql: sql, fixAttempts: fixes, attempts, error: message, refused };
      }
      const fixed = await options.fix({ sql, error: message, previous: attempts.slice(0, -1) });
      if (!fixed || fixed.trim() === sql.trim()) {
        return { originalSql: options.sql, executedSql: sql, fixAttempts: fixes + (fixed ? 1 : 0), attempts, error: message, refused };
      }
      sql = fixed;
    }
  }
}
