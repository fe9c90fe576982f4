/**
 * A server that refuses a login will refuse every retry until someone changes a setting: these become
 * `ConfigError`s (the run fails at once, naming what to fix) instead of retryable warehouse errors. One
 * table per engine, from the servers' documented error codes; PostgreSQL's (by SQLSTATE) is beside its
 * adapter.
 */
import { ConfigError, WarehouseError, describeError } from '../errors/index.js';

const PASSWORD =
  "the password is wrong, or the user does not exist: fix the user or password in the warehouse URL (or the project's secrets.warehouse_password)";
const DATABASE = 'the database does not exist: fix the database name in the warehouse URL';
const NO_ACCESS = 'the user may not use this database: grant it SELECT there, or use another user in the warehouse URL';
const HOST = 'the server does not admit this user from this host: allow the host for the user, or use another user';

/** MySQL / MariaDB error numbers (`errno` of mysql2's errors). */
const MYSQL_FIXES: Readonly<Record<number, string>> = {
  1045: PASSWORD, // ER_ACCESS_DENIED_ERROR
  1044: NO_ACCESS, // ER_DBACCESS_DENIED_ERROR
  1049: DATABASE, // ER_BAD_DB_ERROR
  1130: HOST, // ER_HOST_NOT_PRIVILEGED
  1251: 'the server wants an authentication method this client does not offer: give the user mysql_native_password or caching_sha2_password', // ER_NOT_SUPPORTED_AUTH_MODE
};

/** ClickHouse exception codes (the `code` of the client's errors, or `Code: N` in an old server's text). */
const CLICKHOUSE_FIXES: Readonly<Record<number, string>> = {
  81: DATABASE, // UNKNOWN_DATABASE
  192: PASSWORD, // UNKNOWN_USER
  193: PASSWORD, // WRONG_PASSWORD
  194: PASSWORD, // REQUIRED_PASSWORD
  195: HOST, // IP_ADDRESS_NOT_ALLOWED
  291: NO_ACCESS, // DATABASE_ACCESS_DENIED
  516: PASSWORD, // AUTHENTICATION_FAILED
};

function numericField(error: unknown, field: 'errno' | 'code'): number | undefined {
  if (typeof error !== 'object' || error === null || !(field in error)) return undefined;
  const value = (error as Record<string, unknown>)[field];
  const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : undefined;
}

function clickhouseCode(error: unknown): number | undefined {
  const code = numericField(error, 'code');
  if (code !== undefined) return code;
  const match = /\bCode: (\d+)\b/.exec(describeError(error));
  return match ? Number(match[1]) : undefined;
}

/** A failure to open a warehouse: a `ConfigError` naming what to fix when the server refused the login, else a retryable `WarehouseError`. */
export function openingError(engine: 'mysql' | 'clickhouse', description: string, error: unknown): ConfigError | WarehouseError {
  const code = engine === 'mysql' ? numericField(error, 'errno') : clickhouseCode(error);
  const fix = code === undefined ? undefined : (engine === 'mysql' ? MYSQL_FIXES : CLICKHOUSE_FIXES)[code];
  const name = engine === 'mysql' ? 'MySQL/MariaDB' : 'ClickHouse';
  const reason = describeError(error).split('\n')[0];
  if (fix !== undefined)
    return new ConfigError(`${name} at ${description} refused the connection: ${reason} (error ${code}); ${fix}`, {
      cause: error,
      details: { engine, code },
    });
  return new WarehouseError(`could not connect to ${description}: ${reason}`, { cause: error });
}
