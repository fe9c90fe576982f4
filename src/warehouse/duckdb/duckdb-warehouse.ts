/**
 * DuckDB adapter (the embedded default). The agent's connection is on an instance opened with
 * `access_mode=READ_ONLY`, then `enable_external_access=false` and `lock_configuration=true`.
 *
 * Attached files cannot be views (reading them needs external access, which is off) and cannot be
 * TEMP tables (the temp catalog stays writable in read-only mode, so the agent could change them).
 * So when files are configured, or the warehouse is `duckdb::memory:` (which DuckDB cannot open
 * read-only), an admin instance first writes everything into a private database file: the files
 * as tables, plus a copy of the user's database when there is one. The agent then opens that
 * private file read-only; it is deleted on close. Without files, the user's file is opened
 * read-only directly and never copied. Queries run one at a time on the connection (DuckDB
 * parallelises inside a query).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, StatementType, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import type { Row } from '../../domain/index.js';
import {
  CancelledError,
  ConfigError,
  NotFoundError,
  QueryTimeoutError,
  UnsafeSqlError,
  WarehouseError,
  describeError,
} from '../../errors/index.js';
import { deduplicateColumnNames } from '../cells.js';
import { catalogComment } from '../comments.js';
import { inferColumnCategory } from '../column-category.js';
import { SAMPLE_ROW_COUNT, type WarehouseResources } from '../limits.js';
import type {
  ColumnInfo,
  QueryOptions,
  QueryResult,
  SampleOptions,
  TableDescription,
  TableRef,
  TableSchema,
  Warehouse,
  WarehouseLimits,
} from '../port.js';
import { createLimiter } from '../../concurrency/index.js';
import { assertSafeSql } from '../sql-guard.js';
import { quoteIdentifier, relationKey, type FilteredRelations, type TenantFilter } from '../tenant-filter.js';
import { DuckdbInternalReader, readDuckdbCatalog, sampleDuckdbTables, type DuckdbCatalogContext } from './duckdb-catalog.js';
import { duckdbCell } from './duckdb-cells.js';
import { DUCKDB_LOCKDOWN_SETTINGS } from './duckdb-sql-parser.js';
import { applyDuckdbTenantFilter } from './duckdb-tenant-rewrite.js';

export interface DuckdbWarehouseOptions {
  /** Absolute path of the database file, or `:memory:`. */
  path: string;
  /** `{ table: file }`: CSV/TSV, Parquet or JSON files exposed as tables. */
  files?: Record<string, string>;
  limits: WarehouseLimits;
  tenantFilter?: TenantFilter | undefined;
  /** Memory, threads and spill directory of the agent's instance; unset: DuckDB's defaults (80 % of RAM, every core, no spilling in read-only mode). */
  resources?: WarehouseResources | undefined;
}

const SYSTEM_SCHEMAS = ['information_schema', 'pg_catalog'];
/** Assay's own bookkeeping tables never reach the agent (as in the seed's `_queryclaw` filter). */
const INTERNAL_TABLE_PREFIX = '_assay';
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Catalog names inside the admin instance that builds the private database. */
const PRIVATE_CATALOG = 'warehouse';
const SOURCE_CATALOG = 'assay_source';

function fileReader(file: string): string {
  const lower = file.toLowerCase();
  if (/\.(csv|tsv|txt)(\.gz|\.zst)?$/.test(lower)) return 'read_csv_auto';
  if (lower.endsWith('.parquet')) return 'read_parquet';
  if (/\.(json|jsonl|ndjson)(\.gz)?$/.test(lower)) return 'read_json_auto';
  throw new ConfigError(`warehouse file ${file}: unknown format; use .csv, .tsv, .parquet, .json, .jsonl or .ndjson`);
}

/** Builds the private database file the agent will open read-only (see the module comment). */
async function materialisePrivateDatabase(
  source: string | undefined,
  files: Record<string, string>,
): Promise<{ file: string; cleanup: () => Promise<void> }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-duckdb-'));
  const cleanup = () => rm(directory, { recursive: true, force: true });
  const file = path.join(directory, `${PRIVATE_CATALOG}.duckdb`);
  const admin = await DuckDBInstance.create(file, { autoinstall_known_extensions: 'false' });
  try {
    const connection = await admin.connect();
    if (source !== undefined) {
      await connection.run(`ATTACH ${sqlStringLiteral(source)} AS ${SOURCE_CATALOG} (READ_ONLY)`);
      await connection.run(`COPY FROM DATABASE ${SOURCE_CATALOG} TO ${PRIVATE_CATALOG}`);
      await connection.run(`DETACH ${SOURCE_CATALOG}`);
    }
    for (const [table, tableFile] of Object.entries(files)) {
      if (!TABLE_NAME.test(table))
        throw new ConfigError(`warehouse file table name ${JSON.stringify(table)} must be a plain identifier (letters, digits, _)`);
      const absolute = path.resolve(tableFile);
      if (!existsSync(absolute)) throw new ConfigError(`warehouse file for table ${table} does not exist: ${absolute}`);
      try {
        await connection.run(`CREATE TABLE ${quoteIdentifier(table)} AS SELECT * FROM ${fileReader(absolute)}($1)`, [absolute]);
      } catch (error) {
        throw new ConfigError(`warehouse file ${absolute} (table ${table}) could not be read: ${describeError(error).split('\n')[0]}`, {
          cause: error,
        });
      }
    }
    await connection.run('CHECKPOINT');
    connection.closeSync();
    admin.closeSync();
    return { file, cleanup };
  } catch (error) {
    admin.closeSync();
    await cleanup();
    throw error;
  }
}

function sqlStringLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

async function lockDown(connection: DuckDBConnection): Promise<void> {
  for (const [setting, value] of Object.entries(DUCKDB_LOCKDOWN_SETTINGS)) await connection.run(`SET ${setting} = ${value}`);
}

type Limits = Pick<WarehouseLimits, 'maxRows' | 'timeoutMs'>;

class DuckdbWarehouse implements Warehouse {
  readonly dialect = 'duckdb' as const;
  /** A DuckDB connection executes one statement at a time. */
  private readonly queue = createLimiter(1);
  private filteredRelations: FilteredRelations = new Set();
  /** Base tables as `describeCatalog` last found them (see duckdb-catalog.ts: their samples are ordered by rowid). */
  private baseTables: ReadonlySet<string> = new Set();

  private readonly connection: DuckDBConnection;
  /** Extra connections of the same locked instance for catalog reads, samples and counts (see duckdb-catalog.ts). */
  private readonly reader: DuckdbInternalReader;

  constructor(
    readonly description: string,
    private readonly engine: LockedDuckdb,
    readonly limits: WarehouseLimits,
    private readonly tenantFilter: TenantFilter | undefined,
  ) {
    this.connection = engine.connection;
    this.reader = new DuckdbInternalReader(engine.instance);
  }

  private catalogContext(): DuckdbCatalogContext {
    return {
      reader: this.reader,
      systemSchemas: SYSTEM_SCHEMAS,
      internalPrefix: INTERNAL_TABLE_PREFIX,
      filtered: this.filteredRelations,
      tenantFilter: this.tenantFilter,
      timeoutMs: this.limits.timeoutMs,
      baseTables: this.baseTables,
    };
  }

  async describeCatalog(): Promise<TableDescription[]> {
    const catalog = await readDuckdbCatalog(this.catalogContext());
    this.baseTables = catalog.baseTables;
    return catalog.tables;
  }

  sampleTables(tables: readonly TableDescription[], options: SampleOptions = {}): Promise<Row[][]> {
    return sampleDuckdbTables(tables, this.catalogContext(), options);
  }

  /** Relations carrying the tenant column; computed once at open time. */
  async loadTenantRelations(): Promise<void> {
    if (this.tenantFilter === undefined) return;
    const rows = await this.internalRows(
      `SELECT DISTINCT schema_name, table_name FROM duckdb_columns() WHERE lower(column_name) = lower($1)`,
      [this.tenantFilter.field],
    );
    this.filteredRelations = new Set(rows.map((row) => relationKey(String(row[0]), String(row[1]))));
  }

  /** Adapter-owned introspection SQL (never agent text), on the same serialised connection. */
  private internalRows(sql: string, values: DuckDBValue[] = []): Promise<DuckDBValue[][]> {
    return this.queue(async () => (await this.connection.runAndReadAll(sql, values)).getRows());
  }

  async listTables(): Promise<TableRef[]> {
    const rows = await this.internalRows(
      `SELECT DISTINCT schema_name, table_name FROM (
         SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT internal
         UNION ALL SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal
       ) WHERE schema_name NOT IN (${SYSTEM_SCHEMAS.map((schema) => `'${schema}'`).join(', ')})
         AND NOT starts_with(lower(table_name), '${INTERNAL_TABLE_PREFIX}')
       ORDER BY schema_name, table_name`,
    );
    return rows.map((row) => ({ schema: String(row[0]), name: String(row[1]) }));
  }

  async describeTable(table: TableRef): Promise<TableSchema> {
    const columnRows = await this.internalRows(
      `SELECT column_name, data_type, is_nullable, comment FROM duckdb_columns() WHERE schema_name = $1 AND table_name = $2 ORDER BY column_index`,
      [table.schema, table.name],
    );
    if (columnRows.length === 0 || table.name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) {
      throw new NotFoundError(`table ${table.schema}.${table.name} does not exist in ${this.description}`, {
        table: `${table.schema}.${table.name}`,
      });
    }
    const keyRows = await this.internalRows(
      `SELECT unnest(constraint_column_names) FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND schema_name = $1 AND table_name = $2`,
      [table.schema, table.name],
    );
    const primaryKey = new Set(keyRows.map((row) => String(row[0])));
    const columns = columnRows.map((row): ColumnInfo => {
      const name = String(row[0]);
      const type = String(row[1]);
      const comment = catalogComment(row[3]);
      return {
        name,
        type,
        nullable: row[2] === true,
        category: inferColumnCategory(name, type, { primaryKey: primaryKey.has(name) }),
        ...(comment === undefined ? {} : { comment }),
      };
    });
    const commentRows = await this.internalRows(
      `SELECT comment FROM duckdb_tables() WHERE schema_name = $1 AND table_name = $2
       UNION ALL SELECT comment FROM duckdb_views() WHERE schema_name = $1 AND view_name = $2`,
      [table.schema, table.name],
    );
    const comment = commentRows.map((row) => catalogComment(row[0])).find((text) => text !== undefined);
    const qualifiedSql = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
    const samples = await this.query(`SELECT * FROM ${qualifiedSql} LIMIT ${SAMPLE_ROW_COUNT}`);
    return {
      schema: table.schema,
      name: table.name,
      qualified: `${table.schema}.${table.name}`,
      columns,
      rowCount: await this.rowCount(table, qualifiedSql),
      samples: samples.rows,
      ...(comment === undefined ? {} : { comment }),
    };
  }

  /** The engine's estimate; for a tenant-filtered relation the tenant's own count (an estimate would leak other tenants' volume). */
  private async rowCount(table: TableRef, qualifiedSql: string): Promise<number> {
    if (this.filteredRelations.has(relationKey(table.schema, table.name))) {
      const counted = await this.query(`SELECT count(*) AS n FROM ${qualifiedSql}`);
      return Number(counted.rows[0]?.n ?? -1);
    }
    const rows = await this.internalRows(`SELECT estimated_size FROM duckdb_tables() WHERE schema_name = $1 AND table_name = $2`, [
      table.schema,
      table.name,
    ]);
    const estimate = rows[0]?.[0];
    return estimate === undefined || estimate === null ? -1 : Number(estimate);
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const allowed = await assertSafeSql(sql, 'duckdb');
    const statement =
      this.tenantFilter === undefined
        ? allowed.statement
        : await applyDuckdbTenantFilter(allowed, this.filteredRelations, this.tenantFilter);
    const limits = { maxRows: options.maxRows ?? this.limits.maxRows, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs };
    return this.queue(() => this.execute(statement, limits, options.signal));
  }

  /** Runs one guarded statement with the time and row limits (layer 3). */
  private async execute(statement: string, limits: Limits, signal: AbortSignal | undefined): Promise<QueryResult> {
    if (signal?.aborted) throw new CancelledError('query cancelled before it started');
    const started = performance.now();
    let stoppedBy: 'timeout' | 'signal' | undefined;
    const interrupt = (reason: 'timeout' | 'signal') => {
      stoppedBy ??= reason;
      this.connection.interrupt();
    };
    const timer = setTimeout(() => interrupt('timeout'), limits.timeoutMs);
    const onAbort = () => interrupt('signal');
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const extracted = await this.connection.extractStatements(statement);
      if (extracted.count !== 1)
        throw new UnsafeSqlError(`only a single SELECT statement is allowed (found ${extracted.count} statements)`);
      const prepared = await extracted.prepare(0);
      try {
        // a second opinion from the engine itself, after binding
        if (prepared.statementType !== StatementType.SELECT) throw new UnsafeSqlError('only a single SELECT statement is allowed');
        const result = await prepared.stream();
        const names = deduplicateColumnNames(result.columnNames());
        const columns = result.columnTypes().map((type, index) => ({ name: names[index] ?? `column_${index + 1}`, type: type.toString() }));
        const rows: Row[] = [];
        let truncated = false;
        while (!truncated) {
          const chunk = await result.fetchChunk();
          if (chunk === null || chunk.rowCount === 0) break;
          for (const values of chunk.getRows()) {
            if (rows.length === limits.maxRows) {
              truncated = true;
              break;
            }
            const row: Row = {};
            values.forEach((value, index) => {
              row[names[index] ?? `column_${index + 1}`] = duckdbCell(value);
            });
            rows.push(row);
          }
        }
        return { columns, rows, rowCount: rows.length, truncated, elapsedMs: Math.round(performance.now() - started) };
      } finally {
        prepared.destroySync();
      }
    } catch (error) {
      if (error instanceof UnsafeSqlError) throw error;
      if (stoppedBy === 'timeout') throw new QueryTimeoutError(limits.timeoutMs, { cause: error });
      if (stoppedBy === 'signal') throw new CancelledError('query cancelled', { cause: error });
      throw new WarehouseError(`DuckDB: ${describeError(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await this.reader.close();
    await this.queue(async () => {
      this.engine.connection.closeSync();
      this.engine.instance.closeSync();
    });
    await this.engine.cleanup();
  }
}

/** Layer 2 on its own: a connection that cannot write data, read files or reach the network, whatever SQL it is given. */
export interface LockedDuckdb {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  /** Deletes the private database file of an in-memory warehouse. */
  cleanup: () => Promise<void>;
}

/** DuckDB settings for the resource limits (set before the configuration is locked). */
export function duckdbResourceSettings(resources: WarehouseResources | undefined, tempDirectory?: string): Record<string, string> {
  const settings: Record<string, string> = {};
  // without a temp directory a read-only instance cannot spill: a sort or hash table past the limit fails
  if (tempDirectory !== undefined) settings.temp_directory = tempDirectory;
  if (resources?.memoryLimitBytes !== undefined)
    settings.memory_limit = `${Math.max(1, Math.floor(resources.memoryLimitBytes / 1_048_576))}MiB`;
  if (resources?.threads !== undefined) settings.threads = String(Math.max(1, Math.floor(resources.threads)));
  return settings;
}

export async function openLockedDuckdb(options: Pick<DuckdbWarehouseOptions, 'path' | 'files' | 'resources'>): Promise<LockedDuckdb> {
  const inMemory = options.path === ':memory:';
  if (!inMemory && !existsSync(options.path)) {
    throw new ConfigError(`DuckDB file ${options.path} does not exist (create it first, or use duckdb::memory: with warehouse files)`);
  }
  const files = options.files ?? {};
  const needsPrivateCopy = inMemory || Object.keys(files).length > 0;
  let storage: { file: string; cleanup: () => Promise<void> };
  try {
    storage = needsPrivateCopy
      ? await materialisePrivateDatabase(inMemory ? undefined : options.path, files)
      : { file: options.path, cleanup: async () => undefined };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new WarehouseError(`could not prepare DuckDB warehouse ${inMemory ? 'duckdb::memory:' : options.path}: ${describeError(error)}`, {
      cause: error,
    });
  }
  let instance: DuckDBInstance | undefined;
  // a private spill directory unless the config names one. Named, not made: DuckDB creates it at the first
  // spill, so a process that exits without closing the warehouse leaves nothing behind unless it spilled;
  // removed with the instance
  const spill = options.resources?.tempDirectory ?? path.join(os.tmpdir(), `assay-duckdb-spill-${process.pid}-${randomUUID()}`);
  const cleanup = async () => {
    await storage.cleanup();
    if (options.resources?.tempDirectory === undefined) await rm(spill, { recursive: true, force: true });
  };
  try {
    instance = await DuckDBInstance.create(storage.file, {
      access_mode: 'READ_ONLY',
      autoinstall_known_extensions: 'false',
      ...duckdbResourceSettings(options.resources, spill),
    });
    const connection = await instance.connect();
    await lockDown(connection);
    return { instance, connection, cleanup };
  } catch (error) {
    instance?.closeSync();
    await cleanup();
    if (error instanceof ConfigError) throw error;
    throw new WarehouseError(`could not open DuckDB warehouse ${inMemory ? 'duckdb::memory:' : options.path}: ${describeError(error)}`, {
      cause: error,
    });
  }
}

export async function openDuckdbWarehouse(options: DuckdbWarehouseOptions): Promise<Warehouse> {
  const locked = await openLockedDuckdb(options);
  const warehouse = new DuckdbWarehouse(
    options.path === ':memory:' ? 'duckdb::memory:' : `duckdb:${options.path}`,
    locked,
    options.limits,
    options.tenantFilter,
  );
  try {
    await warehouse.loadTenantRelations();
  } catch (error) {
    await warehouse.close();
    throw error;
  }
  return warehouse;
}
