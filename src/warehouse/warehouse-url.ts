/** Parses a warehouse URL into a connection target; the only place the accepted URL forms live. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../errors/index.js';

export const ACCEPTED_WAREHOUSE_URL_FORMS = [
  'duckdb:path/to/file.duckdb',
  'duckdb::memory:',
  'duckdb:events.csv or file:data/*.csv (CSV, TSV, Parquet or JSON files loaded as tables; a glob loads every match)',
  'postgres://user:password@host:5432/database (or postgresql://…; ?host=/socket/dir for a unix socket)',
  'mysql://user:password@host:3306/database (MySQL or MariaDB; mariadb://… too)',
  'clickhouse://user:password@host:8123/database (HTTP; clickhouse+https://…:8443/… for TLS)',
  'bigquery://project/dataset (?location=EU; credentials from the Google default chain or secrets.warehouse_password)',
  'snowflake://user:password@account/database/schema?warehouse=WH&role=ROLE',
] as const;

/** A server reached by host, port and database, with a login (PostgreSQL, MySQL/MariaDB, ClickHouse). */
interface ServerTarget {
  /** The URL as given, credentials included: for the driver only, never printed. */
  connectionString: string;
  host: string;
  port: number;
  database: string;
  user: string;
}

export type WarehouseTarget =
  | {
      engine: 'duckdb';
      /** Absolute file path, or `:memory:`. */
      path: string;
      /** Absolute file paths or glob patterns loaded as tables (`duckdb:events.csv`, `file:data/*.csv`). */
      files?: string[];
    }
  | ({ engine: 'postgres' } & ServerTarget)
  | ({ engine: 'mysql' } & ServerTarget)
  | ({ engine: 'clickhouse'; protocol: 'http' | 'https' } & ServerTarget)
  | {
      engine: 'bigquery';
      project: string;
      /** The datasets whose tables are the catalog (the first is the default for unqualified names). */
      datasets: string[];
      location?: string;
      /** A service-account key (JSON), when the URL carries one (from a project's secret); else the Google default credentials. */
      credentialsJson?: string;
    }
  | {
      engine: 'snowflake';
      connectionString: string;
      account: string;
      database: string;
      schema: string;
      user: string;
      warehouse?: string;
      role?: string;
    };

export type WarehouseEngine = WarehouseTarget['engine'];

const DUCKDB_MEMORY = ':memory:';
const DEFAULT_PORTS = { postgres: 5432, mysql: 3306, clickhouse_http: 8123, clickhouse_https: 8443 } as const;
/** File names DuckDB reads as tables: CSV/TSV/text, Parquet, JSON (optionally compressed), or a glob. */
const DATA_FILE = /\.(csv|tsv|txt|parquet|json|jsonl|ndjson)(\.gz|\.zst)?$|[*?[]/i;

function invalid(url: string, why: string): ConfigError {
  return new ConfigError(
    `warehouse URL ${JSON.stringify(describeUnparsed(url))} is not valid: ${why}. Accepted forms: ${ACCEPTED_WAREHOUSE_URL_FORMS.join('; ')}`,
  );
}

/** Masks anything that looks like a password in a URL we could not parse, for error messages. */
function describeUnparsed(url: string): string {
  return url.replace(/(\/\/[^/:@]*:)[^@/]*@/, '$1***@').replace(/(password=)[^&]*/gi, '$1***');
}

function parseUrl(url: string, trimmed: string): URL {
  try {
    return new URL(trimmed);
  } catch {
    throw invalid(url, 'it is not a well-formed URL');
  }
}

function serverTarget(url: string, trimmed: string, defaultPort: number): ServerTarget {
  const parsed = parseUrl(url, trimmed);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '').replace(/\/$/, ''));
  if (database.length === 0) throw invalid(url, 'the database name (the URL path) is missing');
  const socketHost = parsed.searchParams.get('host');
  const host = socketHost ?? decodeURIComponent(parsed.hostname);
  if (host.length === 0) throw invalid(url, 'the host is missing');
  const port = parsed.port.length > 0 ? Number(parsed.port) : Number(parsed.searchParams.get('port') ?? defaultPort);
  return { connectionString: trimmed, host, port, database, user: decodeURIComponent(parsed.username) };
}

function filesTarget(url: string, location: string): WarehouseTarget {
  if (location.length === 0) throw invalid(url, 'the file path is empty');
  return { engine: 'duckdb', path: DUCKDB_MEMORY, files: [path.resolve(location)] };
}

export function parseWarehouseUrl(url: string): WarehouseTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith('duckdb:')) {
    const location = trimmed.slice('duckdb:'.length);
    if (location === DUCKDB_MEMORY) return { engine: 'duckdb', path: DUCKDB_MEMORY };
    if (location.length === 0) throw invalid(url, 'the DuckDB file path is empty');
    if (DATA_FILE.test(location)) return filesTarget(url, location);
    return { engine: 'duckdb', path: path.resolve(location) };
  }
  if (trimmed.startsWith('file:')) {
    // file:data/x.csv (relative), file:/abs/x.csv and file:///abs/x.csv
    const location = trimmed.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (location.length > 0 && !DATA_FILE.test(location))
      throw invalid(url, 'a file URL names CSV, TSV, Parquet or JSON files (e.g. file:data/*.csv); use duckdb:FILE for a DuckDB database');
    return filesTarget(url, location);
  }
  if (trimmed.startsWith('postgres://') || trimmed.startsWith('postgresql://')) {
    return { engine: 'postgres', ...serverTarget(url, trimmed, DEFAULT_PORTS.postgres) };
  }
  if (trimmed.startsWith('mysql://') || trimmed.startsWith('mariadb://')) {
    const normalised = trimmed.replace(/^mariadb:/, 'mysql:');
    return { engine: 'mysql', ...serverTarget(url, normalised, DEFAULT_PORTS.mysql) };
  }
  const clickhouse = /^clickhouse(?:\+(https?))?:\/\//.exec(trimmed);
  if (clickhouse) {
    const protocol = clickhouse[1] === 'https' ? 'https' : 'http';
    const target = serverTarget(url, trimmed, protocol === 'https' ? DEFAULT_PORTS.clickhouse_https : DEFAULT_PORTS.clickhouse_http);
    return { engine: 'clickhouse', protocol, ...target };
  }
  if (trimmed.startsWith('bigquery://')) {
    const parsed = parseUrl(url, trimmed);
    const project = decodeURIComponent(parsed.hostname);
    const datasets = decodeURIComponent(parsed.pathname.replace(/^\//, ''))
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name.length > 0);
    if (project.length === 0) throw invalid(url, 'the project (bigquery://PROJECT/dataset) is missing');
    if (datasets.length === 0) throw invalid(url, 'the dataset (bigquery://project/DATASET) is missing');
    const location = parsed.searchParams.get('location') ?? undefined;
    const credentialsJson = parsed.password.length > 0 ? decodeURIComponent(parsed.password) : undefined;
    return {
      engine: 'bigquery',
      project,
      datasets,
      ...(location === undefined ? {} : { location }),
      ...(credentialsJson === undefined ? {} : { credentialsJson }),
    };
  }
  if (trimmed.startsWith('snowflake://')) {
    const parsed = parseUrl(url, trimmed);
    const account = decodeURIComponent(parsed.hostname);
    const [database = '', schema = ''] = parsed.pathname.replace(/^\//, '').split('/').map(decodeURIComponent);
    if (account.length === 0) throw invalid(url, 'the account (snowflake://user@ACCOUNT/db/schema) is missing');
    if (database.length === 0 || schema.length === 0)
      throw invalid(url, 'the database and schema (snowflake://user@account/DB/SCHEMA) are missing');
    const user = decodeURIComponent(parsed.username);
    if (user.length === 0) throw invalid(url, 'the user (snowflake://USER@account/db/schema) is missing');
    const warehouse = parsed.searchParams.get('warehouse') ?? undefined;
    const role = parsed.searchParams.get('role') ?? undefined;
    return {
      engine: 'snowflake',
      connectionString: trimmed,
      account,
      database,
      schema,
      user,
      ...(warehouse === undefined ? {} : { warehouse }),
      ...(role === undefined ? {} : { role }),
    };
  }
  throw invalid(url, 'unknown scheme');
}

/** A printable description: never contains a password or a key. */
export function describeWarehouseTarget(target: WarehouseTarget): string {
  switch (target.engine) {
    case 'duckdb':
      if (target.files !== undefined) return `files:${target.files.join(',')}`;
      return target.path === DUCKDB_MEMORY ? 'duckdb::memory:' : `duckdb:${target.path}`;
    case 'bigquery':
      return `bigquery://${target.project}/${target.datasets.join(',')}`;
    case 'snowflake':
      return `snowflake://${target.user}@${target.account}/${target.database}/${target.schema}${target.warehouse ? `?warehouse=${target.warehouse}` : ''}`;
    default: {
      const user = target.user.length > 0 ? `${target.user}@` : '';
      const hostPart = target.host.startsWith('/') ? `localhost:${target.port}?host=${target.host}` : `${target.host}:${target.port}`;
      const scheme = target.engine === 'clickhouse' ? (target.protocol === 'https' ? 'clickhouse+https' : 'clickhouse') : target.engine;
      return `${scheme}://${user}${hostPart}/${target.database}`;
    }
  }
}

/** What names one warehouse, credentials excluded. */
function identityOf(target: WarehouseTarget): Record<string, unknown> {
  switch (target.engine) {
    case 'duckdb':
      return { engine: target.engine, path: target.path, files: target.files };
    case 'bigquery':
      return { engine: target.engine, project: target.project, datasets: target.datasets };
    case 'snowflake':
      return { engine: target.engine, account: target.account.toLowerCase(), database: target.database, schema: target.schema };
    default:
      return { engine: target.engine, host: target.host, port: target.port, database: target.database };
  }
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${stableJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 over the connection identity (engine, file or host/port/database, project and datasets …)
 * plus `extra` (attached files, tenant filter …), credentials excluded: rotating a password or the
 * login must not invalidate the schema cache, and the key must be safe to log.
 */
export function warehouseConfigHash(url: string, extra?: unknown): string {
  return createHash('sha256')
    .update(stableJson({ identity: identityOf(parseWarehouseUrl(url)), extra: extra ?? null }))
    .digest('hex');
}
