/** The nouns of mining: a profiled table, its columns' roles, and the derived measures finders use. */
import type { ClaimCondition, ClaimDerived } from '../../domain/index.js';
import type { CalendarPart, TimeGrain } from '../../warehouse/sql-syntax/index.js';
import type { TableRef } from '../../warehouse/port.js';

/**
 * How mining uses a column, decided from its type, its name and a profile of its values:
 *
 * - `id`: keys, identifiers, values unique per row — never grouped by, summed or correlated;
 * - `time`: a DATE/TIMESTAMP — a time axis, and calendar dimensions (hour, weekday, month) read off it;
 * - `period`: an integer that counts periods (a year) — a time axis whose values are the periods;
 * - `calendar`: an integer that names a calendar position (a month 1–12, an hour 0–23) — a dimension;
 * - `binary`: exactly two values (a flag, yes/no, 0/1) — an outcome whose rate is compared, and a dimension;
 * - `dimension`: a few values repeated across rows (a category, a status, an ordinal level);
 * - `entity`: many values, each on several rows (an assignee, a customer) — grouped by its top values;
 * - `measure`: a number with many values (an amount, a duration, a size);
 * - `text`: free text of several words per value (a description) — its terms are counted;
 * - `other`: anything else (constant columns, empty columns, unique labels).
 */
export type MiningRole = 'id' | 'time' | 'period' | 'calendar' | 'binary' | 'dimension' | 'entity' | 'measure' | 'text' | 'other';

export interface ValueCount {
  value: string | number | boolean;
  count: number;
}

export interface MiningColumn {
  name: string;
  type: string;
  role: MiningRole;
  /** Non-null values. */
  nonNull: number;
  /** Distinct non-null values (approximate on engines with a sketch). */
  distinct: number;
  min?: number | string | undefined;
  max?: number | string | undefined;
  mean?: number | undefined;
  /** Average words per value (text columns). */
  words?: number | undefined;
  /** Most frequent values with their counts, for columns grouped by (dimension, binary, entity, calendar). */
  top?: ValueCount[] | undefined;
  /** `binary`: the value whose rate is measured (yes, true, 1, the rarer value otherwise). */
  positive?: string | number | boolean | undefined;
  /** `calendar`: which calendar position the integers name. */
  calendar?: CalendarPart | undefined;
  /**
   * `measure`: a quantity whose values add up to a meaningful total (amounts, counts of things) — its
   * total per period and per group is a finding; a level (a speed, a price per unit, an age) is only averaged.
   */
  additive?: boolean | undefined;
  /** `measure`: integer-valued (counts, years of service), rendered without decimals. */
  integer?: boolean | undefined;
  /** Words a person would use for the column: `gr_liv_area` → "above-ground living area" when the description says so. */
  label: string;
}

/** The time between two timestamps of one row: a measure mining derives (time to resolve). */
export interface DurationMeasure {
  start: string;
  end: string;
  unit: 'minutes' | 'hours' | 'days';
  /** "time from opened to closed (days)" */
  label: string;
  /** The word of the end timestamp ("closed", "completed"). */
  endWord: string;
}

/** A time axis: a time column cut into periods, or a period column whose values are periods. */
export interface TimeAxis {
  column: string;
  /** Absent for a `period` column (each value a period). */
  grain?: TimeGrain | undefined;
  /** Periods the axis spans at that grain. */
  periods: number;
  label: string;
}

export interface MiningTable {
  ref: TableRef;
  qualified: string;
  rows: number;
  columns: MiningColumn[];
  durations: DurationMeasure[];
  /** The table's main time axis (its records' start time, or its period column). */
  axis?: TimeAxis | undefined;
  /** Calendar dimensions read off the main time column (hour of day when it has times of day). */
  calendarParts: CalendarPart[];
  /** Plural noun for one row: `incidents`, `flights`; `rows` when nothing better is known. */
  noun: string;
  /** Sampled: the profile and every finder read a uniform sample of this many rows. */
  sampleRows?: number | undefined;
  /** Values read from related tables, named like columns (claims carry the ones they use). */
  derived: ClaimDerived[];
  /** The FROM clause every statement on this table reads: the table (or its sample) as `t`, with its related tables joined. */
  from: string;
  /** The SQL expression of a column or derived name. */
  expr(name: string): string;
  /** Outcomes the pack declares for this table (rates over derived values), mined like any measure. */
  declared: MeasureSpec[];
  /**
   * When `from` reads a block sample: the same relation through a row sample, which the per-period
   * finders (series, drivers) read. A block's rows are neighbours in storage, mostly in time, so per
   * period a block sample counts whole blocks: at 50M rows its weekly counts "slumped" by half where the
   * table's did not (five findings rejected by their recounts).
   */
  seriesFrom?: string | undefined;
}

export function columnOf(table: MiningTable, name: string): MiningColumn | undefined {
  return table.columns.find((column) => column.name === name);
}

export function columnsWithRole(table: MiningTable, ...roles: MiningRole[]): MiningColumn[] {
  return table.columns.filter((column) => roles.includes(column.role));
}

/** What a finder measures over a table's rows: a rate, a mean, or a duration between two timestamps. */
export type MeasureSpec =
  /**
   * The share of rows meeting a condition: a two-valued outcome's positive value, one value of a
   * status-like dimension, or a term in free text (`op: 'contains'`, a whole word).
   */
  | {
      kind: 'rate';
      column: string;
      op: '=' | 'contains' | '>=' | 'not_null';
      value?: string | number | boolean | undefined;
      label: string;
      source: 'binary' | 'value' | 'term' | 'derived' | 'declared';
      /** Only rows meeting these are counted (checkout abandonment among sessions that reached checkout). */
      among?: ClaimCondition[] | undefined;
    }
  | { kind: 'mean'; column: string; label: string; integer: boolean; additive: boolean }
  | { kind: 'duration'; start: string; end: string; unit: 'minutes' | 'hours' | 'days'; label: string };
