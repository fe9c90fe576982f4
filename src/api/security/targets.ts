/**
 * Where an API caller may make the server connect or read. A warehouse URL, an attached file or a
 * model base URL from a request is checked against the operator's allow-list (config `api.allow`)
 * before anything opens it: DuckDB files only under configured roots (compared after realpath, so
 * `..` and symlinks cannot escape), PostgreSQL hosts and ports from a list, LLM and embedder base
 * URLs on listed hosts. The CLI is run by the operator and is not checked.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { AssayConfig } from '../../config/index.js';
import { AssayError, ValidationError } from '../../errors/index.js';
import { parseWarehouseUrl } from '../../warehouse/warehouse-url.js';

export type TargetAllowList = AssayConfig['api']['allow'];

/** libpq parameters a caller may set; others (`host=`, `hostaddr=`, `sslrootcert=`, …) could redirect or read files. */
const SAFE_POSTGRES_PARAMS = new Set(['sslmode', 'application_name', 'connect_timeout', 'options']);
const POSTGRES_DEFAULT_PORT = 5432;

function refuse(field: string, rule: string): never {
  throw new ValidationError(`${field} is not allowed: ${rule}`, [{ path: field, message: rule }]);
}

/** The real path of `file`, or of its nearest existing parent joined with the rest (a file about to be created). */
function realPathOf(file: string): string {
  let existing = path.resolve(file);
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  return path.join(realpathSync(existing), ...rest);
}

function isInside(child: string, root: string): boolean {
  const relative = path.relative(root, child);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** A local file (DuckDB database or attached table file) must resolve under one of the roots. */
export function checkLocalFile(file: string, allow: TargetAllowList, field: string): void {
  if (allow.duckdbRoots.length === 0)
    refuse(field, 'this server allows no local files from API callers (config api.allow.duckdbRoots is empty)');
  const real = realPathOf(file);
  const roots = allow.duckdbRoots.filter((root) => existsSync(root)).map((root) => realpathSync(root));
  if (!roots.some((root) => isInside(real, root)))
    refuse(field, 'the file is outside the allowed directories (config api.allow.duckdbRoots)');
}

function hostAllowed(host: string, port: number, allowed: readonly string[], defaultPort: number): boolean {
  const normalised = host.toLowerCase().replace(/^\[|\]$/g, '');
  return allowed.some((entry) => {
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim().toLowerCase());
    if (!match) return false;
    const entryHost = match[1]!.replace(/^\[|\]$/g, '');
    const entryPort = match[2] === undefined ? defaultPort : Number(match[2]);
    return entryHost === normalised && entryPort === port;
  });
}

export function checkWarehouseUrl(url: string, allow: TargetAllowList, field = 'warehouse.url'): void {
  let target: ReturnType<typeof parseWarehouseUrl>;
  try {
    target = parseWarehouseUrl(url);
  } catch (error) {
    if (error instanceof AssayError) refuse(field, 'not a warehouse URL this server understands (see the accepted forms in the README)');
    throw error;
  }
  switch (target.engine) {
    case 'duckdb':
      if (target.path !== ':memory:') checkLocalFile(target.path, allow, field);
      // a glob is checked by its directory: every file it can match lies below it
      for (const file of target.files ?? []) checkLocalFile(globBase(file), allow, field);
      return;
    case 'postgres': {
      const parsed = new URL(target.connectionString);
      for (const key of parsed.searchParams.keys()) {
        if (!SAFE_POSTGRES_PARAMS.has(key)) refuse(field, `the connection parameter "${key}" is not allowed from API callers`);
      }
      if (parsed.hostname.includes(',')) refuse(field, 'one host per warehouse URL');
      if (!hostAllowed(target.host, target.port, allow.postgresHosts, POSTGRES_DEFAULT_PORT)) {
        refuse(field, `host ${target.host}:${target.port} is not on the allowed list (config api.allow.postgresHosts)`);
      }
      return;
    }
    case 'mysql':
    case 'clickhouse': {
      const parsed = new URL(target.connectionString);
      // driver options in the query string could load files or redirect the connection
      if ([...parsed.searchParams.keys()].length > 0) refuse(field, 'connection parameters are not allowed from API callers');
      if (!hostAllowed(target.host, target.port, allow.warehouseHosts, target.port)) {
        refuse(field, `host ${target.host}:${target.port} is not on the allowed list (config api.allow.warehouseHosts)`);
      }
      return;
    }
    case 'bigquery':
      if (!allow.warehouseHosts.includes(`bigquery:${target.project}`))
        refuse(
          field,
          `BigQuery project ${target.project} is not on the allowed list (config api.allow.warehouseHosts: "bigquery:${target.project}")`,
        );
      return;
    case 'snowflake':
      if (!allow.warehouseHosts.map((entry) => entry.toLowerCase()).includes(`snowflake:${target.account.toLowerCase()}`))
        refuse(
          field,
          `Snowflake account ${target.account} is not on the allowed list (config api.allow.warehouseHosts: "snowflake:${target.account}")`,
        );
      return;
  }
}

/** The directory part of a path before its first glob character. */
function globBase(file: string): string {
  const wildcard = file.search(/[*?[]/);
  return wildcard < 0 ? file : path.dirname(file.slice(0, wildcard + 1));
}

/** `openai-compatible:URL#model` must point at a listed host; the named providers' endpoints are the operator's. */
export function checkModelSpec(spec: string, allow: TargetAllowList, field: string): void {
  const prefix = 'openai-compatible:';
  if (!spec.startsWith(prefix)) return;
  const base = spec.slice(prefix.length).split('#')[0] ?? '';
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    refuse(field, 'the base URL is not a well-formed URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse(field, 'the base URL must be http(s)');
  if (url.username || url.password) refuse(field, 'credentials belong in a secret reference, not in the URL');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (!hostAllowed(url.hostname, port, allow.modelHosts, port)) {
    refuse(field, `host ${url.hostname}:${port} is not on the allowed list (config api.allow.modelHosts)`);
  }
}
