/** Tenant filter for DuckDB: rewrite the statement's JSON syntax tree, let DuckDB render it back to SQL. */
import type { AllowedSql } from '../sql-guard-verdict.js';
import {
  assertNoShadowingCte,
  filteredRelationSql,
  quoteIdentifier,
  relationKey,
  type FilteredRelations,
  type TenantFilter,
} from '../tenant-filter.js';
import { UnsafeSqlError } from '../../errors/index.js';
import { deserializeDuckdbSql, serializeDuckdbSql } from './duckdb-sql-parser.js';

type JsonNode = Record<string, unknown>;

function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DEFAULT_SCHEMA = 'main';

/** The FROM item DuckDB's parser produces for `(SELECT … WHERE field = value) AS alias`. */
async function derivedTableNode(schema: string, name: string, alias: string, filter: TenantFilter): Promise<JsonNode> {
  const tree = await serializeDuckdbSql(`SELECT * FROM ${filteredRelationSql(schema, name, filter)} AS ${quoteIdentifier(alias)}`);
  const fromTable = tree.statements?.[0]?.node.from_table;
  if (tree.error || !isNode(fromTable)) throw new UnsafeSqlError(`the tenant filter could not be applied to ${schema}.${name}`);
  return fromTable;
}

function collectBaseTables(value: unknown, found: JsonNode[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectBaseTables(item, found);
    return;
  }
  if (!isNode(value)) return;
  if (value.type === 'BASE_TABLE') found.push(value);
  for (const child of Object.values(value)) collectBaseTables(child, found);
}

export async function applyDuckdbTenantFilter(allowed: AllowedSql, filtered: FilteredRelations, filter: TenantFilter): Promise<string> {
  const filteredNames = new Set([...filtered].map((key) => key.slice(key.indexOf('.') + 1)));
  assertNoShadowingCte(allowed.cteNames, filteredNames);
  const tree = await serializeDuckdbSql(allowed.statement);
  const baseTables: JsonNode[] = [];
  collectBaseTables(tree.statements, baseTables);
  let rewritten = 0;
  for (const node of baseTables) {
    const name = String(node.table_name);
    const schema = typeof node.schema_name === 'string' && node.schema_name.length > 0 ? node.schema_name : DEFAULT_SCHEMA;
    if (!filtered.has(relationKey(schema, name))) continue;
    const alias = typeof node.alias === 'string' && node.alias.length > 0 ? node.alias : name;
    const replacement = await derivedTableNode(schema, name, alias, filter);
    replacement.column_name_alias = node.column_name_alias ?? [];
    replacement.sample = node.sample ?? null;
    // replace in place: the parent keeps its reference to this object
    for (const key of Object.keys(node)) delete node[key];
    Object.assign(node, replacement);
    rewritten += 1;
  }
  return rewritten === 0 ? allowed.statement : deserializeDuckdbSql(tree);
}
