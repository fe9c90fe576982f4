/**
 * Warehouses: `openWarehouse(url)` picks the adapter (DuckDB and files, PostgreSQL, MySQL/MariaDB,
 * ClickHouse, BigQuery, Snowflake); every agent query passes the SQL guard. The drivers of the other
 * engines load only when their URL is opened.
 */
import { ConfigError } from '../errors/index.js';
import { openDuckdbWarehouse } from './duckdb/duckdb-warehouse.js';
import { resolveFileTables } from './files/file-tables.js';
import { resolveWarehouseLimits, type WarehouseResources } from './limits.js';
import type { Warehouse } from './port.js';
import { openPostgresWarehouse } from './postgres/postgres-warehouse.js';
import { validateTenantFilter, type TenantFilter } from './tenant-filter.js';
import { describeWarehouseTarget, parseWarehouseUrl } from './warehouse-url.js';

export type {
  ColumnCategory,
  ColumnInfo,
  QueryOptions,
  QueryResult,
  SampleOptions,
  TableDescription,
  TableRef,
  TableSchema,
  Warehouse,
  WarehouseLimits,
} from './port.js';
export {
  assertSafeSql,
  guardSql,
  type AllowedSql,
  type GuardVerdict,
  type RefusedSql,
  type RelationReference,
  type SqlDialect,
} from './sql-guard.js';
export { capRowsByBytes, type CappedRows } from './row-cap.js';
export { inferColumnCategory } from './column-category.js';
export {
  DEFAULT_MAX_ROWS,
  DEFAULT_MAX_STORED_BYTES,
  DEFAULT_TIMEOUT_MS,
  warehouseResourcesFrom,
  type WarehouseResources,
} from './limits.js';
export { SQL_DIALECTS, DIALECT_DISPLAY_NAMES } from './dialect.js';
export {
  ACCEPTED_WAREHOUSE_URL_FORMS,
  describeWarehouseTarget,
  parseWarehouseUrl,
  warehouseConfigHash,
  type WarehouseTarget,
} from './warehouse-url.js';
export type { TenantFilter } from './tenant-filter.js';

export interface OpenWarehouseOptions {
  /** DuckDB only: `{ table: file }` CSV/Parquet/JSON files exposed as tables. */
  files?: Record<string, string>;
  /** Rows fetched per query unless the call says otherwise. @defaultValue 10 000 */
  maxRows?: number;
  /** Statement timeout unless the call says otherwise. @defaultValue 30 000 ms */
  timeoutMs?: number;
  /**
   * Bytes of rows a caller stores per step, exposed as `warehouse.limits.maxStoredBytes` for
   * `capRowsByBytes` (a query result itself is capped by rows, not bytes). @defaultValue 256 KiB
   */
  maxStoredBytes?: number;
  /** Every relation with this column is seen only through `field = value`. */
  tenantFilter?: TenantFilter;
  /** Memory and threads the engine may use for one query (DuckDB, ClickHouse; see docs/warehouses.md). */
  resources?: WarehouseResources;
}

export async function openWarehouse(url: string, options: OpenWarehouseOptions = {}): Promise<Warehouse> {
  const target = parseWarehouseUrl(url);
  const tenantFilter = options.tenantFilter === undefined ? undefined : validateTenantFilter(options.tenantFilter);
  const limits = resolveWarehouseLimits(options);
  const description = describeWarehouseTarget(target);
  if (target.engine !== 'duckdb' && options.files !== undefined && Object.keys(options.files).length > 0) {
    throw new ConfigError(
      'warehouse files can only be attached to a DuckDB warehouse (ASSAY_WAREHOUSE_FILES needs a duckdb: or file: warehouse)',
    );
  }
  switch (target.engine) {
    case 'duckdb': {
      const fromUrl = target.files === undefined ? {} : await resolveFileTables(target.files);
      return openDuckdbWarehouse({
        path: target.path,
        files: { ...(options.files ?? {}), ...fromUrl },
        limits,
        tenantFilter,
        resources: options.resources,
      });
    }
    case 'postgres':
      return openPostgresWarehouse({ connectionString: target.connectionString, description, limits, tenantFilter });
    case 'mysql': {
      const { openMysqlWarehouse } = await import('./mysql/mysql-warehouse.js');
      return openMysqlWarehouse({
        connectionString: target.connectionString,
        description,
        database: target.database,
        limits,
        tenantFilter,
      });
    }
    case 'clickhouse': {
      const { openClickhouseWarehouse } = await import('./clickhouse/clickhouse-warehouse.js');
      return openClickhouseWarehouse({ target, description, limits, tenantFilter, resources: options.resources });
    }
    case 'bigquery': {
      const { openBigqueryWarehouse } = await import('./bigquery/bigquery-warehouse.js');
      return openBigqueryWarehouse({ target, description, limits, tenantFilter });
    }
    case 'snowflake': {
      const { openSnowflakeWarehouse } = await import('./snowflake/snowflake-warehouse.js');
      return openSnowflakeWarehouse({ target, description, limits, tenantFilter });
    }
  }
}
