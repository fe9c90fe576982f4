/**
 * Layer 1 for Snowflake, offline: sqlparser-rs's Snowflake grammar and the Snowflake allow-list
 * (functions.ts). The adapter adds the engine's own check: the statement type Snowflake reports
 * must be SELECT, with MULTI_STATEMENT_COUNT = 1.
 */
import type { DialectGuardRules, TreeGuardVerdict } from '../sql-tree/tree-guard.js';
import { guardTreeSql } from '../sql-tree/tree-guard.js';
import { SNOWFLAKE_FUNCTIONS, SNOWFLAKE_TABLE_FUNCTIONS } from './functions.js';

export const SNOWFLAKE_GUARD_RULES: DialectGuardRules = {
  dialect: 'snowflake',
  parser: 'snowflake',
  functions: SNOWFLAKE_FUNCTIONS,
  tableFunctions: SNOWFLAKE_TABLE_FUNCTIONS,
  relationRefusal(parts) {
    const first = parts[0] ?? '';
    // @stage, @~ (user stage), @%table (table stage): files, not tables
    if (/^[@~%]/.test(first) || parts.some((part) => part.includes('/')))
      return `${parts.join('.')} names a stage (files), which agent SQL may not read`;
    if (parts.length >= 3 && first.toLowerCase() === 'snowflake')
      return 'the SNOWFLAKE database holds account usage and query history; agent SQL may not read it';
    return undefined;
  },
};

export function guardSnowflakeSql(sql: string): Promise<TreeGuardVerdict> {
  return guardTreeSql(sql, SNOWFLAKE_GUARD_RULES);
}
