/**
 * ClickHouse adapter (the official `@clickhouse/client`, over HTTP). Written for current ClickHouse
 * and tested live against Debian's 18.16.
 *
 * Engine layer: every agent statement is sent with `readonly=1` (no writes, no DDL, no settings
 * changes, no table functions) when the user's profile allows it, and always with
 * `max_execution_time`, `max_result_rows` (+ `result_overflow_mode=break`), and the memory and
 * thread limits from config, and `join_use_nulls=1` so an outer join's missing side is NULL as on every
 * other engine (ClickHouse's default fills in zeros and empty strings). A profile with `readonly=2` (reads and settings only) cannot lower
 * itself to 1 on older servers (18.16 answers "Setting 'readonly' cannot be overrided"): the adapter
 * notices once and keeps to the profile's read-only mode. A profile with `readonly=1` would refuse
 * the limits themselves, so it is refused at open with what to change.
 *
 * Servers before 20.11 read `WITH name AS (subquery)` as a syntax error (CTE subqueries came in 20.10,
 * ClickHouse PR #14771; a CTE reading an earlier one in 20.11, PR #16575): there every statement's
 * CTEs are written out as derived tables before it is sent (../sql-tree/tree-cte-inline.ts). Newer
 * servers get the statement as written.
 *
 * A statement stopped by the caller or by the adapter's own timer is killed on the server
 * (`KILL QUERY WHERE query_id = …`): an old server keeps running a query whose HTTP client left.
 */
import { randomUUID } from 'node:crypto';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
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
import { openingError } from '../login-refusal.js';
import { inferColumnCategory } from '../column-category.js';
import { SAMPLE_ROW_COUNT, type WarehouseResources } from '../limits.js';
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
import { clickhouseSyntax } from '../sql-syntax/clickhouse.js';
import { inlineCtes } from '../sql-tree/tree-cte-inline.js';
import { guardTreeSql, type TreeAllowedSql } from '../sql-tree/tree-guard.js';
import { applyTreeTenantFilter, filteredRelationFor, type TreeTenantContext } from '../sql-tree/tree-tenant-rewrite.js';
import { relationKey, type TenantFilter } from '../tenant-filter.js';
import type { WarehouseTarget } from '../warehouse-url.js';
import { clickhouseCell, unwrapClickhouseType } from './clickhouse-cells.js';
import { CLICKHOUSE_GUARD_RULES } from './clickhouse-sql-guard.js';

type ClickhouseTarget = Extract<WarehouseTarget, { engine: 'clickhouse' }>;

export interface ClickhouseWarehouseOptions {
  target: ClickhouseTarget;
  description: string;
  limits: WarehouseLimits;
  tenantFilter?: TenantFilter | undefined;
  resources?: WarehouseResources | undefined;
}

const INTERNAL_TABLE_PREFIX = '_assay';
const SAMPLE_CONCURRENCY = 4;
/** TIMEOUT_EXCEEDED, QUERY_WAS_CANCELLED; READONLY (a setting refused in read-only mode). */
const TIMEOUT_EXCEEDED = '159';
const QUERY_WAS_CANCELLED = '394';
const READONLY = '164';
/** The first ClickHouse release that runs CTE subqueries that read earlier CTEs (see the header). */
const CTE_SUBQUERIES_SINCE: readonly [number, number] = [20, 11];

/** Whether a `version()` answer (`18.16.1`, `24.3.2.23`) is older than `[major, minor]`; an unreadable version counts as current. */
export function clickhouseOlderThan(version: string, [major, minor]: readonly [number, number]): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version.trim());
  if (match === null) return false;
  const [serverMajor, serverMinor] = [Number(match[1]), Number(match[2])];
  return serverMajor < major || (serverMajor === major && serverMinor < minor);
}

type Limits = Pick<WarehouseLimits, 'maxRows' | 'timeoutMs'>;

interface CompactJson {
  meta: Array<{ name: string; type: string }>;
  data: unknown[][];
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The server's answer when a `readonly=2` profile may not set `readonly=1` (ClickHouse 18.16). */
function refusesReadonlySetting(error: unknown): boolean {
  const text = describeError(error);
  return text.includes(`Code: ${READONLY}`) && /'readonly'.*(overrid|modif)|(overrid|modif).*'readonly'/i.test(text);
}

class ClickhouseWarehouse implements Warehouse {
  readonly dialect = 'clickhouse' as const;
  private tenant: TreeTenantContext | undefined;
  /** Whether `readonly=1` may be sent (false when the profile is already `readonly=2` and the server will not lower it). */
  private sendReadonly = true;
  /** `system.tables.total_rows` exists (ClickHouse 20.x and later); else row counts come from `system.parts`. */
  private hasTotalRows = false;
  /** The server reads no CTE subqueries (before 20.11): statements are sent with their CTEs inlined. */
  private inlinesCtes = false;
  private readonly database: string;

  constructor(
    readonly description: string,
    private readonly client: ClickHouseClient,
    private readonly options: ClickhouseWarehouseOptions,
    readonly limits: WarehouseLimits,
  ) {
    this.database = options.target.database;
  }

  async initialise(): Promise<void> {
    const readonly = await this.internalRows(`SELECT value FROM system.settings WHERE name = 'readonly'`);
    const level = Number(readonly[0]?.[0] ?? 0);
    if (level === 1) {
      throw new ConfigError(
        `the ClickHouse user ${this.options.target.user || 'default'} has readonly=1, which forbids the per-query limits Assay sets (max_execution_time, max_result_rows); give it a profile with readonly=2, or on ClickHouse 20.x and later a user with only SELECT grants (docs/warehouses.md)`,
      );
    }
    const [version] = await this.internalRows('SELECT version()');
    this.inlinesCtes = clickhouseOlderThan(String(version?.[0] ?? ''), CTE_SUBQUERIES_SINCE);
    const columns = await this.internalRows(
      `SELECT name FROM system.columns WHERE database = 'system' AND table = 'tables' AND name = 'total_rows'`,
    );
    this.hasTotalRows = columns.length > 0;
    if (this.options.tenantFilter !== undefined) {
      const filtered = await this.internalRows(
        `SELECT DISTINCT table FROM system.columns WHERE database = ${clickhouseSyntax.string(this.database)} AND lower(name) = lower(${clickhouseSyntax.string(this.options.tenantFilter.field)})`,
      );
      this.tenant = {
        filter: this.options.tenantFilter,
        filtered: new Set(filtered.map((row) => relationKey(this.database, String(row[0])))),
        defaultSchema: this.database,
        syntax: clickhouseSyntax,
        rules: CLICKHOUSE_GUARD_RULES,
      };
    }
  }

  /** The settings every statement carries (layers 2 and 3). */
  private settings(limits: Limits): ClickHouseSettings {
    const resources = this.options.resources;
    return {
      max_execution_time: Math.max(1, Math.ceil(limits.timeoutMs / 1000)),
      max_result_rows: String(limits.maxRows + 1),
      result_overflow_mode: 'break',
      // an outer join's missing side is NULL, as in standard SQL (ClickHouse's default fills in 0 and '')
      join_use_nulls: 1,
      ...(resources?.memoryLimitBytes === undefined ? {} : { max_memory_usage: String(Math.floor(resources.memoryLimitBytes)) }),
      ...(resources?.threads === undefined ? {} : { max_threads: Math.max(1, Math.floor(resources.threads)) }),
      ...(this.sendReadonly ? { readonly: '1' } : {}),
    };
  }

  private isFiltered(table: TableRef): boolean {
    return this.tenant?.filtered.has(relationKey(table.schema, table.name)) === true;
  }

  private sourceSql(table: TableRef): string {
    if (this.tenant !== undefined && this.isFiltered(table)) {
      return `${filteredRelationFor(clickhouseSyntax, table, this.tenant.filter)} AS ${clickhouseSyntax.identifier(table.name)}`;
    }
    return clickhouseSyntax.table(table);
  }

  /** The adapter's own catalog SQL (never agent text). */
  private async internalRows(sql: string): Promise<unknown[][]> {
    return (await this.execute(sql, { maxRows: 1_000_000, timeoutMs: this.limits.timeoutMs })).raw;
  }

  async listTables(): Promise<TableRef[]> {
    const rows = await this.internalRows(
      `SELECT name FROM system.tables WHERE database = ${clickhouseSyntax.string(this.database)} AND NOT is_temporary ORDER BY name`,
    );
    return rows
      .map((row) => String(row[0]))
      .filter((name) => !name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX))
      .map((name) => ({ schema: this.database, name }));
  }

  async describeCatalog(): Promise<TableDescription[]> {
    return this.readCatalog(undefined);
  }

  /** Two or three `system.*` queries for the whole database (or one table). */
  private async readCatalog(only: string | undefined): Promise<TableDescription[]> {
    const database = clickhouseSyntax.string(this.database);
    const tableCondition = only === undefined ? '' : ` AND name = ${clickhouseSyntax.string(only)}`;
    const columnCondition = only === undefined ? '' : ` AND table = ${clickhouseSyntax.string(only)}`;
    const [tables, columns, counts] = await Promise.all([
      this.internalRows(
        `SELECT name${this.hasTotalRows ? ', total_rows' : ''} FROM system.tables WHERE database = ${database} AND NOT is_temporary${tableCondition}`,
      ),
      this.internalRows(`SELECT table, name, type, is_in_primary_key FROM system.columns WHERE database = ${database}${columnCondition}`),
      this.hasTotalRows
        ? Promise.resolve([] as unknown[][])
        : this.internalRows(
            `SELECT table, sum(rows) FROM system.parts WHERE active AND database = ${database}${columnCondition} GROUP BY table`,
          ),
    ]);
    const partRows = new Map(counts.map((row) => [String(row[0]), Number(row[1])]));
    const columnsByTable = new Map<string, TableDescription['columns']>();
    for (const row of columns) {
      const table = String(row[0]);
      const name = String(row[1]);
      const { type, nullable } = unwrapClickhouseType(String(row[2]));
      const list = columnsByTable.get(table) ?? [];
      list.push({ name, type, nullable, category: inferColumnCategory(name, type, { primaryKey: Number(row[3]) === 1 }) });
      columnsByTable.set(table, list);
    }
    const described: TableDescription[] = [];
    for (const row of tables) {
      const name = String(row[0]);
      const tableColumns = columnsByTable.get(name);
      if (tableColumns === undefined || name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) continue;
      const total = this.hasTotalRows ? row[1] : partRows.get(name);
      described.push({
        schema: this.database,
        name,
        qualified: `${this.database}.${name}`,
        columns: tableColumns,
        rowCount: total === null || total === undefined ? -1 : Number(total),
      });
    }
    for (const table of described) if (this.isFiltered(table)) table.rowCount = await this.exactCount(table);
    return described.sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
  }

  private async exactCount(table: TableRef): Promise<number> {
    const result = await this.execute(`SELECT count() FROM ${this.sourceSql(table)}`, { maxRows: 1, timeoutMs: this.limits.timeoutMs });
    return Number(result.raw[0]?.[0] ?? -1);
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
        ).result.rows;
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
    if (table.schema !== this.database || table.name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) throw notFound();
    const [described] = await this.readCatalog(table.name);
    if (described === undefined) throw notFound();
    const [samples] = await this.sampleTables([described]);
    return { ...described, samples: samples ?? [] };
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const allowed = (await assertSafeSql(sql, 'clickhouse')) as TreeAllowedSql;
    // the tenant filter first: it reads CTE names as written (and refuses one that shadows a filtered table)
    const filtered = this.tenant === undefined ? allowed.statement : await applyTreeTenantFilter(allowed, this.tenant);
    const statement = this.inlinesCtes ? await this.withCtesInlined(filtered) : filtered;
    const limits = { maxRows: options.maxRows ?? this.limits.maxRows, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs };
    return (await this.execute(statement, limits, options.signal)).result;
  }

  /**
   * The statement with its CTEs as derived tables. The rewrite only moves text the guard has passed
   * (each CTE's subquery to where it is read); it is still guarded again, so what runs is always a
   * statement the guard allowed as it stands. One that cannot be inlined (a recursive CTE) goes as it
   * is, and the server's error stands.
   */
  private async withCtesInlined(statement: string): Promise<string> {
    const inlined = await inlineCtes(statement, CLICKHOUSE_GUARD_RULES.parser, clickhouseSyntax.identifier);
    if (!inlined.inlined) return statement;
    const verdict = await guardTreeSql(inlined.statement, CLICKHOUSE_GUARD_RULES);
    if (!verdict.allowed) throw new UnsafeSqlError(`the statement's CTEs could not be inlined for this server: ${verdict.reason}`);
    return verdict.statement;
  }

  private async kill(queryId: string): Promise<void> {
    await this.client.command({ query: `KILL QUERY WHERE query_id = ${clickhouseSyntax.string(queryId)} ASYNC` }).catch(() => undefined);
  }

  private async execute(statement: string, limits: Limits, signal?: AbortSignal): Promise<{ result: QueryResult; raw: unknown[][] }> {
    if (signal?.aborted) throw new CancelledError('query cancelled before it started');
    try {
      return await this.executeOnce(statement, limits, signal);
    } catch (error) {
      // an old server will not let a readonly=2 profile lower itself to readonly=1: keep to the profile's mode
      if (this.sendReadonly && refusesReadonlySetting(error)) {
        this.sendReadonly = false;
        return this.executeOnce(statement, limits, signal);
      }
      throw error;
    }
  }

  private async executeOnce(
    statement: string,
    limits: Limits,
    signal: AbortSignal | undefined,
  ): Promise<{ result: QueryResult; raw: unknown[][] }> {
    const started = performance.now();
    const queryId = randomUUID();
    const controller = new AbortController();
    let stoppedBy: 'timeout' | 'signal' | undefined;
    const stop = (reason: 'timeout' | 'signal') => {
      if (stoppedBy !== undefined) return;
      stoppedBy = reason;
      controller.abort();
      void this.kill(queryId);
    };
    const onAbort = () => stop('signal');
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
    try {
      const resultSet = await this.client.query({
        query: statement,
        format: 'JSONCompact',
        query_id: queryId,
        abort_signal: controller.signal,
        clickhouse_settings: this.settings(limits),
      });
      const body = (await resultSet.json()) as CompactJson;
      const names = deduplicateColumnNames(body.meta.map((column) => column.name));
      const truncated = body.data.length > limits.maxRows;
      const kept = body.data.slice(0, limits.maxRows);
      const rows = kept.map((values) => {
        const row: Row = {};
        body.meta.forEach((column, index) => {
          row[names[index] ?? column.name] = clickhouseCell(values[index], column.type);
        });
        return row;
      });
      return {
        raw: kept,
        result: {
          columns: body.meta.map((column, index) => ({ name: names[index] ?? column.name, type: column.type })),
          rows,
          rowCount: rows.length,
          truncated,
          elapsedMs: Math.round(performance.now() - started),
        },
      };
    } catch (error) {
      const code = errorCode(error);
      if (stoppedBy === 'signal') throw new CancelledError('query cancelled', { cause: error });
      if (stoppedBy === 'timeout' || code === TIMEOUT_EXCEEDED || code === QUERY_WAS_CANCELLED) {
        throw new QueryTimeoutError(limits.timeoutMs, { cause: error });
      }
      throw new WarehouseError(`ClickHouse: ${describeError(error).split('\n')[0]}`, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

export async function openClickhouseWarehouse(options: ClickhouseWarehouseOptions): Promise<Warehouse> {
  const { target } = options;
  const parsed = new URL(target.connectionString);
  const client = createClient({
    url: `${target.protocol}://${parsed.hostname}:${target.port}`,
    username: target.user.length > 0 ? target.user : 'default',
    password: decodeURIComponent(parsed.password),
    database: target.database,
    application: 'assay',
    request_timeout: options.limits.timeoutMs + 10_000,
    log: { level: ClickHouseLogLevel.OFF },
  });
  const warehouse = new ClickhouseWarehouse(options.description, client, options, options.limits);
  try {
    await warehouse.initialise();
    return warehouse;
  } catch (error) {
    await client.close().catch(() => undefined);
    if (error instanceof ConfigError) throw error;
    throw openingError('clickhouse', options.description, error);
  }
}
