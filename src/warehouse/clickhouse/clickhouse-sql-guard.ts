/** Layer 1 for ClickHouse: sqlparser-rs's ClickHouse grammar and the ClickHouse allow-list (functions.ts). */
import type { DialectGuardRules, TreeGuardVerdict } from '../sql-tree/tree-guard.js';
import { guardTreeSql } from '../sql-tree/tree-guard.js';
import { CLICKHOUSE_COMBINATORS, CLICKHOUSE_FUNCTIONS, CLICKHOUSE_TABLE_FUNCTIONS } from './functions.js';

/** `countIf` → `count`, `uniqMergeState` → `uniq`; a name that is no allowed function plus combinators stays as it is. */
export function clickhouseBaseFunction(name: string): string {
  const lower = name.toLowerCase();
  if (CLICKHOUSE_FUNCTIONS.has(lower)) return lower;
  for (const combinator of CLICKHOUSE_COMBINATORS) {
    if (lower.length > combinator.length && lower.endsWith(combinator)) {
      const base = clickhouseBaseFunction(lower.slice(0, -combinator.length));
      if (CLICKHOUSE_FUNCTIONS.has(base)) return base;
    }
  }
  return lower;
}

export const CLICKHOUSE_GUARD_RULES: DialectGuardRules = {
  dialect: 'clickhouse',
  parser: 'clickhouse',
  functions: CLICKHOUSE_FUNCTIONS,
  tableFunctions: CLICKHOUSE_TABLE_FUNCTIONS,
  functionName: (parts) => (parts.length === 1 ? clickhouseBaseFunction(parts[0] ?? '') : parts.join('.')),
  relationRefusal(parts) {
    const database = parts.length >= 2 ? parts[parts.length - 2]?.toLowerCase() : undefined;
    // system.* holds other users' queries (query_log, processes), accounts and server settings
    if (database === 'system') return 'the system database holds server internals and other users’ queries; agent SQL may not read it';
    return undefined;
  },
};

export function guardClickhouseSql(sql: string): Promise<TreeGuardVerdict> {
  return guardTreeSql(sql, CLICKHOUSE_GUARD_RULES);
}
