/** The nouns the offline analyst reasons with: what it read from a prompt, and what it plans to do. */

/** How the analyst uses a column (finer than the warehouse's category). */
export type ColumnRole =
  | 'key' // the table's primary key
  | 'reference' // an identifier pointing at another entity (`customer_id`)
  | 'time' // a temporal column (DATE, TIMESTAMP)
  | 'flag' // a boolean
  | 'metric' // a number that can be averaged or summed
  | 'ordinal' // a small integer scale that is a position (`level_number`, `stage`)
  | 'text'; // any other text: a dimension when its cardinality is low

export interface ColumnModel {
  name: string;
  type: string;
  nullable: boolean;
  role: ColumnRole;
  /** Distinct values, once profiled. */
  distinct?: number | undefined;
  /** Every value, when the column is low-cardinality and the profile could list them. */
  values?: string[] | undefined;
  /** Average words per value (text columns), once profiled: free text has several. */
  words?: number | undefined;
}

export interface TableModel {
  qualified: string;
  /** Bare table name (after the last dot). */
  name: string;
  rows: number;
  columns: ColumnModel[];
}

/** A catalog line: `schema.table | Nc | 1.2K rows | kw1, kw2 | -> t1, t2`. */
export interface CatalogEntry {
  qualified: string;
  columnCount: number;
  rows: number;
  keywords: string[];
  joins: string[];
}

/** An analysis area as listed in the exploration prompt. */
export interface AreaInfo {
  id: string;
  name: string;
  description: string;
  keywords: string[];
}

export type { SqlDialect as SqlDialectName } from '../../warehouse/dialect.js';

/** One query the planner wants to run. */
export interface PlannedQuery {
  /** Short stable key: the analyst remembers which plans it has already run by it. */
  key: string;
  area: string;
  purpose: string;
  thinking: string;
  sql: string;
  /** Higher runs first. */
  priority: number;
  /** Kind of query and table (`segment:main.orders`): repeats of one family are spread out. */
  family: string;
  /** Table and split (`main.orders:shipping_region`): one subject measured many ways is spread out too. */
  subject: string;
}
