import { describe, expect, it } from 'vitest';
import { ConfigError, WarehouseError } from '../../../src/errors/index.js';
import { connectionError } from '../../../src/warehouse/postgres/postgres-warehouse.js';

function pgError(code: string | undefined, message: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

describe('when PostgreSQL refuses a connection', () => {
  it.each([
    ['28P01', 'password authentication failed for user "assay"', /password is wrong: fix the warehouse URL's password/],
    ['28000', 'role "ghost" does not exist', /fix the user in the warehouse URL/],
    ['3D000', 'database "nope" does not exist', /fix the database name in the warehouse URL/],
    ['42501', 'permission denied for database "shop"', /grant it CONNECT/],
  ])('SQLSTATE %s is a configuration error naming what to fix', (code, message, fix) => {
    const error = connectionError('postgres://assay@db:5432/shop', pgError(code, message));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('config');
    expect(error.message).toContain(message);
    expect(error.message).toContain(`SQLSTATE ${code}`);
    expect(error.message).toMatch(fix);
  });

  it.each([
    ['an unreachable server', undefined, 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['too many connections', '53300', 'sorry, too many clients already'],
    ['a server starting up', '57P03', 'the database system is starting up'],
  ])('%s stays a retryable warehouse error', (_case, code, message) => {
    const error = connectionError('postgres://assay@db:5432/shop', pgError(code, message));
    expect(error).toBeInstanceOf(WarehouseError);
    expect(error.code).toBe('warehouse');
  });
});
