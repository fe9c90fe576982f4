import type { Cell, Row } from '../domain/index.js';

/** Inferred role of a column, used in lookups, blurbs and the catalog. */
export type ColumnCategory = 'primary_key' | 'time' | 'metric' | 'dimension';

export interface ColumnInfo {
  name: string;
  /** The engine's type name, e.g. `BIGINT`, `TIMESTAMP`, `character varying`. */
  type: string;
  nullable: boolean;
  category: ColumnCategory;
}

/** A table as `schema.table` (DuckDB: `main.orders`; PostgreSQL: `public.orders`). */
export interface TableRef {
  schema: string;
  name: string;
}

export interface TableSchema extends TableRef {
  /** `schema.name`, the key every other component uses. */
  qualified: string;
  columns: ColumnInfo[];
  /** Approximate row count; -1 when unknown. */
  rowCount: number;
  /** Up to a few sample rows (values as returned, JSON-safe). */
  samples: Row[];
}

export interface QueryOptions {
  /** Cap on rows fetched; the statement's own rows beyond it are not read. */
  maxRows?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface QueryResult {
  columns: Array<{ name: string; type: string }>;
  rows: Row[];
  /** Rows returned (≤ maxRows). */
  rowCount: number;
  /** True when the statement produced more rows than maxRows. */
  truncated: boolean;
  elapsedMs: number;
}

/** The resource limits an adapter applies (layer 3 of the SQL guard); `maxStoredBytes` is for callers storing rows. */
export interface WarehouseLimits {
  maxRows: number;
  timeoutMs: number;
  maxStoredBytes: number;
}

/**
 * A SQL warehouse. `query` is the guarded agent path: every statement passes the SQL guard
 * (parser allow-list), runs on a read-only connection, and respects the row/time limits.
 */
export interface Warehouse {
  readonly dialect: 'duckdb' | 'postgres';
  /** A description safe to print and to hash (no credentials). */
  readonly description: string;
  /** The limits in force (the adapters set it; optional so simple test doubles need not). */
  readonly limits?: WarehouseLimits;
  listTables(): Promise<TableRef[]>;
  describeTable(table: TableRef): Promise<TableSchema>;
  query(sql: string, options?: QueryOptions): Promise<QueryResult>;
  close(): Promise<void>;
}

export type { Cell, Row };
