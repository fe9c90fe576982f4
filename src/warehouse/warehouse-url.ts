/** Parses a warehouse URL into a connection target; the only place the accepted URL forms live. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../errors/index.js';

export const ACCEPTED_WAREHOUSE_URL_FORMS = [
  'duckdb:path/to/file.duckdb',
  'duckdb::memory:',
  'postgres://user:password@host:5432/database (or postgresql://…; ?host=/socket/dir for a unix socket)',
] as const;

export type WarehouseTarget =
  | { engine: 'duckdb' /** Absolute file path, or `:memory:`. */; path: string }
  | {
      engine: 'postgres';
      /** The URL as given, passed to the driver (it understands every libpq URL form). */
      connectionString: string;
      host: string;
      port: number;
      database: string;
      user: string;
    };

const DUCKDB_MEMORY = ':memory:';
const POSTGRES_DEFAULT_PORT = 5432;

function invalid(url: string, why: string): ConfigError {
  return new ConfigError(
    `warehouse URL ${JSON.stringify(describeUnparsed(url))} is not valid: ${why}. Accepted forms: ${ACCEPTED_WAREHOUSE_URL_FORMS.join('; ')}`,
  );
}

/** Masks anything that looks like a password in a URL we could not parse, for error messages. */
function describeUnparsed(url: string): string {
  return url.replace(/(\/\/[^/:@]*:)[^@/]*@/, '$1***@').replace(/(password=)[^&]*/gi, '$1***');
}

export function parseWarehouseUrl(url: string): WarehouseTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith('duckdb:')) {
    const location = trimmed.slice('duckdb:'.length);
    if (location === DUCKDB_MEMORY) return { engine: 'duckdb', path: DUCKDB_MEMORY };
    if (location.length === 0) throw invalid(url, 'the DuckDB file path is empty');
    return { engine: 'duckdb', path: path.resolve(location) };
  }
  if (trimmed.startsWith('postgres://') || trimmed.startsWith('postgresql://')) {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      throw invalid(url, 'it is not a well-formed URL');
    }
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    if (database.length === 0) throw invalid(url, 'the database name (the URL path) is missing');
    const socketHost = parsed.searchParams.get('host');
    const host = socketHost ?? decodeURIComponent(parsed.hostname);
    if (host.length === 0) throw invalid(url, 'the host is missing');
    const port = parsed.port.length > 0 ? Number(parsed.port) : Number(parsed.searchParams.get('port') ?? POSTGRES_DEFAULT_PORT);
    return {
      engine: 'postgres',
      connectionString: trimmed,
      host,
      port,
      database,
      user: decodeURIComponent(parsed.username),
    };
  }
  throw invalid(url, 'unknown scheme');
}

/** A printable description: never contains a password. */
export function describeWarehouseTarget(target: WarehouseTarget): string {
  if (target.engine === 'duckdb') return `duckdb:${target.path}`;
  const user = target.user.length > 0 ? `${target.user}@` : '';
  const hostPart = target.host.startsWith('/') ? `localhost:${target.port}?host=${target.host}` : `${target.host}:${target.port}`;
  return `postgres://${user}${hostPart}/${target.database}`;
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
 * SHA-256 over the connection identity (engine, file or host/port/database) plus `extra`
 * (attached files, tenant filter …), credentials excluded: rotating a password or the login
 * must not invalidate the schema cache, and the key must be safe to log.
 */
export function warehouseConfigHash(url: string, extra?: unknown): string {
  const target = parseWarehouseUrl(url);
  const identity =
    target.engine === 'duckdb'
      ? { engine: target.engine, path: target.path }
      : { engine: target.engine, host: target.host, port: target.port, database: target.database };
  return createHash('sha256')
    .update(stableJson({ identity, extra: extra ?? null }))
    .digest('hex');
}
