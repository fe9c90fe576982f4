/**
 * A claim's table together with the values it reads from related tables (`derived`), as SQL: one FROM
 * clause (the table as `t`, each parent LEFT JOINed, each child aggregated per key and LEFT JOINed),
 * and an expression for every column name the claim may use — its own columns and the derived names.
 * Built from the claim's definitions alone, with every table and column resolved against the schema.
 */
import type { ClaimDerived } from '../../domain/index.js';
import type { ColumnInfo, TableDescription } from '../../warehouse/port.js';
import { comparedOperand, type SqlSyntax } from '../../warehouse/sql-syntax/index.js';

export class RelationShapeError extends Error {}

export interface Relation {
  table: TableDescription;
  /** `"schema"."table" AS t LEFT JOIN …` */
  from: string;
  /** The SQL expression of a column name (own column or derived name). */
  column(name: string | undefined, role: string): string;
  /** The column's type as the engine names it (derived values: their aggregate's type). */
  typeOf(name: string): string;
  syntax: SqlSyntax;
}

export const BASE_ALIAS = 't';

export function resolveTable(name: string, tables: readonly TableDescription[]): TableDescription {
  const wanted = name.replace(/"/g, '').toLowerCase();
  const table =
    tables.find((candidate) => candidate.qualified.toLowerCase() === wanted) ??
    tables.find((candidate) => candidate.name.toLowerCase() === wanted);
  if (!table) throw new RelationShapeError(`table "${name}" is not in the warehouse schema`);
  return table;
}

export function findColumn(table: TableDescription, name: string, role: string): ColumnInfo {
  const found =
    table.columns.find((candidate) => candidate.name === name) ??
    table.columns.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
  if (!found) throw new RelationShapeError(`${role} "${name}" is not in ${table.qualified}`);
  return found;
}

function literalOf(syntax: SqlSyntax, value: string | number | boolean): string {
  try {
    return syntax.literal(value);
  } catch (error) {
    throw new RelationShapeError((error as Error).message);
  }
}

function childSql(
  syntax: SqlSyntax,
  base: TableDescription,
  child: Extract<ClaimDerived, { from: 'child' }>,
  tables: readonly TableDescription[],
): { join: string; value: (raw: string) => string; type: string } {
  const table = resolveTable(child.table, tables);
  const id = (owner: TableDescription, name: string, role: string) => syntax.identifier(findColumn(owner, name, role).name);
  const link = `c.${id(table, child.link, 'child link')}`;
  const conditions: string[] = [];
  let joinBase = '';
  if (child.window) {
    joinBase = ` JOIN ${syntax.table(base)} AS p ON ${link} = p.${id(base, child.key, 'key')}`;
    const since = `p.${id(base, child.window.since, 'window start')}`;
    const at = `c.${id(table, child.window.at, 'window time')}`;
    conditions.push(
      `${at} >= ${syntax.addDays(since, child.window.from_days)}`,
      `${at} < ${syntax.addDays(since, child.window.to_days + 1)}`,
    );
  }
  for (const condition of child.where ?? []) {
    const target = `c.${id(table, condition.column, 'child condition')}`;
    if (condition.op === 'is_null') conditions.push(`${target} IS NULL`);
    else if (condition.op === 'not_null') conditions.push(`${target} IS NOT NULL`);
    else {
      if (condition.value === undefined) throw new RelationShapeError(`child condition on "${condition.column}" needs a value`);
      conditions.push(
        `${comparedOperand(syntax, target, [condition.value])} ${condition.op === '!=' ? '<>' : condition.op} ${literalOf(syntax, condition.value)}`,
      );
    }
  }
  let aggregate: string;
  let type = 'BIGINT';
  switch (child.aggregate) {
    case 'exists':
    case 'count':
      aggregate = 'count(*)';
      break;
    case 'sum':
      if (!child.column) throw new RelationShapeError(`derived "${child.name}" sums no column`);
      aggregate = syntax.toDouble(`sum(c.${id(table, child.column, 'summed column')})`);
      type = 'DOUBLE';
      break;
    case 'first': {
      const at = child.window?.at ?? child.at;
      if (!at) throw new RelationShapeError(`derived "${child.name}" needs the child time it takes first`);
      aggregate = `min(c.${id(table, at, 'child time')})`;
      type = 'TIMESTAMP';
      break;
    }
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const join = `(SELECT ${link} AS k, ${aggregate} AS v FROM ${syntax.table(table)} AS c${joinBase}${where} GROUP BY ${link})`;
  /** The derived value from the child's aggregate as joined (`raw`: NULL where the row has no child). */
  const value = (raw: string) => {
    switch (child.aggregate) {
      case 'exists':
        return `(CASE WHEN ${raw} > 0 THEN ${syntax.boolean(true)} ELSE ${syntax.boolean(false)} END)`;
      case 'count':
      case 'sum':
        return `coalesce(${raw}, 0)`;
      case 'first':
        return raw;
    }
  };
  return { join, value, type: child.aggregate === 'exists' ? 'BOOLEAN' : type };
}

/** The relation of `tableName` with `derived` values, against the warehouse's schema. */
export function buildRelation(
  syntax: SqlSyntax,
  tableName: string,
  derived: readonly ClaimDerived[],
  tables: readonly TableDescription[],
  /** A FROM item standing for the table (a uniform sample of it); the table itself when absent. */
  baseFrom?: string,
): Relation {
  const table = resolveTable(tableName, tables);
  const joins: Array<{ sql: string; values: Array<{ name: string; raw: string }> }> = [];
  const expressions = new Map<string, { sql: string; type: string }>();
  // one join per distinct (source, condition): several values read from one parent (a customer's tier and
  // region), or one child aggregate named twice (orders per session as a count and as "has an order"),
  // share it — written once per value, an engine that materialises each derived table (MariaDB) counted
  // the same child table four times in every statement
  const aliases = new Map<string, { alias: string; values: Array<{ name: string; raw: string }> }>();
  const joined = (source: string, on: (alias: string) => string): { alias: string; values: Array<{ name: string; raw: string }> } => {
    const known = aliases.get(`${source}\n${on('·')}`);
    if (known) return known;
    const join = { alias: `d${aliases.size}`, values: [] as Array<{ name: string; raw: string }> };
    aliases.set(`${source}\n${on('·')}`, join);
    joins.push({ sql: `LEFT JOIN ${source} AS ${join.alias} ON ${on(join.alias)}`, values: join.values });
    return join;
  };
  // one JOIN per SELECT: each join is made in its own SELECT around the previous one, which passes its
  // values on by their derived names; they are read from the outermost `t`
  const nested = syntax.oneJoinPerSelect === true;
  const read = (join: { values: Array<{ name: string; raw: string }> }, name: string, raw: string): string => {
    if (!nested) return raw;
    join.values.push({ name, raw });
    return `${BASE_ALIAS}.${syntax.identifier(name)}`;
  };
  for (const item of derived) {
    if (table.columns.some((column) => column.name === item.name))
      throw new RelationShapeError(`derived name "${item.name}" is also a column of ${table.qualified}`);
    if (item.from === 'parent') {
      const parent = resolveTable(item.table, tables);
      const link = syntax.identifier(findColumn(table, item.link, 'parent link').name);
      const key = syntax.identifier(findColumn(parent, item.key, 'parent key').name);
      const column = findColumn(parent, item.column, 'parent column');
      const join = joined(syntax.table(parent), (alias) => `${alias}.${key} = ${BASE_ALIAS}.${link}`);
      expressions.set(item.name, { sql: read(join, item.name, `${join.alias}.${syntax.identifier(column.name)}`), type: column.type });
    } else {
      const key = syntax.identifier(findColumn(table, item.key, 'key').name);
      const compiled = childSql(syntax, table, item, tables);
      const join = joined(compiled.join, (alias) => `${alias}.k = ${BASE_ALIAS}.${key}`);
      expressions.set(item.name, { sql: compiled.value(read(join, item.name, `${join.alias}.v`)), type: compiled.type });
    }
  }
  return {
    table,
    syntax,
    from: nested
      ? joins.reduce(
          (inner, join) =>
            `(SELECT ${[`${BASE_ALIAS}.*`, ...join.values.map((value) => `${value.raw} AS ${syntax.identifier(value.name)}`)].join(', ')} FROM ${inner}\n${join.sql}) AS ${BASE_ALIAS}`,
          `${baseFrom ?? syntax.table(table)} AS ${BASE_ALIAS}`,
        )
      : [`${baseFrom ?? syntax.table(table)} AS ${BASE_ALIAS}`, ...joins.map((join) => join.sql)].join('\n'),
    column(name, role) {
      if (name === undefined) throw new RelationShapeError(`the claim needs a ${role}`);
      const own = expressions.get(name);
      if (own) return own.sql;
      return `${BASE_ALIAS}.${syntax.identifier(findColumn(table, name, role).name)}`;
    },
    typeOf(name) {
      const own = expressions.get(name);
      if (own) return own.type;
      return findColumn(table, name, 'column').type;
    },
  };
}
