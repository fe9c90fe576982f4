/**
 * Tenant filter: every relation that has the tenant column is seen by agent SQL only through
 * `(SELECT * FROM <relation> WHERE <field> = <value>) AS <name>`. The adapters rewrite each
 * reference in the statement's syntax tree (DuckDB: its JSON tree, re-rendered by DuckDB;
 * PostgreSQL: the parser's locations and tokens), so the filter follows the relation wherever it
 * is named: FROM, JOIN, subqueries, CTE bodies, qualified or not. Filtered views or row-level
 * security would need DDL rights on the customer's warehouse; the rewrite needs none.
 *
 * Limits, on purpose: a relation without the tenant column is not filtered (a view that
 * aggregates across tenants stays visible; grant the role only tenant-safe objects), and a CTE
 * may not reuse a filtered relation's name (it would make a reference ambiguous).
 */
import { ConfigError, UnsafeSqlError } from '../errors/index.js';

export interface TenantFilter {
  field: string;
  value: string | number;
}

/** Relations (lower-cased `schema.name`) that carry the tenant column. */
export type FilteredRelations = ReadonlySet<string>;

export function relationKey(schema: string, name: string): string {
  return `${schema.toLowerCase()}.${name.toLowerCase()}`;
}

export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** The value as a SQL literal; both engines use standard strings (a quote is doubled, a backslash is literal). */
export function tenantValueLiteral(filter: TenantFilter): string {
  if (typeof filter.value === 'number') {
    if (!Number.isFinite(filter.value))
      throw new ConfigError(`tenant filter value for ${filter.field} must be a finite number or a string`);
    return String(filter.value);
  }
  return `'${filter.value.replaceAll("'", "''")}'`;
}

/** The derived table that stands in for a filtered relation. */
export function filteredRelationSql(schema: string, name: string, filter: TenantFilter): string {
  return `(SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(name)} WHERE ${quoteIdentifier(filter.field)} = ${tenantValueLiteral(filter)})`;
}

/** Refuses statements whose CTE names shadow a filtered relation (the reference would be ambiguous). */
export function assertNoShadowingCte(cteNames: readonly string[], filteredNames: ReadonlySet<string>): void {
  for (const cteName of cteNames) {
    if (filteredNames.has(cteName.toLowerCase())) {
      throw new UnsafeSqlError(`with a tenant filter, a CTE may not be named like the filtered table ${cteName}; rename the CTE`);
    }
  }
}

export function validateTenantFilter(filter: TenantFilter): TenantFilter {
  if (filter.field.trim().length === 0) throw new ConfigError('tenant filter field must be a column name');
  tenantValueLiteral(filter);
  return filter;
}
