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

  it.each([
    'mysql://u:p@h/',
    'duckdb:',
    'postgres://u:p@h:5432/',
    'sqlite:file.db',
    'nonsense',
    'bigquery://project',
    'snowflake://u@acct/db',
    'file:notes.docx',
  ])('refuses %s with the accepted forms', (url) => {
    expect(() => parseWarehouseUrl(url)).toThrow(ConfigError);
    expect(() => parseWarehouseUrl(url)).toThrow(
      /Accepted forms: duckdb:path\/to\/file\.duckdb; duckdb::memory:; .*postgres:\/\/.*mysql:\/\/.*clickhouse:\/\/.*bigquery:\/\/.*snowflake:\/\//,
    );
  });

  it('never puts the password of a refused URL in the error', () => {
    expect(() => parseWarehouseUrl('oracle://ana:hunter2@h/db')).toThrow(/ana:\*\*\*@/);
    expect(() => parseWarehouseUrl('oracle://ana:hunter2@h/db')).not.toThrow(/hunter2/);
    expect(() => parseWarehouseUrl('mysql://ana:hunter2@h/')).not.toThrow(/hunter2/);
  });
});

describe('when a warehouse URL names another engine', () => {
  it.each([
    ['mysql://ana:pw@db.example.com/shop', { engine: 'mysql', host: 'db.example.com', port: 3306, database: 'shop', user: 'ana' }],
    ['mariadb://ana@db.example.com:3307/shop', { engine: 'mysql', host: 'db.example.com', port: 3307, database: 'shop' }],
    ['clickhouse://ana:pw@ch.example.com/events', { engine: 'clickhouse', protocol: 'http', port: 8123, database: 'events' }],
    ['clickhouse+https://ana@ch.example.com/events', { engine: 'clickhouse', protocol: 'https', port: 8443 }],
    ['clickhouse+https://ana@ch.example.com:9443/events', { engine: 'clickhouse', protocol: 'https', port: 9443 }],
    ['bigquery://my-project/analytics?location=EU', { engine: 'bigquery', project: 'my-project', datasets: ['analytics'], location: 'EU' }],
    ['bigquery://my-project/raw,marts', { engine: 'bigquery', datasets: ['raw', 'marts'] }],
    [
      'snowflake://ana:pw@xy12345.eu-west-1/SHOP/PUBLIC?warehouse=WH&role=ASSAY_READER',
      {
        engine: 'snowflake',
        account: 'xy12345.eu-west-1',
        database: 'SHOP',
        schema: 'PUBLIC',
        user: 'ana',
        warehouse: 'WH',
        role: 'ASSAY_READER',
      },
    ],
  ])('reads %s', (url, expected) => {
    expect(parseWarehouseUrl(url)).toMatchObject(expected);
  });

  it.each([
    ['duckdb:events.csv', ['events.csv']],
    ['duckdb:data/orders.parquet', ['data/orders.parquet']],
    ['file:data/*.csv', ['data/*.csv']],
    ['file:logs/app.jsonl.gz', ['logs/app.jsonl.gz']],
  ])('loads %s as tables of an in-memory DuckDB', (url, files) => {
    expect(parseWarehouseUrl(url)).toEqual({ engine: 'duckdb', path: ':memory:', files: files.map((file) => path.resolve(file)) });
  });

  it('reads file:///absolute paths', () => {
    expect(parseWarehouseUrl('file:///srv/data/x.csv')).toEqual({ engine: 'duckdb', path: ':memory:', files: ['/srv/data/x.csv'] });
  });

  it('never prints a password, a key or a credential parameter', () => {
    const described = [
      'mysql://ana:hunter2@h/db',
      'clickhouse+https://ana:hunter2@h/db',
      'snowflake://ana:hunter2@acct/DB/SCH?warehouse=WH',
      `bigquery://:${encodeURIComponent('{"private_key":"hunter2"}')}@proj/ds`,
    ].map((url) => describeWarehouseTarget(parseWarehouseUrl(url)));
    expect(described).toEqual([
      'mysql://ana@h:3306/db',
      'clickhouse+https://ana@h:8443/db',
      'snowflake://ana@acct/DB/SCH?warehouse=WH',
      'bigquery://proj/ds',
    ]);
    expect(described.join(' ')).not.toMatch(/hunter2/);
  });

  it('keeps the schema cache key when only the credentials change', () => {
    expect(warehouseConfigHash('mysql://ana:one@h/db')).toBe(warehouseConfigHash('mysql://bob:two@h/db'));
    expect(warehouseConfigHash('bigquery://p/d')).toBe(warehouseConfigHash(`bigquery://:${encodeURIComponent('{}')}@p/d`));
    expect(warehouseConfigHash('mysql://ana@h/db')).not.toBe(warehouseConfigHash('clickhouse://ana@h:3306/db'));
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
