/**
 * Layer 1 for BigQuery, offline: sqlparser-rs's BigQuery grammar and the BigQuery allow-list
 * (functions.ts). The adapter adds the engine's own check: a dry run whose statement type must be SELECT.
 */
import type { DialectGuardRules, TreeGuardVerdict } from '../sql-tree/tree-guard.js';
import { guardTreeSql } from '../sql-tree/tree-guard.js';
import { BIGQUERY_FUNCTIONS, BIGQUERY_TABLE_FUNCTIONS } from './functions.js';

export const BIGQUERY_GUARD_RULES: DialectGuardRules = {
  dialect: 'bigquery',
  parser: 'bigquery',
  functions: BIGQUERY_FUNCTIONS,
  tableFunctions: BIGQUERY_TABLE_FUNCTIONS,
  functionName(parts) {
    const lower = parts.map((part) => part.toLowerCase());
    // SAFE.f(x) is f(x) returning NULL instead of an error
    return (lower[0] === 'safe' && lower.length > 1 ? lower.slice(1) : lower).join('.');
  },
  relationRefusal(parts) {
    // INFORMATION_SCHEMA.JOBS* holds every user's query text; the adapter reads the catalog itself
    if (parts.some((part) => part.toLowerCase().split('.').includes('information_schema')))
      return 'INFORMATION_SCHEMA views hold other users’ jobs and queries; agent SQL may not read them';
    return undefined;
  },
};

export function guardBigquerySql(sql: string): Promise<TreeGuardVerdict> {
  return guardTreeSql(sql, BIGQUERY_GUARD_RULES);
}
