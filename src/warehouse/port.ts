import type { Cell, Row } from '../domain/index.js';
import type { SqlDialect } from './dialect.js';

/** Inferred role of a column, used in lookups, blurbs and the catalog. */
export type ColumnCategory = 'primary_key' | 'time' | 'metric' | 'dimension';

export interface ColumnInfo {
  name: string;
  /** The engine's type name, e.g. `BIGINT`, `TIMESTAMP`, `character varying`. */
  type: string;
  nullable: boolean;
  category: ColumnCategory;
  /** The column's comment in the warehouse (`COMMENT ON COLUMN`), when it has one. Warehouse text: prompts show it fenced. */
  comment?: string;
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
  /**
   * Up to a few sample rows (values as returned, JSON-safe). Absent when they have not been read:
   * schema discovery reads the catalog only, and a table's samples are fetched when it is first
   * looked up (`src/schema/table-samples.ts`).
   */
  samples?: Row[];
  /** The table's or view's comment in the warehouse (`COMMENT ON TABLE`), when it has one. Warehouse text: prompts show it fenced. */
  comment?: string;
}

/** A table's columns and row count, without samples: one entry of `describeCatalog`. */
export type TableDescription = Omit<TableSchema, 'samples'>;

export interface SampleOptions {
  /** Budget of the whole call; the adapter stops its statements when it runs out. */
  timeoutMs?: number;
  signal?: AbortSignal;
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
  readonly dialect: SqlDialect;
  /** A description safe to print and to hash (no credentials). */
  readonly description: string;
  /** The limits in force (the adapters set it; optional so simple test doubles need not). */
  readonly limits?: WarehouseLimits;
  listTables(): Promise<TableRef[]>;
  /** One table with its columns, row count and sample rows (always read here). */
  describeTable(table: TableRef): Promise<TableSchema>;
  /**
   * Every table `listTables` returns, with its columns and row count, from a few catalog queries
   * (not a few per table), sorted by qualified name: what schema discovery reads first. Same
   * columns, types, categories and row counts as `describeTable`; a relation with no columns is
   * left out. Optional so simple test doubles need not (discovery then describes table by table).
   */
  describeCatalog?(): Promise<TableDescription[]>;
  /**
   * Up to SAMPLE_ROW_COUNT rows of each table, in input order: the rows `describeTable` would show,
   * read in as few statements as the engine allows. All or nothing: one unreadable table rejects
   * the call (the caller retries table by table to find it). Implemented with `describeCatalog`.
   */
  sampleTables?(tables: readonly TableDescription[], options?: SampleOptions): Promise<Row[][]>;
  query(sql: string, options?: QueryOptions): Promise<QueryResult>;
  close(): Promise<void>;
}

export type { Cell, Row };
