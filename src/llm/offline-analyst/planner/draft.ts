/** A query the planner considers, before it is given an area and a place in the plan. */
import type { SqlDialect } from '../sql/dialect.js';
import type { TimeSource } from '../sql/trend-queries.js';
import { isLookupTable, mainTime, type Reference } from '../schema-model.js';
import { wordsOf } from '../text.js';
import type { TableModel } from '../types.js';

export interface Draft {
  kind: string;
  table: TableModel;
  sql: string;
  measureText: string;
  segmentText: string;
  words: string[];
  priority: number;
  /** What is split how (`main.orders:shipping_region`): one subject measured many ways is spread out too. */
  subject: string;
}

/** Where a table's rows get their time: its own main time column, or a referenced parent's (order_items → orders). */
export function timeSourceOf(dialect: SqlDialect, table: TableModel, references: readonly Reference[]): TimeSource | undefined {
  const own = mainTime(table);
  if (own) return { expression: dialect.column('t', own.name), join: '', words: wordsOf(own.name) };
  const parent = references.find(
    (reference) => reference.from.qualified === table.qualified && !isLookupTable(reference.to) && mainTime(reference.to) !== undefined,
  );
  if (!parent) return undefined;
  const time = mainTime(parent.to);
  if (!time) return undefined;
  return {
    expression: dialect.column('tp', time.name),
    join: `JOIN ${dialect.table(parent.to.qualified)} tp ON ${dialect.column('tp', parent.toKey.name)} = ${dialect.column('t', parent.column.name)}`,
    words: wordsOf(time.name),
  };
}
