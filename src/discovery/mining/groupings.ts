/**
 * What finders group rows by: a column's values (a category, a flag, the top values of an entity, an
 * ordinal level), or a calendar position read off the table's time column (hour of day, weekday,
 * month). Each grouping writes its SQL expression, its claim segment for a value, and knows whether its
 * values have an order (levels, hours, months) that a gradient can follow.
 */
import type { ClaimGroup, ClaimScalar } from '../../domain/index.js';
import type { CalendarPart, SqlSyntax } from '../../warehouse/sql-syntax/index.js';
import { type MiningColumn, type MiningTable, columnOf } from './mining-table.js';
import { declaredColumns } from './measures.js';

export interface Grouping {
  /** The column the claim's segment names. */
  column: string;
  label: string;
  /** Set for calendar positions (read off a timestamp, or an integer column that already is one). */
  calendar?: CalendarPart | undefined;
  /** True when the column is a timestamp the calendar position is extracted from. */
  extracted: boolean;
  /** Values have a natural order (levels, hours, weekdays, months, years). */
  ordered: boolean;
  /** Distinct non-null values of the column (all of them, not only the top ones). */
  distinct: number;
  /** Non-null rows. */
  nonNull: number;
  /** Rows with no value. */
  missing: number;
  source: MiningColumn;
}

/** Groupings of a table: dimensions, binary columns, entities, calendar columns and calendar parts of its time axis. */
export function groupingsOf(table: MiningTable): Grouping[] {
  const groupings: Grouping[] = [];
  // a declared outcome's column is no grouping: its label names the outcome, not the flag it holds
  const declared = declaredColumns(table);
  for (const column of table.columns) {
    if (!['dimension', 'binary', 'entity', 'calendar'].includes(column.role) || declared.has(column.name)) continue;
    const numeric = typeof column.top?.[0]?.value === 'number';
    groupings.push({
      column: column.name,
      label: column.label,
      calendar: column.calendar,
      extracted: false,
      ordered: column.role === 'calendar' || (column.role === 'dimension' && numeric),
      distinct: column.distinct,
      nonNull: column.nonNull,
      missing: table.rows - column.nonNull,
      source: column,
    });
  }
  const axisColumn = table.axis ? columnOf(table, table.axis.column) : undefined;
  if (axisColumn && axisColumn.role === 'time') {
    for (const part of table.calendarParts) {
      const values = part === 'hour_of_day' ? 24 : part === 'day_of_week' ? 7 : 12;
      groupings.push({
        column: axisColumn.name,
        label: axisColumn.label,
        calendar: part,
        extracted: true,
        ordered: true,
        distinct: values,
        nonNull: axisColumn.nonNull,
        missing: table.rows - axisColumn.nonNull,
        source: axisColumn,
      });
    }
  }
  return groupings;
}

export function groupExpression(syntax: SqlSyntax, table: Pick<MiningTable, 'expr'>, grouping: Grouping): string {
  const id = table.expr(grouping.column);
  return grouping.extracted && grouping.calendar ? syntax.calendarPart(id, grouping.calendar) : id;
}

export function segmentFor(grouping: Grouping, value: ClaimScalar): ClaimGroup {
  return { column: grouping.column, value, label: grouping.label, ...(grouping.calendar ? { grain: grouping.calendar } : {}) };
}

export function groupingKey(grouping: Grouping): string {
  return grouping.calendar ? `${grouping.column}@${grouping.calendar}` : grouping.column;
}

/** Neighbouring values `from` … `last` of an ordered grouping (`to` is exclusive in the claim). */
export function rangeFor(grouping: Grouping, from: number, last: number): ClaimGroup {
  return { column: grouping.column, from, to: last + 1, label: grouping.label, ...(grouping.calendar ? { grain: grouping.calendar } : {}) };
}
