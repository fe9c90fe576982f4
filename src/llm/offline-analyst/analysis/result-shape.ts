/**
 * Reading a result's columns by their names, the convention the analyst's own queries follow (and
 * that most analysts' SQL follows too): `*_rate` fractions, `avg_*` averages, `share_of_*` shares,
 * `total_*` sums, plain integer columns counts; the first column is the segment.
 */
import type { Cell } from '../../../domain/index.js';
import type { DigestStep } from '../readers/digests.js';

const NOT_A_COUNT =
  /(_rate$|^avg_|^share_|^total_|^mean_|^median_|^monthly_change|^first_|^last_|^sum_|_share$|^months$|_pct$|_percent$|_ratio$|^sd_|^min_|^max_|^distinct_|^all_|^peak_|^spike_|^edge_|^corr_|^lift$)/;
const TIME_NAME = /^(month|week|day|date|quarter|year|period)$|_(month|week|day|date)$/;

export function numberOf(cell: Cell | undefined): number | null {
  if (typeof cell === 'number' && Number.isFinite(cell)) return cell;
  if (typeof cell === 'string' && cell.trim() !== '' && /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(cell.trim())) return Number(cell);
  return null;
}

export interface ResultShape {
  segmentColumn: string;
  /** Integer columns after the segment, in order; the first is the population of each row. */
  countColumns: string[];
  rateColumns: string[];
  averageColumns: string[];
  shareColumns: string[];
  /** Standard deviations of averages (`sd_x` for `avg_x`). */
  spreadColumns: string[];
  timeSegment: boolean;
}

function isCountColumn(step: DigestStep, name: string): boolean {
  if (NOT_A_COUNT.test(name)) return false;
  const values = step.rows.map((row) => numberOf(row[name]));
  return values.length > 0 && values.every((value) => value !== null && Number.isInteger(value) && value >= 0);
}

export function shapeOf(step: DigestStep): ResultShape | null {
  const [segmentColumn, ...rest] = step.rowColumns;
  if (segmentColumn === undefined || step.rows.length === 0) return null;
  return {
    segmentColumn,
    countColumns: rest.filter((name) => isCountColumn(step, name)),
    rateColumns: rest.filter((name) => /_rate$/.test(name) && !/^(first_\d|last_\d|monthly_change|mean_)/.test(name)),
    averageColumns: rest.filter((name) => /^avg_/.test(name)),
    shareColumns: rest.filter((name) => /^share_of/.test(name)),
    spreadColumns: rest.filter((name) => /^sd_/.test(name)),
    timeSegment: TIME_NAME.test(segmentColumn) || step.columns.find((column) => column.name === segmentColumn)?.kind === 'timestamp',
  };
}

/** The population a measure is taken over: the longest count column its name starts with, else the row's count. */
export function baseCountFor(measure: string, shape: ResultShape): string | undefined {
  const prefixed = shape.countColumns
    .filter((count) => measure.startsWith(`${count}_`))
    .sort((left, right) => right.length - left.length)[0];
  return prefixed ?? shape.countColumns[0];
}

/** A cell as it names a segment in prose and SQL. */
export function segmentLabel(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return '(none)';
  return typeof cell === 'string' ? cell : String(cell);
}
