/**
 * PostgreSQL adapter. Every agent statement runs in its own `BEGIN TRANSACTION READ ONLY` with
 * `SET LOCAL statement_timeout`, is fetched through a cursor, and is rolled back. Connect it with a
 * role that can only read: the read-only transaction stops writes, the role stops the rest.
 *
 * Row cap: `DECLARE … NO SCROLL CURSOR FOR <statement>` then `FETCH FORWARD maxRows + 1`. A cursor
 * runs the statement exactly as written (no re-parse of a wrapped subquery, so duplicate column
 * names, ORDER BY and LIMIT keep their meaning), lets the planner optimise for the first rows, and
 * the extra row tells "exactly maxRows" from "truncated" without counting the rest.
 */
import pg from 'pg';
import type { Row } from '../../domain/index.js';
import { CancelledError, ConfigError, NotFoundError, QueryTimeoutError, WarehouseError, describeError } from '../../errors/index.js';
import { deduplicateColumnNames } from '../cells.js';
import { catalogComment } from '../comments.js';
import { SAMPLE_ROW_COUNT } from '../limits.js';
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
import { quoteIdentifier, relationKey, type TenantFilter } from '../tenant-filter.js';
import { postgresColumn, readPostgresCatalog, samplePostgresTables, type PostgresCatalogContext } from './postgres-catalog.js';
import { postgresCell, postgresTypeParsers } from './postgres-cells.js';
import { applyPostgresTenantFilter, type PostgresTenantContext } from './postgres-tenant-rewrite.js';

export interface PostgresWarehouseOptions {
  connectionString: string;
  /** Printable, password-free. */
  description: string;
  limits: WarehouseLimits;
  tenantFilter?: TenantFilter | undefined;
  /** Connections kept open; agent queries are sequential per run, verification adds a few. */
  poolSize?: number;
}

const DEFAULT_POOL_SIZE = 4;
/** Below this size an exact count is cheap enough when the planner has no estimate yet (never analysed). */
const EXACT_COUNT_MAX_BYTES = 8 * 1024 * 1024;
const INTERNAL_TABLE_PREFIX = '_assay';
const QUERY_CANCELED = '57014';
const CURSOR_NAME = 'assay_rows';
/** Relation kinds the agent may read: table, view, materialised view, partitioned table, foreign table. */
const READABLE_RELKINDS = `('r','v','m','p','f')`;
const USER_SCHEMAS = `n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'`;
/** The relations the agent is shown (`c` is pg_class, `n` pg_namespace): readable kinds, no partitions, user schemas, granted. */
const LISTED_RELATIONS = `c.relkind IN ${READABLE_RELKINDS} AND NOT c.relispartition AND ${USER_SCHEMAS}
  AND NOT starts_with(lower(c.relname), '${INTERNAL_TABLE_PREFIX}') AND has_table_privilege(c.oid, 'SELECT')`;

type Limits = Pick<WarehouseLimits, 'maxRows' | 'timeoutMs'>;

/**
 * Layer 2 on its own: what every agent statement runs inside. UTC and ISO styles make the text
 * forms of dates and timestamps the cell converter reads independent of server settings.
 */
export function readOnlyTransactionSql(timeoutMs: number): string {
  return `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))};
    SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL IntervalStyle = 'postgres'`;
}

function pgErrorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * What to fix when the server refuses a login, by SQLSTATE: no retry can succeed until someone changes
 * a setting, so these become `ConfigError`s (the run fails at once) instead of retryable warehouse errors.
 */
function loginRefusalFix(sqlstate: string | undefined): string | undefined {
  if (sqlstate === '28P01') return "the password is wrong: fix the warehouse URL's password (or the project's secrets.warehouse_password)";
  if (sqlstate?.startsWith('28'))
    return 'the role cannot log in (it does not exist, or no pg_hba.conf entry admits it): fix the user in the warehouse URL';
  if (sqlstate === '3D000') return 'the database does not exist: fix the database name in the warehouse URL';
  if (sqlstate === '42501') return 'the role may not connect to this database: grant it CONNECT, or use another role in the warehouse URL';
  return undefined;
}

/** A failure to get a connection: a `ConfigError` naming what to fix when the server refused the login, else a retryable `WarehouseError`. */
export function connectionError(description: string, error: unknown): ConfigError | WarehouseError {
  const sqlstate = pgErrorCode(error);
  const fix = loginRefusalFix(sqlstate);
  if (fix !== undefined) {
    return new ConfigError(`PostgreSQL at ${description} refused the connection: ${describeError(error)} (SQLSTATE ${sqlstate}); ${fix}`, {
      cause: error,
      details: { sqlstate },
    });
  }
  return new WarehouseError(`could not connect to ${description}: ${describeError(error)}`, { cause: error });
}

class PostgresWarehouse implements Warehouse {
  readonly dialect = 'postgres' as const;
  private readonly typeNames = new Map<number, string>();
  private tenant: PostgresTenantContext | undefined;

  constructor(
    readonly description: string,
    private readonly pool: pg.Pool,
    readonly limits: WarehouseLimits,
  ) {}

  async loadTenantContext(filter: TenantFilter): Promise<void> {
    const filteredRows = await this.pool.query<{ nspname: string; relname: string }>(
      `SELECT DISTINCT n.nspname, c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ${READABLE_RELKINDS} AND a.attnum > 0 AND NOT a.attisdropped AND lower(a.attname) = lower($1)`,
      [filter.field],
    );
    const pathRows = await this.pool.query<{ nspname: string; relname: string }>(
      `SELECT DISTINCT ON (c.relname) n.nspname, c.relname
         FROM unnest(current_schemas(false)) WITH ORDINALITY AS path(nspname, position)
         JOIN pg_namespace n ON n.nspname = path.nspname JOIN pg_class c ON c.relnamespace = n.oid
        WHERE c.relkind IN ${READABLE_RELKINDS} ORDER BY c.relname, path.position`,
    );
    this.tenant = {
      filter,
      filtered: new Set(filteredRows.rows.map((row) => relationKey(row.nspname, row.relname))),
      searchPathSchema: new Map(pathRows.rows.map((row) => [row.relname.toLowerCase(), row.nspname])),
    };
  }

  async listTables(): Promise<TableRef[]> {
    const result = await this.pool.query<{ nspname: string; relname: string }>(
      `SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE ${LISTED_RELATIONS}
        ORDER BY n.nspname, c.relname`,
    );
    return result.rows.map((row) => ({ schema: row.nspname, name: row.relname }));
  }

  private catalogContext(): PostgresCatalogContext {
    return {
      pool: this.pool,
      readOnly: (timeoutMs, signal, work) => this.readOnly(timeoutMs, signal, work),
      relationFilter: LISTED_RELATIONS,
      exactCountMaxBytes: EXACT_COUNT_MAX_BYTES,
      tenant: this.tenant,
      timeoutMs: this.limits.timeoutMs,
    };
  }

  describeCatalog(): Promise<TableDescription[]> {
    return readPostgresCatalog(this.catalogContext());
  }

  sampleTables(tables: readonly TableDescription[], options: SampleOptions = {}): Promise<Row[][]> {
    return samplePostgresTables(tables, this.catalogContext(), options);
  }

  async describeTable(table: TableRef): Promise<TableSchema> {
    const columns = await this.pool.query<{
      attname: string;
      type: string;
      attnotnull: boolean;
      primary_key: boolean;
      comment: string | null;
      table_comment: string | null;
    }>(
      `SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
              EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY(i.indkey)) AS primary_key,
              col_description(c.oid, a.attnum) AS comment, obj_description(c.oid, 'pg_class') AS table_comment
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped AND ${USER_SCHEMAS}
        ORDER BY a.attnum`,
      [table.schema, table.name],
    );
    if (columns.rows.length === 0 || table.name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) {
      throw new NotFoundError(`table ${table.schema}.${table.name} does not exist in ${this.description}`, {
        table: `${table.schema}.${table.name}`,
      });
    }
    const qualifiedSql = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
    const samples = await this.query(`SELECT * FROM ${qualifiedSql} LIMIT ${SAMPLE_ROW_COUNT}`);
    const comment = catalogComment(columns.rows[0]?.table_comment);
    return {
      schema: table.schema,
      name: table.name,
      qualified: `${table.schema}.${table.name}`,
      columns: columns.rows.map((row) => postgresColumn(row)),
      rowCount: await this.rowCount(table, qualifiedSql),
      samples: samples.rows,
      ...(comment === undefined ? {} : { comment }),
    };
  }

  /**
   * `pg_class.reltuples` (the planner's estimate); -1 there means never analysed, so small tables
   * are counted exactly. A tenant-filtered relation is always counted through the filter: the
   * estimate would reveal other tenants' volume.
   */
  private async rowCount(table: TableRef, qualifiedSql: string): Promise<number> {
    const exactCount = async () => Number((await this.query(`SELECT count(*) AS n FROM ${qualifiedSql}`)).rows[0]?.n ?? -1);
    if (this.tenant?.filtered.has(relationKey(table.schema, table.name))) return exactCount();
    const estimate = await this.pool.query<{ reltuples: number; relkind: string; bytes: string }>(
      `SELECT c.reltuples, c.relkind, pg_relation_size(c.oid)::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = $2`,
      [table.schema, table.name],
    );
    const row = estimate.rows[0];
    if (row === undefined) return -1;
    if (row.reltuples >= 0) return Math.round(row.reltuples);
    const countable = (row.relkind === 'r' || row.relkind === 'm') && Number(row.bytes) <= EXACT_COUNT_MAX_BYTES;
    return countable ? exactCount() : -1;
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const allowed = await assertSafeSql(sql, 'postgres');
    const statement = this.tenant === undefined ? allowed.statement : await applyPostgresTenantFilter(allowed, this.tenant);
    return this.execute(
      statement,
      { maxRows: options.maxRows ?? this.limits.maxRows, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs },
      options.signal,
    );
  }

  private async execute(statement: string, limits: Limits, signal: AbortSignal | undefined): Promise<QueryResult> {
    const started = performance.now();
    return this.readOnly(limits.timeoutMs, signal, async (client) => {
      await client.query(`DECLARE ${CURSOR_NAME} NO SCROLL CURSOR FOR ${statement}`);
      const fetched = await client.query<unknown[]>({ text: `FETCH FORWARD ${limits.maxRows + 1} FROM ${CURSOR_NAME}`, rowMode: 'array' });
      const columnTypes = await this.typeNamesFor(
        client,
        fetched.fields.map((field) => field.dataTypeID),
      );
      const names = deduplicateColumnNames(fetched.fields.map((field) => field.name));
      const truncated = fetched.rows.length > limits.maxRows;
      const rows: Row[] = fetched.rows.slice(0, limits.maxRows).map((values) => {
        const row: Row = {};
        fetched.fields.forEach((field, index) => {
          row[names[index] ?? field.name] = postgresCell(values[index], field.dataTypeID);
        });
        return row;
      });
      return {
        columns: fetched.fields.map((field, index) => ({
          name: names[index] ?? field.name,
          type: columnTypes[index] ?? String(field.dataTypeID),
        })),
        rows,
        rowCount: rows.length,
        truncated,
        elapsedMs: Math.round(performance.now() - started),
      };
    });
  }

  /**
   * Runs `work` on one pooled client inside `readOnlyTransactionSql(timeoutMs)`, then rolls back.
   * The signal cancels the running statement (over another connection); a statement cancelled by
   * the timeout or the signal becomes WarehouseError / CancelledError, any other failure WarehouseError.
   */
  private async readOnly<T>(timeoutMs: number, signal: AbortSignal | undefined, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (signal?.aborted) throw new CancelledError('query cancelled before it started');
    const client = await this.pool.connect().catch((error: unknown) => {
      throw connectionError(this.description, error);
    });
    let backendPid: number | undefined;
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      // the cancel request goes over another connection; the running statement fails with 57014
      if (backendPid !== undefined) this.pool.query('SELECT pg_cancel_backend($1)', [backendPid]).catch(() => undefined);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let broken = false;
    try {
      const setup = (await client.query(`${readOnlyTransactionSql(timeoutMs)}; SELECT pg_backend_pid() AS pid`)) as unknown as Array<
        pg.QueryResult<{ pid: number }>
      >;
      backendPid = setup[setup.length - 1]?.rows[0]?.pid;
      if (signal?.aborted) onAbort();
      return await work(client);
    } catch (error) {
      if (pgErrorCode(error) === QUERY_CANCELED) {
        if (cancelled) throw new CancelledError('query cancelled', { cause: error });
        throw new QueryTimeoutError(timeoutMs, { cause: error });
      }
      if (pgErrorCode(error) === undefined) broken = true;
      throw new WarehouseError(`PostgreSQL: ${describeError(error)}`, { cause: error });
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      client.release(broken);
    }
  }

  /** Engine type names (`integer`, `timestamp with time zone` …) for result column OIDs, cached per warehouse. */
  private async typeNamesFor(client: pg.PoolClient, oids: number[]): Promise<string[]> {
    const missing = [...new Set(oids.filter((oid) => !this.typeNames.has(oid)))];
    if (missing.length > 0) {
      const result = await client.query<{ oid: number; name: string }>(
        'SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_type WHERE oid = ANY($1::oid[])',
        [missing],
      );
      for (const row of result.rows) this.typeNames.set(row.oid, row.name);
    }
    return oids.map((oid) => this.typeNames.get(oid) ?? String(oid));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export async function openPostgresWarehouse(options: PostgresWarehouseOptions): Promise<Warehouse> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    application_name: 'assay',
    types: postgresTypeParsers,
  });
  // an idle connection dropped by the server must not crash the process; the next query reconnects
  pool.on('error', () => undefined);
  const warehouse = new PostgresWarehouse(options.description, pool, options.limits);
  try {
    await pool.query('SELECT 1');
    if (options.tenantFilter !== undefined) await warehouse.loadTenantContext(options.tenantFilter);
    return warehouse;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw connectionError(options.description, error);
  }
}
