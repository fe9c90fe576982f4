/**
 * A tenant filter (`customer_id = 1`) is enforced by the adapter's rewrite of every reference to a
 * relation that has the column, however the statement names it. Customer 1 owns orders 1 and 2.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeSqlError } from '../../../src/errors/index.js';
import { openWarehouse, type Warehouse } from '../../../src/warehouse/index.js';
import { startTestPostgres } from '../../support/postgres.js';
import { createDuckdbFixtureFile, loadPostgresFixture } from './fixtures.js';

const postgres = await startTestPostgres();
if (postgres.available) await loadPostgresFixture(postgres.server.adminUrl);
else console.log(`skipping the PostgreSQL tenant filter tests: ${postgres.reason}`);
const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-tenant-'));
const duckdbFile = await createDuckdbFixtureFile(directory);

afterAll(async () => {
  if (postgres.available) await postgres.server.stop();
  await rm(directory, { recursive: true, force: true });
});

const TARGETS = [
  { engine: 'DuckDB', schema: 'main', available: true, url: () => `duckdb:${duckdbFile}` },
  {
    engine: 'PostgreSQL',
    schema: 'public',
    available: postgres.available,
    url: () => (postgres.available ? postgres.server.readerUrl : ''),
  },
];

describe.each(TARGETS)('when $engine runs with a tenant filter', ({ schema, available, url }) => {
  let warehouse: Warehouse;

  beforeAll(async () => {
    if (available) warehouse = await openWarehouse(url(), { tenantFilter: { field: 'customer_id', value: 1 } });
  });

  afterAll(async () => {
    if (available) await warehouse.close();
  });

  async function ids(sql: string): Promise<unknown[]> {
    return (await warehouse.query(sql)).rows.map((row) => row.id);
  }

  it.skipIf(!available)('shows only the tenant rows of a filtered table, named bare or qualified', async () => {
    expect(await ids('SELECT id FROM orders ORDER BY id')).toEqual([1, 2]);
    expect(await ids(`SELECT id FROM ${schema}.orders ORDER BY id`)).toEqual([1, 2]);
    expect(await ids(`SELECT o.id FROM "${schema}"."orders" AS o ORDER BY o.id`)).toEqual([1, 2]);
  });

  it.skipIf(!available)('filters inside subqueries, CTEs, joins, set operations and views that carry the column', async () => {
    expect(await ids('SELECT id FROM (SELECT * FROM orders) AS t ORDER BY id')).toEqual([1, 2]);
    expect(await ids('WITH mine AS (SELECT * FROM orders) SELECT id FROM mine ORDER BY id')).toEqual([1, 2]);
    expect(await ids('SELECT orders.id FROM customers JOIN orders ON orders.customer_id = customers.id ORDER BY orders.id')).toEqual([
      1, 2,
    ]);
    expect(await ids('SELECT id FROM orders UNION SELECT id FROM orders WHERE id IN (SELECT id FROM orders) ORDER BY id')).toEqual([1, 2]);
    expect(await ids('SELECT id FROM big_orders ORDER BY id')).toEqual([2]);
    expect((await warehouse.query('SELECT count(*) AS n FROM orders WHERE customer_id <> 1 OR 1 = 1')).rows).toEqual([{ n: 2 }]);
  });

  it.skipIf(!available)('leaves relations without the column unfiltered', async () => {
    expect(await ids('SELECT id FROM customers ORDER BY id')).toEqual([1, 2, 3]);
  });

  it.skipIf(!available)('counts and samples a filtered table through the filter', async () => {
    const described = await warehouse.describeTable({ schema, name: 'orders' });
    expect(described.rowCount).toBe(2);
    expect(described.samples?.map((row) => row.customer_id)).toEqual([1, 1]);
  });

  it.skipIf(!available)('refuses a CTE that reuses a filtered table name', async () => {
    await expect(warehouse.query('WITH orders AS (SELECT 1 AS id) SELECT id FROM orders')).rejects.toBeInstanceOf(UnsafeSqlError);
  });
});

describe('when a DuckDB file warehouse also has attached files', () => {
  it('serves the database tables and the file tables together, read-only', async () => {
    const csv = path.join(directory, 'regions.csv');
    await writeFile(csv, 'code,label\nGB,Britain\nFI,Finland\n');
    const warehouse = await openWarehouse(`duckdb:${duckdbFile}`, { files: { regions: csv } });
    try {
      const rows = (await warehouse.query('SELECT c.name, r.label FROM customers c JOIN regions r ON r.code = c.country ORDER BY c.name'))
        .rows;
      expect(rows).toEqual([
        { name: 'Ada', label: 'Britain' },
        { name: 'Linus', label: 'Finland' },
      ]);
      expect((await warehouse.listTables()).map((table) => table.name)).toEqual(expect.arrayContaining(['customers', 'regions']));
    } finally {
      await warehouse.close();
    }
  });
});
