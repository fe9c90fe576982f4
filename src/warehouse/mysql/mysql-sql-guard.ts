/** Layer 1 for MySQL/MariaDB: sqlparser-rs's MySQL grammar and the MySQL allow-list (functions.ts). */
import type { DialectGuardRules, TreeGuardVerdict } from '../sql-tree/tree-guard.js';
import { guardTreeSql } from '../sql-tree/tree-guard.js';
import { MYSQL_FUNCTIONS, MYSQL_TABLE_FUNCTIONS } from './functions.js';

/** Databases holding the server's accounts, statement history and internals; the reader never needs them. */
const PRIVATE_SCHEMAS = new Set(['mysql', 'performance_schema', 'sys']);

export const MYSQL_GUARD_RULES: DialectGuardRules = {
  dialect: 'mysql',
  parser: 'mysql',
  functions: MYSQL_FUNCTIONS,
  tableFunctions: MYSQL_TABLE_FUNCTIONS,
  relationRefusal(parts) {
    const schema = parts.length >= 2 ? parts[parts.length - 2]?.toLowerCase() : undefined;
    if (schema !== undefined && PRIVATE_SCHEMAS.has(schema))
      return `the ${schema} database holds server internals; agent SQL may not read it`;
    return undefined;
  },
  commentRefusal(content, kind) {
    // the server runs the text of `/*! … */` (MySQL) and `/*M! … */` (MariaDB) comments as SQL
    if (kind === 'multiLine' && /^(M?!)/.test(content)) return 'executable comments (/*! … */, /*M! … */) are not allowed';
    return undefined;
  },
};

export function guardMysqlSql(sql: string): Promise<TreeGuardVerdict> {
  return guardTreeSql(sql, MYSQL_GUARD_RULES);
}
