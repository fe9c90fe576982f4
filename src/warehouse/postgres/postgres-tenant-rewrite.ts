/**
 * Tenant filter for PostgreSQL: every reference to a filtered relation is replaced, at the byte
 * range the parser and scanner report for it, by the filtered derived table (see ../tenant-filter.ts).
 */
import { scanSync } from 'libpg-query';
import { UnsafeSqlError } from '../../errors/index.js';
import type { AllowedSql } from '../sql-guard-verdict.js';
import {
  assertNoShadowingCte,
  filteredRelationSql,
  quoteIdentifier,
  relationKey,
  type FilteredRelations,
  type TenantFilter,
} from '../tenant-filter.js';
import { guardPostgresSql } from './postgres-sql-guard.js';

export interface PostgresTenantContext {
  filtered: FilteredRelations;
  /** Bare (lower-cased) relation name → the schema an unqualified reference resolves to on the search path. */
  searchPathSchema: ReadonlyMap<string, string>;
  filter: TenantFilter;
}

interface Replacement {
  start: number;
  end: number;
  text: string;
}

export async function applyPostgresTenantFilter(allowed: AllowedSql, context: PostgresTenantContext): Promise<string> {
  const filteredNames = new Set([...context.filtered].map((key) => key.slice(key.indexOf('.') + 1)));
  assertNoShadowingCte(allowed.cteNames, filteredNames);
  // parse the statement text itself, so every location is an offset into it
  const verdict = await guardPostgresSql(allowed.statement);
  if (!verdict.allowed) throw new UnsafeSqlError(verdict.reason);
  const bytes = Buffer.from(verdict.statement, 'utf8');
  const tokens = scanSync(verdict.statement).tokens;
  const replacements: Replacement[] = [];
  for (const relation of verdict.relations) {
    const schema = relation.schema ?? context.searchPathSchema.get(relation.name.toLowerCase());
    if (schema === undefined || !context.filtered.has(relationKey(schema, relation.name))) continue;
    let index = tokens.findIndex((token) => token.start === relation.location);
    const first = tokens[index];
    if (first === undefined) throw new UnsafeSqlError(`the tenant filter could not be applied to ${relation.name}`);
    let end = first.end;
    // a qualified name is `part . part [. part]`
    while (tokens[index + 1]?.text === '.' && tokens[index + 2] !== undefined) {
      end = tokens[index + 2]?.end ?? end;
      index += 2;
    }
    const aliasSql = relation.alias === undefined ? ` AS ${quoteIdentifier(relation.name)}` : '';
    replacements.push({ start: first.start, end, text: `${filteredRelationSql(schema, relation.name, context.filter)}${aliasSql}` });
  }
  replacements.sort((left, right) => right.start - left.start);
  let rewritten = bytes;
  for (const replacement of replacements) {
    rewritten = Buffer.concat([
      rewritten.subarray(0, replacement.start),
      Buffer.from(replacement.text, 'utf8'),
      rewritten.subarray(replacement.end),
    ]);
  }
  return rewritten.toString('utf8');
}
