/**
 * Tenant filter for the dialects read by sqlparser-rs: every reference to a filtered relation is
 * replaced, at the character range the parser reports for its name, by the filtered derived table
 * written in the dialect's own quoting (see ../tenant-filter.ts). The rewritten statement passes the
 * guard again before it runs. Where a name's position is unknown, the statement is refused: a filter
 * that cannot be applied is never skipped.
 */
import { UnsafeSqlError } from '../../errors/index.js';
import type { SqlSyntax } from '../sql-syntax/syntax.js';
import { assertNoShadowingCte, relationKey, type FilteredRelations, type TenantFilter } from '../tenant-filter.js';
import { guardTreeSql, type DialectGuardRules, type TreeAllowedSql } from './tree-guard.js';

export interface TreeTenantContext {
  filter: TenantFilter;
  /** Lower-cased `schema.name` of the relations that carry the tenant column. */
  filtered: FilteredRelations;
  /** The schema (database, dataset) an unqualified name resolves to. */
  defaultSchema: string;
  syntax: SqlSyntax;
  rules: DialectGuardRules;
}

/** `(SELECT * FROM schema.name WHERE field = value)`, in the dialect's quoting. */
export function filteredRelationFor(syntax: SqlSyntax, table: { schema: string; name: string }, filter: TenantFilter): string {
  return `(SELECT * FROM ${syntax.table(table)} WHERE ${syntax.identifier(filter.field)} = ${syntax.literal(filter.value)})`;
}

export async function applyTreeTenantFilter(allowed: TreeAllowedSql, context: TreeTenantContext): Promise<string> {
  const filteredNames = new Set([...context.filtered].map((key) => key.slice(key.indexOf('.') + 1)));
  assertNoShadowingCte(allowed.cteNames, filteredNames);
  const cteNames = new Set(allowed.cteNames.map((name) => name.toLowerCase()));
  const replacements: Array<{ start: number; end: number; text: string }> = [];
  for (const relation of allowed.relations) {
    if (relation.schema === undefined && cteNames.has(relation.name.toLowerCase())) continue;
    const schema = relation.schema ?? context.defaultSchema;
    if (!context.filtered.has(relationKey(schema, relation.name))) continue;
    if (relation.location < 0 || relation.end <= relation.location) {
      throw new UnsafeSqlError(
        `the tenant filter could not be applied to ${relation.parts.join('.')}: its position in the statement is unknown`,
      );
    }
    const alias = relation.alias === undefined ? ` AS ${context.syntax.identifier(relation.name)}` : '';
    replacements.push({
      start: relation.location,
      end: relation.end,
      text: `${filteredRelationFor(context.syntax, { schema, name: relation.name }, context.filter)}${alias}`,
    });
  }
  if (replacements.length === 0) return allowed.statement;
  let rewritten = allowed.statement;
  for (const replacement of replacements.sort((left, right) => right.start - left.start)) {
    rewritten = `${rewritten.slice(0, replacement.start)}${replacement.text}${rewritten.slice(replacement.end)}`;
  }
  const verdict = await guardTreeSql(rewritten, context.rules);
  if (!verdict.allowed) throw new UnsafeSqlError(`the tenant filter could not be applied: ${verdict.reason}`);
  return verdict.statement;
}
