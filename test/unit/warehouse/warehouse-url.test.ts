import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { ConfigError } from '../../../src/errors/index.js';
import { describeWarehouseTarget, parseWarehouseUrl, warehouseConfigHash } from '../../../src/warehouse/index.js';

describe('when a warehouse URL is parsed', () => {
  it('accepts a DuckDB file, resolved to an absolute path', () => {
    expect(parseWarehouseUrl('duckdb:data/shop.duckdb')).toEqual({ engine: 'duckdb', path: path.resolve('data/shop.duckdb') });
  });

  it('accepts an in-memory DuckDB', () => {
    expect(parseWarehouseUrl('duckdb::memory:')).toEqual({ engine: 'duckdb', path: ':memory:' });
  });

  it.each(['postgres://', 'postgresql://'])('accepts %s URLs with credentials, host, port and database', (scheme) => {
    expect(parseWarehouseUrl(`${scheme}ana:s3cr%40t@db.example.com:6543/sales`)).toMatchObject({
      engine: 'postgres',
      host: 'db.example.com',
      port: 6543,
      database: 'sales',
      user: 'ana',
    });
  });

  it('takes a unix-socket directory from ?host=', () => {
    expect(parseWarehouseUrl('postgres://ana@localhost/sales?host=/var/run/postgresql')).toMatchObject({
      host: '/var/run/postgresql',
      port: 5432,
    });
  });

  it.each(['mysql://u:p@h/db', 'duckdb:', 'postgres://u:p@h:5432/', 'sqlite:file.db', 'nonsense'])(
    'refuses %s with the accepted forms',
    (url) => {
      expect(() => parseWarehouseUrl(url)).toThrow(ConfigError);
      expect(() => parseWarehouseUrl(url)).toThrow(/Accepted forms: duckdb:path\/to\/file\.duckdb; duckdb::memory:; postgres:\/\//);
    },
  );

  it('never puts the password of a refused URL in the error', () => {
    expect(() => parseWarehouseUrl('mysql://ana:hunter2@h/db')).toThrow(/ana:\*\*\*@/);
    expect(() => parseWarehouseUrl('mysql://ana:hunter2@h/db')).not.toThrow(/hunter2/);
  });
});

describe('when a warehouse is described', () => {
  it('never contains the password', () => {
    const description = describeWarehouseTarget(parseWarehouseUrl('postgres://ana:hunter2@db.example.com:5432/sales'));
    expect(description).toBe('postgres://ana@db.example.com:5432/sales');
  });
});

describe('when the schema cache key is computed', () => {
  it('is the same whatever the credentials', () => {
    expect(warehouseConfigHash('postgres://ana:one@h:5432/sales')).toBe(warehouseConfigHash('postgres://bob:two@h:5432/sales'));
  });

  it('changes with the database, the host, the file or the extra identity', () => {
    const base = warehouseConfigHash('postgres://ana@h:5432/sales');
    expect(warehouseConfigHash('postgres://ana@h:5432/crm')).not.toBe(base);
    expect(warehouseConfigHash('postgres://ana@other:5432/sales')).not.toBe(base);
    expect(warehouseConfigHash('duckdb:a.duckdb')).not.toBe(warehouseConfigHash('duckdb:b.duckdb'));
    expect(warehouseConfigHash('duckdb:a.duckdb', { files: { t: 'x.csv' } })).not.toBe(warehouseConfigHash('duckdb:a.duckdb'));
  });

  it('does not depend on the key order of the extra identity', () => {
    expect(warehouseConfigHash('duckdb:a.duckdb', { a: 1, b: { c: 2, d: 3 } })).toBe(
      warehouseConfigHash('duckdb:a.duckdb', { b: { d: 3, c: 2 }, a: 1 }),
    );
  });

  it('is a SHA-256 hex digest', () => {
    expect(warehouseConfigHash('duckdb::memory:')).toMatch(/^[0-9a-f]{64}$/);
  });
});
