/**
 * The measures finders compare across groups and periods: the rate of a two-valued outcome, the mean
 * of a number, the mean of a duration between two timestamps. Each knows the aggregates that measure
 * it in a grouped statement, how to read them back, and the claim metric that states it.
 */
import type { ClaimMetric } from '../../domain/index.js';
import type { Row } from '../../warehouse/port.js';
import type { SqlSyntax } from '../../warehouse/sql-syntax/index.js';
import type { Moments } from '../statistics/index.js';
import { type MiningTable, columnsWithRole } from './mining-table.js';

export type MeasureSpec =
  /**
   * The share of rows meeting a condition: a two-valued outcome's positive value, one value of a
   * status-like dimension, or a term in free text (`op: 'contains'`, a whole word).
   */
  | { kind: 'rate'; column: string; op: '=' | 'contains'; value: string | number | boolean; label: string; source: 'binary' | 'value' | 'term' }
  | { kind: 'mean'; column: string; label: string; integer: boolean; additive: boolean }
  | { kind: 'duration'; start: string; end: string; unit: 'minutes' | 'hours' | 'days'; label: string };

const SECONDS: Record<'minutes' | 'hours' | 'days', number> = { minutes: 60, hours: 3_600, days: 86_400 };

/** A group's figures for one measure: a rate's successes of n, or a mean's moments. */
export interface MeasureFigures {
  n: number;
  /** Smallest and largest value in the group (absent where the statement did not read them). */
  min?: number;
  max?: number;
  /** Rate: rows meeting the outcome. */
  k?: number;
  mean: number;
  variance: number;
}

/** The per-row value of a mean or duration measure (the outcome indicator for a rate). */
export function valueExpression(syntax: SqlSyntax, measure: MeasureSpec): string {
  switch (measure.kind) {
    case 'rate': {
      const column = syntax.identifier(measure.column);
      const meets =
        measure.op === 'contains' ? syntax.containsWord(column, String(measure.value)) : `${column} = ${syntax.literal(measure.value)}`;
      return `CASE WHEN ${meets} THEN 1 WHEN ${column} IS NOT NULL THEN 0 END`;
    }
    case 'mean':
      return syntax.toDouble(syntax.identifier(measure.column));
    case 'duration':
      return `(${syntax.epochSeconds(syntax.identifier(measure.end))} - ${syntax.epochSeconds(syntax.identifier(measure.start))}) / ${SECONDS[measure.unit]}`;
  }
}

/** Aggregates of the measure in a grouped SELECT, aliased `m{index}_n`, `_mean`, `_var`. */
export function measureAggregates(syntax: SqlSyntax, measure: MeasureSpec, index: number): string[] {
  const value = valueExpression(syntax, measure);
  return [
    `count(${value}) AS m${index}_n`,
    `${syntax.toDouble(`avg(${value})`)} AS m${index}_mean`,
    `${syntax.variance(value)} AS m${index}_var`,
    `${syntax.toDouble(`min(${value})`)} AS m${index}_min`,
    `${syntax.toDouble(`max(${value})`)} AS m${index}_max`,
  ];
}

function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

export function readFigures(row: Row, measure: MeasureSpec, index: number): MeasureFigures {
  const n = num(row[`m${index}_n`]);
  const mean = num(row[`m${index}_mean`]);
  const variance = num(row[`m${index}_var`]);
  const figures: MeasureFigures = { n: Number.isFinite(n) ? n : 0, mean, variance: Number.isFinite(variance) ? variance : 0 };
  const min = num(row[`m${index}_min`]);
  const max = num(row[`m${index}_max`]);
  if (Number.isFinite(min) && Number.isFinite(max)) {
    figures.min = min;
    figures.max = max;
  }
  if (measure.kind === 'rate') figures.k = Math.round(figures.n * (Number.isFinite(mean) ? mean : 0));
  return figures;
}

export function asMoments(figures: MeasureFigures): Moments {
  return { n: figures.n, mean: figures.mean, variance: figures.variance };
}

/** Figures of all rows but a group's: the total less the group (sums of squares recovered from the moments). */
export function restOf(total: MeasureFigures, group: MeasureFigures): MeasureFigures {
  const n = total.n - group.n;
  if (n <= 0) return { n: 0, mean: Number.NaN, variance: Number.NaN, ...(total.k !== undefined ? { k: 0 } : {}) };
  const sum = total.mean * total.n - group.mean * group.n;
  const squares = (total.n - 1) * total.variance + total.n * total.mean ** 2 - ((group.n - 1) * group.variance + group.n * group.mean ** 2);
  const mean = sum / n;
  const variance = n > 1 ? Math.max(0, (squares - n * mean * mean) / (n - 1)) : 0;
  return { n, mean, variance, ...(total.k !== undefined && group.k !== undefined ? { k: total.k - group.k } : {}) };
}

/** The claim metric that states the measure on `table`. */
export function claimMetricOf(table: MiningTable, measure: MeasureSpec): ClaimMetric {
  const base = { table: table.qualified, filters: [], label: measure.label };
  switch (measure.kind) {
    case 'rate':
      return { ...base, kind: 'rate', condition: { column: measure.column, op: measure.op, value: measure.value } };
    case 'mean':
      return { ...base, kind: 'mean', column: measure.column };
    case 'duration':
      return { ...base, kind: 'duration_mean', start_column: measure.start, end_column: measure.end, unit: measure.unit };
  }
}

export function measureColumns(measure: MeasureSpec): string[] {
  return measure.kind === 'duration' ? [measure.start, measure.end] : [measure.column];
}

function positiveLabel(column: { label: string; positive?: unknown }): string {
  const value = String(column.positive);
  if (/^(yes|y|true|t|1)$/i.test(value)) return `${column.label} rate`;
  return `share with ${column.label} ${value}`;
}

/** The rate of one value of a dimension: "share with state Closed". */
export function valueRate(column: { name: string; label: string }, value: string | number | boolean): MeasureSpec {
  return { kind: 'rate', column: column.name, op: '=', value, label: `share with ${column.label} ${String(value)}`, source: 'value' };
}

/** The rate of a word in free text: "share mentioning printer". */
export function termRate(column: { name: string; label: string }, word: string): MeasureSpec {
  return { kind: 'rate', column: column.name, op: 'contains', value: word, label: `share whose ${column.label} mentions "${word}"`, source: 'term' };
}

/** Every measure of a table: outcome rates, numeric means, durations. */
export function measuresOf(table: MiningTable): MeasureSpec[] {
  const rates: MeasureSpec[] = columnsWithRole(table, 'binary')
    .filter((column) => column.positive !== undefined)
    .map((column) => ({
      kind: 'rate',
      column: column.name,
      op: '=',
      value: column.positive as string | number | boolean,
      label: positiveLabel(column),
      source: 'binary',
    }));
  const means: MeasureSpec[] = columnsWithRole(table, 'measure').map((column) => ({
    kind: 'mean',
    column: column.name,
    label: column.label,
    integer: column.integer === true,
    additive: column.additive === true,
  }));
  const durations: MeasureSpec[] = table.durations.map((duration) => ({ kind: 'duration', ...duration, label: `${duration.label} (${duration.unit})` }));
  return [...durations, ...rates, ...means];
}
