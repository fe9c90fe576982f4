/**
 * The landscape query: one row with the number of distinct values of every text and ordinal column
 * of the looked-up tables, and the values themselves where there are few. It tells the planner which
 * columns are dimensions worth grouping by, and which status values deserve a rate.
 */
import type { SqlDialect } from './dialect.js';
import { findReferences } from '../schema-model.js';
import type { TableModel } from '../types.js';

/** A column with at most this many values gets them listed (13 fetched: a 13th proves "more"). */
export const PROFILE_VALUES_MAX = 12;
/** Columns profiled in one query: one wide row stays readable. */
export const PROFILE_MAX_COLUMNS = 60;
/** Separates values in the listed-values cell. */
export const PROFILE_VALUE_SEPARATOR = '|';

/** Output keys: `schema.table.column:n` (distinct count), `…:v` (values) and `…:w` (average words per value). */
export function profileKey(table: TableModel, columnName: string, suffix: 'n' | 'v' | 'w'): string {
  return `${table.qualified}.${columnName}:${suffix}`;
}

/**
 * Text and ordinal columns, and identifier-named columns that point at no looked-up table: whether
 * those behave like keys (every value distinct) or like names to group by, the profile tells.
 */
export function profiledColumns(tables: readonly TableModel[]): Array<{ table: TableModel; column: TableModel['columns'][number] }> {
  const pointing = new Set(findReferences(tables).map((reference) => `${reference.from.qualified}.${reference.column.name}`));
  return tables
    .flatMap((table) =>
      table.columns
        .filter(
          (column) =>
            column.role === 'text' ||
            column.role === 'ordinal' ||
            (column.role === 'reference' && !pointing.has(`${table.qualified}.${column.name}`)),
        )
        .map((column) => ({ table, column })),
    )
    .slice(0, PROFILE_MAX_COLUMNS);
}

export function profileQuery(dialect: SqlDialect, tables: readonly TableModel[]): string {
  const parts: string[] = [];
  for (const { table, column } of profiledColumns(tables)) {
    const name = dialect.identifier(column.name);
    const source = dialect.table(table.qualified);
    parts.push(`(SELECT COUNT(DISTINCT ${name}) FROM ${source}) AS ${dialect.identifier(profileKey(table, column.name, 'n'))}`);
    if (column.role !== 'ordinal') {
      parts.push(
        `(SELECT ${dialect.syntax.wordCount(name)} FROM ${source} WHERE ${name} IS NOT NULL) AS ${dialect.identifier(profileKey(table, column.name, 'w'))}`,
      );
      parts.push(
        `(SELECT ${dialect.syntax.orderedConcat('v', PROFILE_VALUE_SEPARATOR)} FROM (SELECT DISTINCT ${dialect.syntax.toText(name)} AS v FROM ${source} WHERE ${name} IS NOT NULL LIMIT ${PROFILE_VALUES_MAX + 1}) s) AS ${dialect.identifier(profileKey(table, column.name, 'v'))}`,
      );
    }
  }
  return `SELECT\n  ${parts.join(',\n  ')}`;
}
