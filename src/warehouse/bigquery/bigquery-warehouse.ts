/**
 * BigQuery adapter (`@google-cloud/bigquery`). Not reachable from the build machines: its contract
 * suite runs only when BIGQUERY_TEST_URL and Google credentials are set.
 *
 * Engine layer: every agent statement is first sent as a dry run, and runs only if BigQuery reports
 * its statement type as SELECT (a script, DML, DDL or EXPORT DATA is refused before anything runs);
 * then it runs with `maximumBytesBilled` (so a scan larger than allowed fails instead of billing),
 * `jobTimeoutMs`, and a row cap on what is fetched. Grant the service account `roles/bigquery.dataViewer`
 * on the datasets and `roles/bigquery.jobUser` on the project, nothing else (docs/warehouses.md).
 * Sample rows come from `tabledata.list`, which bills nothing; the catalog from the dataset's
 * INFORMATION_SCHEMA.COLUMNS and `__TABLES__`: two queries per dataset.
 */
import { BigQuery, type Job } from '@google-cloud/bigquery';
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
import { bigquerySyntax } from '../sql-syntax/bigquery.js';
import type { TreeAllowedSql } from '../sql-tree/tree-guard.js';
import { applyTreeTenantFilter, filteredRelationFor, type TreeTenantContext } from '../sql-tree/tree-tenant-rewrite.js';
import { relationKey, type TenantFilter } from '../tenant-filter.js';
import type { WarehouseTarget } from '../warehouse-url.js';
import { bigqueryCell, type BigqueryField } from './bigquery-cells.js';
import { BIGQUERY_GUARD_RULES } from './bigquery-sql-guard.js';

type BigqueryTarget = Extract<WarehouseTarget, { engine: 'bigquery' }>;

export interface BigqueryWarehouseOptions {
  target: BigqueryTarget;
  description: string;
  limits: WarehouseLimits;
  tenantFilter?: TenantFilter | undefined;
  /** Bytes one statement may bill. @defaultValue 10 GiB */
  maximumBytesBilled?: number;
}

/** 10 GiB: a scan of a large table fails with "bytes billed exceeded" instead of costing more than a few cents. */
export const DEFAULT_MAXIMUM_BYTES_BILLED = 10 * 1024 ** 3;
const INTERNAL_TABLE_PREFIX = '_assay';

/** The statement type the dry run must report. */
export function checkDryRunStatementType(statementType: string | undefined): void {
  if (statementType !== 'SELECT') {
    throw new UnsafeSqlError(
      `only a single SELECT statement is allowed (BigQuery's dry run reports ${statementType ?? 'no statement type'})`,
    );
  }
}

class BigqueryWarehouse implements Warehouse {
  readonly dialect = 'bigquery' as const;
  private tenant: TreeTenantContext | undefined;
  private readonly project: string;
  private readonly datasets: string[];

  constructor(
    readonly description: string,
    private readonly client: BigQuery,
    private readonly options: BigqueryWarehouseOptions,
    readonly limits: WarehouseLimits,
  ) {
    this.project = options.target.project;
    this.datasets = options.target.datasets;
  }

  private get defaultDataset(): string {
    return this.datasets[0] ?? '';
  }

  async initialise(): Promise<void> {
    if (this.options.tenantFilter === undefined) return;
    const filtered = new Set<string>();
    for (const table of await this.describeCatalog()) {
      if (table.columns.some((column) => column.name.toLowerCase() === this.options.tenantFilter?.field.toLowerCase()))
        filtered.add(relationKey(table.schema, table.name));
    }
    this.tenant = {
      filter: this.options.tenantFilter,
      filtered,
      defaultSchema: this.defaultDataset,
      syntax: bigquerySyntax,
      rules: BIGQUERY_GUARD_RULES,
    };
  }

  private isFiltered(table: TableRef): boolean {
    return this.tenant?.filtered.has(relationKey(table.schema, table.name)) === true;
  }

  async listTables(): Promise<TableRef[]> {
    return (await this.describeCatalog()).map(({ schema, name }) => ({ schema, name }));
  }

  async describeCatalog(): Promise<TableDescription[]> {
    const described: TableDescription[] = [];
    for (const dataset of this.datasets) {
      const qualified = `${bigquerySyntax.identifier(this.project)}.${bigquerySyntax.identifier(dataset)}`;
      const [columns, counts] = await Promise.all([
        this.internalRows(
          `SELECT table_name, column_name, data_type, is_nullable FROM ${qualified}.INFORMATION_SCHEMA.COLUMNS ORDER BY table_name, ordinal_position`,
        ),
        this.internalRows(`SELECT table_id, row_count FROM ${qualified}.__TABLES__`),
      ]);
      const rowCounts = new Map(counts.map((row) => [String(row.table_id), Number(row.row_count)]));
      const byTable = new Map<string, TableDescription>();
      for (const row of columns) {
        const name = String(row.table_name);
        if (name.toLowerCase().startsWith(INTERNAL_TABLE_PREFIX)) continue;
        let table = byTable.get(name);
        if (table === undefined) {
          table = { schema: dataset, name, qualified: `${dataset}.${name}`, columns: [], rowCount: rowCounts.get(name) ?? -1 };
          byTable.set(name, table);
        }
        const columnName = String(row.column_name);
        const type = String(row.data_type);
        table.columns.push({
          name: columnName,
          type,
          nullable: row.is_nullable === 'YES',
          category: inferColumnCategory(columnName, type),
        });
      }
      described.push(...byTable.values());
    }
    for (const table of described) {
      if (this.isFiltered(table)) {
        const counted = await this.execute(
          `SELECT COUNT(*) AS n FROM ${filteredRelationFor(bigquerySyntax, table, this.requireTenant())}`,
          {
            maxRows: 1,
            timeoutMs: this.limits.timeoutMs,
          },
        );
        table.rowCount = Number(counted.rows[0]?.n ?? -1);
      }
    }
    return described.sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
  }

  private requireTenant(): TenantFilter {
    const filter = this.tenant?.filter;
    if (filter === undefined) throw new ConfigError('no tenant filter is configured');
    return filter;
  }

  /** Sample rows through `tabledata.list` (free); a tenant-filtered table through a filtered query. */
  async sampleTables(tables: readonly TableDescription[], options: SampleOptions = {}): Promise<Row[][]> {
    const results: Row[][] = [];
    for (const table of tables) {
      if (options.signal?.aborted) throw new CancelledError('sampling cancelled');
      if (this.isFiltered(table)) {
        const sql = `SELECT * FROM ${filteredRelationFor(bigquerySyntax, table, this.requireTenant())} LIMIT ${SAMPLE_ROW_COUNT}`;
        results.push((await this.execute(sql, { maxRows: SAMPLE_ROW_COUNT, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs })).rows);
        continue;
      }
      const [rows, , response] = (await this.client
        .dataset(table.schema)
        .table(table.name)
        .getRows({ maxResults: SAMPLE_ROW_COUNT, autoPaginate: false, wrapIntegers: true })) as unknown as [
        Array<Record<string, unknown>>,
        unknown,
        { schema?: { fields?: BigqueryField[] } } | undefined,
      ];
      const fields = response?.schema?.fields ?? table.columns.map((column) => ({ name: column.name, type: column.type }));
      results.push(
        rows.map((values) => Object.fromEntries(fields.map((field) => [field.name ?? '', bigqueryCell(values[field.name ?? ''], field)]))),
      );
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
    const allowed = (await assertSafeSql(sql, 'bigquery')) as TreeAllowedSql;
    const statement = this.tenant === undefined ? allowed.statement : await applyTreeTenantFilter(allowed, this.tenant);
    const limits = { maxRows: options.maxRows ?? this.limits.maxRows, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs };
    const [dryRun] = await this.client
      .createQueryJob({ ...this.jobOptions(statement, limits.timeoutMs), dryRun: true })
      .catch((error: unknown) => {
        throw new WarehouseError(`BigQuery: ${describeError(error)}`, { cause: error });
      });
    checkDryRunStatementType(dryRun.metadata?.statistics?.query?.statementType);
    return this.execute(statement, limits, options.signal);
  }

  private jobOptions(statement: string, timeoutMs: number) {
    return {
      query: statement,
      useLegacySql: false,
      defaultDataset: { projectId: this.project, datasetId: this.defaultDataset },
      ...(this.options.target.location === undefined ? {} : { location: this.options.target.location }),
      maximumBytesBilled: String(this.options.maximumBytesBilled ?? DEFAULT_MAXIMUM_BYTES_BILLED),
      jobTimeoutMs: timeoutMs,
      labels: { application: 'assay' },
    };
  }

  /** The adapter's own catalog SQL, as plain rows. */
  private async internalRows(sql: string): Promise<Array<Record<string, unknown>>> {
    const [job] = await this.client.createQueryJob(this.jobOptions(sql, this.limits.timeoutMs));
    const [rows] = await job.getQueryResults({ timeoutMs: this.limits.timeoutMs });
    return rows as Array<Record<string, unknown>>;
  }

  private async execute(statement: string, limits: { maxRows: number; timeoutMs: number }, signal?: AbortSignal): Promise<QueryResult> {
    if (signal?.aborted) throw new CancelledError('query cancelled before it started');
    const started = performance.now();
    let job: Job | undefined;
    let stoppedBy: 'timeout' | 'signal' | undefined;
    const stop = (reason: 'timeout' | 'signal') => {
      stoppedBy ??= reason;
      void job?.cancel().catch(() => undefined);
    };
    const onAbort = () => stop('signal');
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
    try {
      [job] = await this.client.createQueryJob(this.jobOptions(statement, limits.timeoutMs));
      if (stoppedBy !== undefined) stop(stoppedBy);
      const [rows, , response] = (await job.getQueryResults({
        maxResults: limits.maxRows + 1,
        autoPaginate: false,
        timeoutMs: limits.timeoutMs,
        wrapIntegers: true,
      })) as unknown as [
        Array<Record<string, unknown>>,
        unknown,
        { schema?: { fields?: BigqueryField[] }; totalRows?: string } | undefined,
      ];
      const fields = response?.schema?.fields ?? [];
      const names = deduplicateColumnNames(fields.map((field) => field.name ?? ''));
      const kept = rows.slice(0, limits.maxRows).map((values) => {
        const row: Row = {};
        fields.forEach((field, index) => {
          row[names[index] ?? field.name ?? ''] = bigqueryCell(values[field.name ?? ''], field);
        });
        return row;
      });
      const totalRows = Number(response?.totalRows ?? rows.length);
      return {
        columns: fields.map((field, index) => ({
          name: names[index] ?? '',
          type: field.mode === 'REPEATED' ? `ARRAY<${field.type}>` : String(field.type),
        })),
        rows: kept,
        rowCount: kept.length,
        truncated: rows.length > limits.maxRows || totalRows > limits.maxRows,
        elapsedMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      if (stoppedBy === 'signal') throw new CancelledError('query cancelled', { cause: error });
      if (stoppedBy === 'timeout' || /timeout|deadline/i.test(describeError(error)))
        throw new QueryTimeoutError(limits.timeoutMs, { cause: error });
      throw new WarehouseError(`BigQuery: ${describeError(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {}
}

export async function openBigqueryWarehouse(options: BigqueryWarehouseOptions): Promise<Warehouse> {
  const { target } = options;
  let credentials: Record<string, unknown> | undefined;
  if (target.credentialsJson !== undefined) {
    try {
      credentials = JSON.parse(target.credentialsJson) as Record<string, unknown>;
    } catch {
      throw new ConfigError('the BigQuery credentials (secrets.warehouse_password) are not a service-account key in JSON');
    }
  }
  const client = new BigQuery({
    projectId: target.project,
    ...(target.location === undefined ? {} : { location: target.location }),
    ...(credentials === undefined ? {} : { credentials: credentials as { client_email?: string; private_key?: string } }),
  });
  const warehouse = new BigqueryWarehouse(options.description, client, options, options.limits);
  try {
    await warehouse.initialise();
    return warehouse;
  } catch (error) {
    throw new WarehouseError(`could not open ${options.description}: ${describeError(error)}`, { cause: error });
  }
}
