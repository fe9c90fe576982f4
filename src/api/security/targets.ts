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
    if (error instanceof AssayError) refuse(field, 'not a warehouse URL this server understands (duckdb:FILE or postgres://HOST/DB)');
    throw error;
  }
  if (target.engine === 'duckdb') {
    if (target.path === ':memory:') return;
    checkLocalFile(target.path, allow, field);
    return;
  }
  const parsed = new URL(target.connectionString);
  for (const key of parsed.searchParams.keys()) {
    if (!SAFE_POSTGRES_PARAMS.has(key)) refuse(field, `the connection parameter "${key}" is not allowed from API callers`);
  }
  if (parsed.hostname.includes(',')) refuse(field, 'one host per warehouse URL');
  if (!hostAllowed(target.host, target.port, allow.postgresHosts, POSTGRES_DEFAULT_PORT)) {
    refuse(field, `host ${target.host}:${target.port} is not on the allowed list (config api.allow.postgresHosts)`);
  }
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
