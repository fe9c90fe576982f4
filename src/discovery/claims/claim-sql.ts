/**
 * The verifier's own SQL for a structured claim (src/domain/claim.ts): identifiers checked against the
 * project's schema and quoted, values written as escaped literals, and both sides of the comparison
 * measured in one statement with FILTER clauses — so a recount never re-runs SQL the model wrote.
 * Works on DuckDB and PostgreSQL (both quote with "…", both have FILTER, date_trunc, extract).
 */
import type { Claim, ClaimCondition, ClaimGroup, ClaimMetric } from '../../domain/index.js';
import type { TableSchema } from '../../warehouse/port.js';

export type ClaimSql = { ok: true; sql: string } | { ok: false; reason: string };

const SECONDS_PER_UNIT = { seconds: 1, minutes: 60, hours: 3_600, days: 86_400 } as const;

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function literal(value: string | number | boolean): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return `'${value.replace(/'/g, "''")}'`;
}

class ClaimShapeError extends Error {}

function resolveTable(name: string, tables: readonly TableSchema[]): TableSchema {
  const wanted = name.replace(/"/g, '').toLowerCase();
  const table =
    tables.find((candidate) => candidate.qualified.toLowerCase() === wanted) ??
    tables.find((candidate) => candidate.name.toLowerCase() === wanted);
  if (!table) throw new ClaimShapeError(`table "${name}" is not in the warehouse schema`);
  return table;
}

function column(table: TableSchema, name: string | undefined, role: string): string {
  if (name === undefined) throw new ClaimShapeError(`the metric needs a ${role}`);
  const found =
    table.columns.find((candidate) => candidate.name === name) ??
    table.columns.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
  if (!found) throw new ClaimShapeError(`column "${name}" is not in ${table.qualified}`);
  return quoteIdentifier(found.name);
}

function condition(table: TableSchema, item: ClaimCondition): string {
  const target = column(table, item.column, 'condition column');
  if (item.op === 'is_null') return `${target} IS NULL`;
  if (item.op === 'not_null') return `${target} IS NOT NULL`;
  if (item.value === undefined) throw new ClaimShapeError(`condition on "${item.column}" with ${item.op} needs a value`);
  return `${target} ${item.op === '!=' ? '<>' : item.op} ${literal(item.value)}`;
}

function group(table: TableSchema, item: ClaimGroup): string {
  const target = column(table, item.column, 'group column');
  switch (item.grain) {
    case undefined:
      return `${target} = ${literal(item.value)}`;
    case 'day_of_week':
      return `extract(dow FROM ${target}) = ${literal(Number(item.value))}`;
    case 'hour_of_day':
      return `extract(hour FROM ${target}) = ${literal(Number(item.value))}`;
    default:
      return `date_trunc(${literal(item.grain)}, ${target}) = CAST(${literal(String(item.value))} AS TIMESTAMP)`;
  }
}

/** The metric over the rows where `predicate` holds. */
function measure(table: TableSchema, metric: ClaimMetric, predicate: string): string {
  const where = `FILTER (WHERE ${predicate})`;
  switch (metric.kind) {
    case 'count':
      return `CAST(count(*) ${where} AS DOUBLE PRECISION)`;
    case 'share':
      return `CAST(count(*) ${where} AS DOUBLE PRECISION) / NULLIF(count(*), 0)`;
    case 'mean':
      return `CAST(avg(${column(table, metric.column, 'column')}) ${where} AS DOUBLE PRECISION)`;
    case 'median':
      return `CAST(percentile_cont(0.5) WITHIN GROUP (ORDER BY ${column(table, metric.column, 'column')}) ${where} AS DOUBLE PRECISION)`;
    case 'sum':
      return `CAST(sum(${column(table, metric.column, 'column')}) ${where} AS DOUBLE PRECISION)`;
    case 'distinct_count':
      return `CAST(count(DISTINCT ${column(table, metric.column, 'column')}) ${where} AS DOUBLE PRECISION)`;
    case 'rate': {
      if (!metric.condition) throw new ClaimShapeError('a rate needs the condition its rows must meet');
      return `avg(CASE WHEN ${condition(table, metric.condition)} THEN 1.0 ELSE 0.0 END) ${where}`;
    }
    case 'duration_mean': {
      const start = column(table, metric.start_column, 'start_column');
      const end = column(table, metric.end_column, 'end_column');
      const seconds = SECONDS_PER_UNIT[metric.unit ?? 'days'];
      // open items (no end yet) have no duration: they are left out, not counted as zero
      return `avg((extract(epoch FROM ${end}) - extract(epoch FROM ${start})) / ${seconds}) FILTER (WHERE ${predicate} AND ${end} IS NOT NULL)`;
    }
  }
}

/** One statement returning `segment_value`, `comparison_value` and `segment_rows`, or why the claim cannot be recounted. */
export function buildClaimSql(claim: Claim, tables: readonly TableSchema[]): ClaimSql {
  try {
    const table = resolveTable(claim.metric.table, tables);
    const segment = `(${group(table, claim.segment)})`;
    const comparison =
      claim.comparison.kind === 'all'
        ? 'TRUE'
        : claim.comparison.kind === 'rest'
          ? `(${segment} IS NOT TRUE)`
          : `(${group(table, claim.comparison.group)})`;
    const filters = claim.metric.filters.map((item) => condition(table, item));
    const from = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
    const sql = [
      `SELECT ${measure(table, claim.metric, segment)} AS segment_value,`,
      `       ${measure(table, claim.metric, comparison)} AS comparison_value,`,
      `       count(*) FILTER (WHERE ${segment}) AS segment_rows`,
      `FROM ${from}`,
      ...(filters.length > 0 ? [`WHERE ${filters.join(' AND ')}`] : []),
    ].join('\n');
    return { ok: true, sql };
  } catch (error) {
    if (error instanceof ClaimShapeError || error instanceof RangeError) return { ok: false, reason: error.message };
    throw error;
  }
}
