/**
 * Snowflake adapter (`snowflake-sdk`). Not reachable from the build machines: its contract suite
 * runs only when SNOWFLAKE_TEST_URL (with its password) is set.
 *
 * Engine layer: connect with a role that has USAGE on the warehouse, database and schema and SELECT
 * on the tables, nothing else (docs/warehouses.md). Every agent statement is first compiled without
 * running (`describeOnly`), runs with `MULTI_STATEMENT_COUNT = 1` and `STATEMENT_TIMEOUT_IN_SECONDS`,
 * and is streamed only up to the row cap. The catalog is two INFORMATION_SCHEMA queries.
 */
import snowflake from 'snowflake-sdk';
import type { Row } from '../../domain/index.js';
import { CancelledError, NotFoundError, QueryTimeoutError, UnsafeSqlError, WarehouseError, describeError } from '../../errors/index.js';
import { deduplicateColumnNames } from '../cells.js';
import { inferColumnCategory } from '../column-category.js';
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
import { snowflakeSyntax } from '../sql-syntax/snowflake.js';
import type { TreeAllowedSql } from '../sql-tree/tree-guard.js';
import { applyTreeTenantFilter, filteredRelationFor, type TreeTenantContext } from '../sql-tree/tree-tenant-rewrite.js';
import { relationKey, type TenantFilter } from '../tenant-filter.js';
import type { WarehouseTarget } from '../warehouse-url.js';
import { SNOWFLAKE_SESSION_PARAMETERS, snowflakeCell } from './snowflake-cells.js';
import { SNOWFLAKE_GUARD_RULES } from './snowflake-sql-guard.js';

type SnowflakeTarget = Extract<WarehouseTarget, { engine: 'snowflake' }>;

export interface SnowflakeWarehouseOptions {
  target: SnowflakeTarget;
  description: string;
  limits: WarehouseLimits;
  tenantFilter?: TenantFilter | undefined;
}

const INTERNAL_TABLE_PREFIX = '_assay';

interface Executed {
  columns: Array<{ name: string; type: string; scale: number }>;
  rows: unknown[][];
}

class SnowflakeWarehouse implements Warehouse {
  readonly dialect = 'snowflake' as const;
  private tenant: TreeTenantContext | undefined;

  constructor(
    readonly description: string,
    private readonly connection: snowflake.Connection,
    private readonly options: SnowflakeWarehouseOptions,
    readonly limits: WarehouseLimits,
  ) {}

  private get schema(): string {
    return this.options.target.schema;
  }

  async initialise(): Promise<void> {
    if (this.options.tenantFilter === undefined) return;
    const filtered = await this.run(
      `SELECT DISTINCT TABLE_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ${snowflakeSyntax.string(this.schema)} AND LOWER(COLUMN_NAME) = LOWER(${snowflakeSyntax.string(this.options.tenantFilter.field)})`,
      { maxRows: 100_000, timeoutMs: this.limits.timeoutMs },
    );
    this.tenant = {
      filter: this.options.tenantFilter,
      filtered: new Set(filtered.rows.map((row) => relationKey(this.schema, String(row[0])))),
      defaultSchema: this.schema,
      syntax: snowflakeSyntax,
      rules: SNOWFLAKE_GUARD_RULES,
    };
  }

  private isFiltered(table: TableRef): boolean {
    return this.tenant?.filtered.has(relationKey(table.schema, table.name)) === true;
  }

  private sourceSql(table: TableRef): string {
    if (this.tenant !== undefined && this.isFiltered(table)) {
      return `${filteredRelationFor(snowflakeSyntax, table, this.tenant.filter)} AS ${snowflakeSyntax.identifier(table.name)}`;
    }
    return snowflakeSyntax.table(table);
  }

  async listTables(): Promise<TableRef[]> {
    return (await this.describeCatalog()).map(({ schema, name }) => ({ schema, name }));
  }

  async describeCatalog(): Promise<TableDescription[]> {
    const limits = { maxRows: 10_000_000, timeoutMs: this.limits.timeoutMs };
    const schema = snowflakeSyntax.string(this.schema);
    const [tables, columns] = await Promise.all([
      this.run(`SELECT TABLE_NAME, ROW_COUNT FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ${schema}`, limits),
      this.run(
        `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, IS_NULLABLE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ${schema} ORDER BY TABLE_NAME, ORDINAL_POSITION`,
        limits,
      ),
    ]);
    const byTable = new Map<string, TableDescription['columns']>();
    for (const [table, name, type, nullable] of columns.rows) {
      const list = byTable.get(String(table)) ?? [];
      list.push({
        name: String(name),
        type: String(type),
        nullable: nullable === 'YES',
        category: inferColumnCategory(String(name), String(type)),
      });
      byTable.set(String(table), list);
    }
    const described: TableDescription[] = [];
    for (const [name, rowCount] of tables.rows) {
      const tableColumns = byTable.get(String(name));
      if (tableColumns === undefined || String(name).toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) continue;
      described.push({
        schema: this.schema,
        name: String(name),
        qualified: `${this.schema}.${String(name)}`,
        columns: tableColumns,
        rowCount: rowCount === null || rowCount === undefined ? -1 : Number(rowCount),
      });
    }
    for (const table of described) {
      if (this.isFiltered(table)) {
        const counted = await this.run(`SELECT COUNT(*) FROM ${this.sourceSql(table)}`, { maxRows: 1, timeoutMs: this.limits.timeoutMs });
        table.rowCount = Number(counted.rows[0]?.[0] ?? -1);
      }
    }
    return described.sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
  }

  async sampleTables(tables: readonly TableDescription[], options: SampleOptions = {}): Promise<Row[][]> {
    const results: Row[][] = [];
    for (const table of tables) {
      const executed = await this.run(
        `SELECT * FROM ${this.sourceSql(table)} LIMIT ${SAMPLE_ROW_COUNT}`,
        { maxRows: SAMPLE_ROW_COUNT, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs },
        options.signal,
      );
      results.push(this.toResult(executed, SAMPLE_ROW_COUNT, 0).rows);
    }
    return results;
  }

  async describeTable(table: TableRef): Promise<TableSchema> {
    const described = (await this.describeCatalog()).find((entry) => entry.schema === table.schema && entry.name === table.name);
    if (described === undefined)
      throw new NotFoundError(`table ${table.schema}.${table.name} does not exist in ${this.description}`, {
        table: `${table.schema}.${table.name}`,
      });
    const [samples] = await this.sampleTables([described]);
    return { ...described, samples: samples ?? [] };
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const allowed = (await assertSafeSql(sql, 'snowflake')) as TreeAllowedSql;
    const statement = this.tenant === undefined ? allowed.statement : await applyTreeTenantFilter(allowed, this.tenant);
    const limits = { maxRows: options.maxRows ?? this.limits.maxRows, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs };
    // Snowflake compiles the statement without running it: one that is not a query fails here
    const described = await this.run(statement, limits, options.signal, true);
    if (described.columns.length === 0)
      throw new UnsafeSqlError('only a single SELECT statement is allowed (Snowflake reports no result columns)');
    const started = performance.now();
    return this.toResult(await this.run(statement, limits, options.signal), limits.maxRows, started);
  }

  private toResult(executed: Executed, maxRows: number, started: number): QueryResult {
    const names = deduplicateColumnNames(executed.columns.map((column) => column.name));
    const kept = executed.rows.slice(0, maxRows).map((values) => {
      const row: Row = {};
      executed.columns.forEach((column, index) => {
        row[names[index] ?? column.name] = snowflakeCell(values[index], column);
      });
      return row;
    });
    return {
      columns: executed.columns.map((column, index) => ({ name: names[index] ?? column.name, type: column.type.toUpperCase() })),
      rows: kept,
      rowCount: kept.length,
      truncated: executed.rows.length > maxRows,
      elapsedMs: started === 0 ? 0 : Math.round(performance.now() - started),
    };
  }

  /** Executes one statement, streaming at most `maxRows + 1` rows. */
  private run(
    statement: string,
    limits: { maxRows: number; timeoutMs: number },
    signal?: AbortSignal,
    describeOnly = false,
  ): Promise<Executed> {
    if (signal?.aborted) return Promise.reject(new CancelledError('query cancelled before it started'));
    return new Promise<Executed>((resolve, reject) => {
      let stoppedBy: 'timeout' | 'signal' | undefined;
      let settled = false;
      const finish = (error: unknown, value?: Executed) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error === undefined && value !== undefined) return resolve(value);
        if (stoppedBy === 'signal') return reject(new CancelledError('query cancelled', { cause: error }));
        if (stoppedBy === 'timeout') return reject(new QueryTimeoutError(limits.timeoutMs, { cause: error }));
        reject(new WarehouseError(`Snowflake: ${describeError(error)}`, { cause: error }));
      };
      const statementHandle = this.connection.execute({
        sqlText: statement,
        streamResult: true,
        describeOnly,
        rowMode: 'array',
        fetchAsString: ['Number', 'Date'],
        parameters: { ...SNOWFLAKE_SESSION_PARAMETERS, STATEMENT_TIMEOUT_IN_SECONDS: Math.max(1, Math.ceil(limits.timeoutMs / 1000)) },
        complete: (error, executed) => {
          if (error) return finish(error);
          const columns = (executed.getColumns() ?? []).map((column) => ({
            name: column.getName(),
            type: column.getType(),
            scale: column.getScale(),
          }));
          if (describeOnly) return finish(undefined, { columns, rows: [] });
          const rows: unknown[][] = [];
          executed
            .streamRows({ start: 0, end: limits.maxRows })
            .on('data', (row: unknown) => rows.push(row as unknown[]))
            .on('error', (streamError: Error) => finish(streamError))
            .on('end', () => {
              // one row past the cap tells "exactly maxRows" from "truncated"
              const total = executed.getNumRows();
              if (total > rows.length) rows.push([]);
              finish(undefined, { columns, rows });
            });
        },
      });
      const cancel = (reason: 'timeout' | 'signal') => {
        stoppedBy ??= reason;
        statementHandle.cancel(() => finish(new Error(reason)));
      };
      const onAbort = () => cancel('signal');
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => cancel('timeout'), limits.timeoutMs);
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.connection.destroy(() => resolve()));
  }
}

export async function openSnowflakeWarehouse(options: SnowflakeWarehouseOptions): Promise<Warehouse> {
  const { target } = options;
  const parsed = new URL(target.connectionString);
  const privateKeyPath = parsed.searchParams.get('private_key_file') ?? undefined;
  snowflake.configure({ logLevel: 'OFF' });
  const connection = snowflake.createConnection({
    account: target.account,
    username: target.user,
    ...(privateKeyPath === undefined
      ? { password: decodeURIComponent(parsed.password) }
      : { authenticator: 'SNOWFLAKE_JWT', privateKeyPath }),
    database: target.database,
    schema: target.schema,
    ...(target.warehouse === undefined ? {} : { warehouse: target.warehouse }),
    ...(target.role === undefined ? {} : { role: target.role }),
    application: 'assay',
  });
  try {
    await new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve())));
    const warehouse = new SnowflakeWarehouse(options.description, connection, options, options.limits);
    await warehouse.initialise();
    return warehouse;
  } catch (error) {
    connection.destroy(() => undefined);
    throw new WarehouseError(`could not connect to ${options.description}: ${describeError(error)}`, { cause: error });
  }
}
