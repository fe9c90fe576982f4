/**
 * MySQL/MariaDB adapter (`mysql2`). Every agent statement runs on a pooled connection whose session
 * is read-only (`SET SESSION TRANSACTION READ ONLY`), inside `START TRANSACTION READ ONLY`, with a
 * server-side statement time limit (MariaDB `max_statement_time`, MySQL `max_execution_time`) and
 * `sql_select_limit` = rows cap + 1; the transaction is rolled back after. Connect with a user that
 * has SELECT (and SHOW VIEW) on one database and nothing else, no FILE privilege in particular: the
 * read-only transaction stops writes, the grants stop the rest.
 *
 * Rows stream in; when the cap is passed, or the caller aborts, or the time runs out, the running
 * statement is stopped with `KILL QUERY` from a separate connection, so the pooled connection stays usable.
 */
import type { Connection as CallbackConnection } from 'mysql2';
import mysql from 'mysql2/promise';
import type { Row } from '../../domain/index.js';
import { CancelledError, NotFoundError, QueryTimeoutError, WarehouseError, describeError } from '../../errors/index.js';
import { deduplicateColumnNames } from '../cells.js';
import { inferColumnCategory } from '../column-category.js';
import { SAMPLE_ROW_COUNT } from '../limits.js';
import { openingError } from '../login-refusal.js';
import type {
  QueryOptions,
  QueryResult,
  SampleOptions,
  TableDescription,
  TableRef,
  TableSchema,
  Warehouse,
  WarehouseLimits,
} from '../port.js';
import { assertSafeSql } from '../sql-guard.js';
import { mysqlSyntax } from '../sql-syntax/mysql.js';
import { applyTreeTenantFilter, filteredRelationFor, type TreeTenantContext } from '../sql-tree/tree-tenant-rewrite.js';
import type { TreeAllowedSql } from '../sql-tree/tree-guard.js';
import { relationKey, type TenantFilter } from '../tenant-filter.js';
import { mysqlCell, mysqlTypeName, type MysqlField } from './mysql-cells.js';
import { MYSQL_GUARD_RULES } from './mysql-sql-guard.js';

export interface MysqlWarehouseOptions {
  /** `mysql://user:password@host:port/database`, for the driver only. */
  connectionString: string;
  /** Printable, password-free. */
  description: string;
  database: string;
  limits: WarehouseLimits;
  tenantFilter?: TenantFilter | undefined;
  /** @defaultValue 4 */
  poolSize?: number;
}

const DEFAULT_POOL_SIZE = 4;
const INTERNAL_TABLE_PREFIX = '_assay';
/** MariaDB: max_statement_time exceeded; MySQL: max_execution_time exceeded; both: KILL QUERY. */
const TIMED_OUT = new Set([1969, 3024]);
const INTERRUPTED = 1317;
/** A GROUP_CONCAT longer than this is cut (silently, with a warning): the quantile in SqlSyntax must never be. */
const GROUP_CONCAT_MAX_LEN = 4_294_967_295;
/** Samples of this many tables are read per statement (one UNION-free statement per table, pipelined). */
const SAMPLE_CONCURRENCY = 4;

type Limits = Pick<WarehouseLimits, 'maxRows' | 'timeoutMs'>;

function errorCode(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'errno' in error && typeof error.errno === 'number' ? error.errno : undefined;
}

/** Column type as `describeTable` reports it: the data type, with precision for decimals and length for strings. */
function columnTypeName(dataType: string, columnType: string): string {
  const lower = dataType.toLowerCase();
  const sized =
    /^(decimal|numeric|char|varchar|binary|varbinary|bit|tinyint\(1\))/.test(lower) || columnType.toLowerCase() === 'tinyint(1)';
  const base = sized ? columnType.replace(/\s+(unsigned|zerofill).*$/i, '') : lower;
  return /\bunsigned\b/i.test(columnType) ? `${base} unsigned` : base;
}

interface CatalogColumnRow {
  TABLE_NAME: string;
  COLUMN_NAME: string;
  DATA_TYPE: string;
  COLUMN_TYPE: string;
  IS_NULLABLE: string;
  COLUMN_KEY: string;
}

interface CatalogTableRow {
  TABLE_NAME: string;
  TABLE_ROWS: string | number | null;
}

class MysqlWarehouse implements Warehouse {
  readonly dialect = 'mysql' as const;
  private tenant: TreeTenantContext | undefined;
  private killer: Promise<mysql.Connection> | undefined;
  /** `max_statement_time` (MariaDB, seconds) or `max_execution_time` (MySQL, milliseconds). */
  private mariadb = true;

  private get resetLimitsSql(): string {
    return `SET SESSION ${this.mariadb ? 'max_statement_time' : 'max_execution_time'} = DEFAULT, sql_select_limit = DEFAULT`;
  }

  constructor(
    readonly description: string,
    private readonly pool: mysql.Pool,
    private readonly options: MysqlWarehouseOptions,
    readonly limits: WarehouseLimits,
  ) {}

  async initialise(): Promise<void> {
    const [rows] = await this.pool.query<mysql.RowDataPacket[]>('SELECT VERSION() AS version');
    this.mariadb = /mariadb/i.test(String(rows[0]?.version ?? ''));
    if (this.options.tenantFilter !== undefined) {
      const [filtered] = await this.pool.query<mysql.RowDataPacket[]>(
        `SELECT DISTINCT TABLE_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND LOWER(COLUMN_NAME) = LOWER(?)`,
        [this.options.database, this.options.tenantFilter.field],
      );
      this.tenant = {
        filter: this.options.tenantFilter,
        filtered: new Set(filtered.map((row) => relationKey(this.options.database, String(row.TABLE_NAME)))),
        defaultSchema: this.options.database,
        syntax: mysqlSyntax,
        rules: MYSQL_GUARD_RULES,
      };
    }
  }

  private isFiltered(table: TableRef): boolean {
    return this.tenant?.filtered.has(relationKey(table.schema, table.name)) === true;
  }

  /** What a relation is read through: itself, or the tenant filter's derived table. */
  private sourceSql(table: TableRef): string {
    if (this.tenant !== undefined && this.isFiltered(table)) {
      return `${filteredRelationFor(mysqlSyntax, table, this.tenant.filter)} AS ${mysqlSyntax.identifier(table.name)}`;
    }
    return mysqlSyntax.table(table);
  }

  async listTables(): Promise<TableRef[]> {
    const [rows] = await this.pool.query<mysql.RowDataPacket[]>(
      `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`,
      [this.options.database],
    );
    return rows
      .map((row) => String(row.TABLE_NAME))
      .filter((name) => !name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX))
      .map((name) => ({ schema: this.options.database, name }));
  }

  /** Columns and estimated row counts of every table of the database: two catalog queries. */
  async describeCatalog(): Promise<TableDescription[]> {
    return this.readCatalog(undefined);
  }

  private async readCatalog(only: string | undefined): Promise<TableDescription[]> {
    const database = this.options.database;
    const tableFilter = only === undefined ? '' : ' AND TABLE_NAME = ?';
    const parameters = only === undefined ? [database] : [database, only];
    const [[tables], [columns]] = await Promise.all([
      this.pool.query<mysql.RowDataPacket[]>(
        `SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?${tableFilter}`,
        parameters,
      ),
      this.pool.query<mysql.RowDataPacket[]>(
        `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = ?${tableFilter} ORDER BY TABLE_NAME, ORDINAL_POSITION`,
        parameters,
      ),
    ]);
    const columnsByTable = new Map<string, TableDescription['columns']>();
    for (const row of columns as unknown as CatalogColumnRow[]) {
      const list = columnsByTable.get(row.TABLE_NAME) ?? [];
      const type = columnTypeName(row.DATA_TYPE, row.COLUMN_TYPE);
      list.push({
        name: row.COLUMN_NAME,
        type,
        nullable: row.IS_NULLABLE === 'YES',
        category: inferColumnCategory(row.COLUMN_NAME, type, { primaryKey: row.COLUMN_KEY === 'PRI' }),
      });
      columnsByTable.set(row.TABLE_NAME, list);
    }
    const described: TableDescription[] = [];
    for (const row of tables as unknown as CatalogTableRow[]) {
      const name = row.TABLE_NAME;
      const tableColumns = columnsByTable.get(name);
      if (tableColumns === undefined || name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) continue;
      described.push({
        schema: database,
        name,
        qualified: `${database}.${name}`,
        columns: tableColumns,
        rowCount: row.TABLE_ROWS === null ? -1 : Number(row.TABLE_ROWS),
      });
    }
    // a tenant's count through the filter: an estimate would reveal other tenants' volume
    for (const table of described) if (this.isFiltered(table)) table.rowCount = await this.exactCount(table);
    return described.sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
  }

  private async exactCount(table: TableRef): Promise<number> {
    const result = await this.execute(`SELECT COUNT(*) AS n FROM ${this.sourceSql(table)}`, {
      maxRows: 1,
      timeoutMs: this.limits.timeoutMs,
    });
    return Number(result.rows[0]?.n ?? -1);
  }

  async sampleTables(tables: readonly TableDescription[], options: SampleOptions = {}): Promise<Row[][]> {
    const limits = { maxRows: SAMPLE_ROW_COUNT, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs };
    const results: Row[][] = new Array(tables.length);
    let next = 0;
    const worker = async () => {
      while (next < tables.length) {
        const index = next++;
        const table = tables[index];
        if (table === undefined) continue;
        results[index] = (
          await this.execute(`SELECT * FROM ${this.sourceSql(table)} LIMIT ${SAMPLE_ROW_COUNT}`, limits, options.signal)
        ).rows;
      }
    };
    await Promise.all(Array.from({ length: Math.min(SAMPLE_CONCURRENCY, tables.length) }, worker));
    return results;
  }

  async describeTable(table: TableRef): Promise<TableSchema> {
    const notFound = () =>
      new NotFoundError(`table ${table.schema}.${table.name} does not exist in ${this.description}`, {
        table: `${table.schema}.${table.name}`,
      });
    if (table.schema !== this.options.database || table.name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) throw notFound();
    const [described] = await this.readCatalog(table.name);
    if (described === undefined) throw notFound();
    const [samples] = await this.sampleTables([described]);
    return { ...described, samples: samples ?? [] };
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const allowed = (await assertSafeSql(sql, 'mysql')) as TreeAllowedSql;
    const statement = this.tenant === undefined ? allowed.statement : await applyTreeTenantFilter(allowed, this.tenant);
    return this.execute(
      statement,
      { maxRows: options.maxRows ?? this.limits.maxRows, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs },
      options.signal,
    );
  }

  /** A separate connection that stops running statements (`KILL QUERY`): the pool may be full of them. */
  private killConnection(): Promise<mysql.Connection> {
    this.killer ??= mysql.createConnection({ uri: this.options.connectionString }).then((connection) => {
      connection.on('error', () => {
        this.killer = undefined;
      });
      return connection;
    });
    return this.killer;
  }

  private async kill(threadId: number): Promise<void> {
    try {
      await (await this.killConnection()).query(`KILL QUERY ${Math.floor(threadId)}`);
    } catch {
      this.killer = undefined;
    }
  }

  /** Runs one statement (guarded agent SQL or the adapter's own) with the engine layer and the limits. */
  private async execute(statement: string, limits: Limits, signal?: AbortSignal): Promise<QueryResult> {
    if (signal?.aborted) throw new CancelledError('query cancelled before it started');
    const started = performance.now();
    const connection = await this.pool.getConnection();
    let stoppedBy: 'timeout' | 'signal' | 'row cap' | undefined;
    let broken = false;
    const stop = (reason: 'timeout' | 'signal' | 'row cap') => {
      if (stoppedBy !== undefined) return;
      stoppedBy = reason;
      void this.kill(connection.threadId);
    };
    const onAbort = () => stop('signal');
    signal?.addEventListener('abort', onAbort, { once: true });
    // the server's own limit stops the statement; this one is the backstop if the server does not
    const backstop = setTimeout(() => stop('timeout'), limits.timeoutMs + 2_000);
    try {
      const timeLimit = this.mariadb
        ? `max_statement_time = ${Math.max(0.001, limits.timeoutMs / 1000)}`
        : `max_execution_time = ${Math.max(1, Math.floor(limits.timeoutMs))}`;
      await connection.query(`SET SESSION ${timeLimit}, sql_select_limit = ${limits.maxRows + 1}`);
      await connection.query('START TRANSACTION READ ONLY');
      const { fields, rows } = await this.stream(connection, statement, limits.maxRows, () => stop('row cap'));
      const names = deduplicateColumnNames(fields.map((field) => field.name));
      const truncated = rows.length > limits.maxRows;
      const kept = rows.slice(0, limits.maxRows).map((values) => {
        const row: Row = {};
        fields.forEach((field, index) => {
          row[names[index] ?? field.name] = mysqlCell(values[index], field);
        });
        return row;
      });
      return {
        columns: fields.map((field, index) => ({ name: names[index] ?? field.name, type: mysqlTypeName(field) })),
        rows: kept,
        rowCount: kept.length,
        truncated,
        elapsedMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      const code = errorCode(error);
      if (stoppedBy === 'signal') throw new CancelledError('query cancelled', { cause: error });
      if (stoppedBy === 'timeout' || (code !== undefined && TIMED_OUT.has(code)) || (code === INTERRUPTED && stoppedBy === undefined)) {
        throw new QueryTimeoutError(limits.timeoutMs, { cause: error });
      }
      if (code === undefined) broken = true;
      throw new WarehouseError(`MySQL: ${describeError(error)}`, { cause: error });
    } finally {
      clearTimeout(backstop);
      signal?.removeEventListener('abort', onAbort);
      if (!broken) await connection.query('ROLLBACK').catch(() => (broken = true));
      // the limits are session variables: put them back, or the pool's next catalog read is capped too
      if (!broken) await connection.query(this.resetLimitsSql).catch(() => (broken = true));
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  /**
   * Streams the statement's rows as arrays. After `maxRows + 1` rows it asks for the statement to be
   * stopped and resolves with what it has; the "interrupted" error that follows is expected.
   */
  private stream(
    connection: mysql.PoolConnection,
    statement: string,
    maxRows: number,
    onCap: () => void,
  ): Promise<{ fields: Array<MysqlField & { name: string }>; rows: unknown[][] }> {
    return new Promise((resolve, reject) => {
      let fields: Array<MysqlField & { name: string }> = [];
      const rows: unknown[][] = [];
      let capped = false;
      const query = (connection.connection as unknown as CallbackConnection).query({ sql: statement, rowsAsArray: true });
      query.on('fields', (received: Array<MysqlField & { name: string }>) => {
        fields = received;
      });
      query.on('result', (row: unknown) => {
        if (capped) return;
        rows.push(row as unknown[]);
        if (rows.length > maxRows) {
          capped = true;
          onCap();
        }
      });
      query.on('error', (error: Error) => {
        if (capped && errorCode(error) === INTERRUPTED) resolve({ fields, rows });
        else reject(error);
      });
      query.on('end', () => resolve({ fields, rows }));
    });
  }

  async close(): Promise<void> {
    const killer = this.killer;
    this.killer = undefined;
    if (killer !== undefined) await killer.then((connection) => connection.end()).catch(() => undefined);
    await this.pool.end();
  }
}

/**
 * The session every pooled connection gets: read-only transactions, UTC (so TIMESTAMP values and
 * UNIX_TIMESTAMP do not depend on the server's zone) and room for the sorted lists SqlSyntax builds.
 */
export const MYSQL_SESSION_SQL: readonly string[] = [
  'SET SESSION TRANSACTION READ ONLY',
  `SET SESSION time_zone = '+00:00', group_concat_max_len = ${GROUP_CONCAT_MAX_LEN}`,
];

export async function openMysqlWarehouse(options: MysqlWarehouseOptions): Promise<Warehouse> {
  const pool = mysql.createPool({
    uri: options.connectionString,
    connectionLimit: options.poolSize ?? DEFAULT_POOL_SIZE,
    multipleStatements: false,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    timezone: 'Z',
    connectTimeout: 10_000,
  });
  pool.pool.on('connection', (connection) => {
    // queued ahead of anything else the connection runs; a failure surfaces on the first query
    for (const statement of MYSQL_SESSION_SQL) connection.query(statement);
  });
  const warehouse = new MysqlWarehouse(options.description, pool, options, options.limits);
  try {
    await warehouse.initialise();
    return warehouse;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw openingError('mysql', options.description, error);
  }
}
