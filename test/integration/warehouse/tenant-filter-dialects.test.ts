/**
 * The tenant filter (`customer_id = 1`) on the live MySQL/MariaDB and ClickHouse servers: every
 * reference to a relation that has the column is rewritten, however the statement names it.
 * Customer 1 owns orders 1 and 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeSqlError } from '../../../src/errors/index.js';
import { openWarehouse, type Warehouse } from '../../../src/warehouse/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { startTestMariadb } from '../../support/mariadb.js';
import { loadClickhouseFixture, loadMysqlFixture } from './fixtures.js';

const [mariadb, clickhouse] = await Promise.all([startTestMariadb(), startTestClickhouse()]);
if (mariadb.available) await loadMysqlFixture(mariadb.server.adminUrl);
else console.log(`skipping the MySQL/MariaDB tenant filter tests: ${mariadb.reason}`);
if (clickhouse.available) await loadClickhouseFixture(clickhouse.server.admin, clickhouse.server.database);
else console.log(`skipping the ClickHouse tenant filter tests: ${clickhouse.reason}`);

afterAll(async () => {
  if (mariadb.available) await mariadb.server.stop();
  if (clickhouse.available) await clickhouse.server.stop();
});

const TARGETS = [
  {
    engine: 'MySQL/MariaDB',
    available: mariadb.available,
    url: () => (mariadb.available ? mariadb.server.readerUrl : ''),
    quote: '`',
    ctes: true,
  },
  // ClickHouse 18.16 has no WITH name AS (subquery)
  {
    engine: 'ClickHouse',
    available: clickhouse.available,
    url: () => (clickhouse.available ? clickhouse.server.readerUrl : ''),
    quote: '`',
    ctes: false,
  },
];

describe.each(TARGETS)('when $engine runs with a tenant filter', ({ available, url, quote, ctes }) => {
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

  it.skipIf(!available)('shows only the tenant rows of a filtered table, named bare, qualified or quoted', async () => {
    expect(await ids('SELECT id FROM orders ORDER BY id')).toEqual([1, 2]);
    expect(await ids('SELECT id FROM assay_test.orders ORDER BY id')).toEqual([1, 2]);
    expect(await ids(`SELECT o.id FROM ${quote}assay_test${quote}.${quote}orders${quote} AS o ORDER BY o.id`)).toEqual([1, 2]);
  });

  it.skipIf(!available)('filters inside subqueries, joins, set operations and views that carry the column', async () => {
    expect(await ids('SELECT id FROM (SELECT * FROM orders) AS t ORDER BY id')).toEqual([1, 2]);
    if (ctes) expect(await ids('WITH mine AS (SELECT * FROM orders) SELECT id FROM mine ORDER BY id')).toEqual([1, 2]);
    expect(await ids('SELECT orders.id AS id FROM customers JOIN orders ON orders.customer_id = customers.id ORDER BY id')).toEqual([1, 2]);
    expect(
      await ids('SELECT id FROM orders WHERE id IN (SELECT id FROM orders) UNION ALL SELECT id FROM orders WHERE id = 99 ORDER BY id'),
    ).toEqual([1, 2]);
    expect(await ids('SELECT id FROM big_orders ORDER BY id')).toEqual([2]);
    expect(
      (await warehouse.query('SELECT count(*) AS n FROM orders WHERE customer_id <> 1 OR 1 = 1')).rows.map((row) => Number(row.n)),
    ).toEqual([2]);
  });

  it.skipIf(!available)('leaves relations without the column unfiltered', async () => {
    expect(await ids('SELECT id FROM customers ORDER BY id')).toEqual([1, 2, 3]);
  });

  it.skipIf(!available)('counts and samples a filtered table through the filter', async () => {
    const described = await warehouse.describeTable({ schema: 'assay_test', name: 'orders' });
    expect(described.rowCount).toBe(2);
    expect(described.samples?.map((row) => row.customer_id)).toEqual([1, 1]);
    const catalog = await warehouse.describeCatalog?.();
    expect(catalog?.find((table) => table.name === 'orders')?.rowCount).toBe(2);
  });

  it.skipIf(!available || !ctes)('refuses a CTE that reuses a filtered table name', async () => {
    await expect(warehouse.query('WITH orders AS (SELECT 1 AS id) SELECT id FROM orders')).rejects.toBeInstanceOf(UnsafeSqlError);
  });
});
