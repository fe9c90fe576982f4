/**
 * The landscape query: one row with the number of distinct values of every text and ordinal column
 * of the looked-up tables, and the values themselves where there are few. It tells the planner which
 * columns are dimensions worth grouping by, and which status values deserve a rate.
 *
 * A table of more than PROFILE_SAMPLE_ROWS rows is read through a block sample of about
 * PROFILE_SAMPLE_READ_ROWS rows, materialised once: the cost follows the sample, not the table (exact COUNT(DISTINCT) of every
 * column of a 50M-row table took gigabytes and hit the statement timeout). The sample's row count
 * comes back too, and `estimateDistinct` scales a sampled count up to the table; roles only compare
 * counts with thresholds, and a value too rare to be sampled is not a dimension value worth a rate.
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

/** Above this many rows a table is profiled through a sample of about this many rows. */
export const PROFILE_SAMPLE_ROWS = 1_000_000;

/** Output keys: `schema.table.column:n` (distinct count), `…:v` (values) and `…:w` (average words per value). */
export function profileKey(table: TableModel, columnName: string, suffix: 'n' | 'v' | 'w'): string {
  return `${table.qualified}.${columnName}:${suffix}`;
}

/** Output key of the rows a sampled table's profile read (absent when the whole table was read). */
export function sampleRowsKey(table: TableModel): string {
  return `${table.qualified}:sample_rows`;
}

/** True when the profile reads the table through a sample: a large table, on an engine the analyst can block-sample. */
export function profiledThroughSample(dialect: SqlDialect, table: TableModel): boolean {
  return dialect.blockSample !== undefined && table.rows > PROFILE_SAMPLE_ROWS;
}

/**
 * The table's distinct values from `distinct` seen among `sampleRows` of its `tableRows` rows, taking
 * each value to repeat equally often: the D that solves D·(1 − e^(−n/D)) = d (bisection). A sample
 * whose every value is distinct reads as a key of the whole table.
 */
export function estimateDistinct(distinct: number, sampleRows: number, tableRows: number): number {
  if (sampleRows <= 0 || distinct <= 0 || tableRows <= sampleRows) return distinct;
  if (distinct >= sampleRows) return tableRows;
  const seen = (values: number) => values * (1 - Math.exp(-sampleRows / values));
  let low = distinct;
  let high = tableRows;
  if (seen(high) <= distinct) return tableRows;
  for (let step = 0; step < 100 && high - low > 0.5; step++) {
    const middle = (low + high) / 2;
    if (seen(middle) < distinct) low = middle;
    else high = middle;
  }
  return Math.round((low + high) / 2);
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
  const columns = profiledColumns(tables);
  // each sampled table is read once, into a CTE every column's subqueries then read
  const samples = new Map<TableModel, string>();
  for (const { table } of columns) {
    if (!profiledThroughSample(dialect, table) || samples.has(table)) continue;
    const name = `sample_${samples.size}`;
    samples.set(table, name);
    parts.push(`(SELECT COUNT(*) FROM ${name}) AS ${dialect.identifier(sampleRowsKey(table))}`);
  }
  const ctes = [...samples].map(([table, name]) => {
    const percent = Math.min(100, Math.max(0.001, (100 * PROFILE_SAMPLE_READ_ROWS) / table.rows));
    const used = columns.filter((item) => item.table === table).map((item) => dialect.identifier(item.column.name));
    return `${name} AS MATERIALIZED (SELECT ${[...new Set(used)].join(', ')} FROM ${dialect.blockSample?.(dialect.table(table.qualified), percent)})`;
  });
  for (const { table, column } of columns) {
    const name = dialect.identifier(column.name);
    const source = samples.get(table) ?? dialect.table(table.qualified);
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
  return `${ctes.length > 0 ? `WITH ${ctes.join(',\n')}\n` : ''}SELECT\n  ${parts.join(',\n  ')}`;
}

/**
 * Rows a sampled profile reads, about: distinct counts are only compared with thresholds and scaled up
 * (estimateDistinct), and at 50M rows on 2 loaded cores a 1,000,000-row profile ran past the 30 s timeout.
 */
export const PROFILE_SAMPLE_READ_ROWS = 250_000;
