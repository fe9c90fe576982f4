/**
 * The engine's SQL on the ClickHouse server here (Debian's 18.16, which has no CTE subqueries and no
 * window functions): statements with CTEs (inlined by the adapter before they are sent) and the
 * per-dialect top-rows-per-group form read back the same rows as on DuckDB; the tenant filter still
 * holds inside every inlined copy of a CTE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '../../../src/domain/index.js';
import { openWarehouse, type Warehouse } from '../../../src/warehouse/index.js';
import type { SqlSyntax } from '../../../src/warehouse/sql-syntax/index.js';
import { sqlSyntaxFor } from '../../../src/warehouse/sql-syntax/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { tempDir } from '../../support/temp-dir.js';
import { createDuckdbFixtureFile, loadClickhouseFixture } from './fixtures.js';

const started = await startTestClickhouse();
if (started.available) await loadClickhouseFixture(started.server.admin, started.server.database);
else console.log(`skipping the engine SQL on ClickHouse: ${started.reason}`);

let clickhouse: Warehouse;
let duckdb: Warehouse;
let filtered: Warehouse;

beforeAll(async () => {
  if (!started.available) return;
  duckdb = await openWarehouse(`duckdb:${await createDuckdbFixtureFile(tempDir('assay-ch-legacy-'))}`);
  clickhouse = await openWarehouse(started.server.readerUrl);
  filtered = await openWarehouse(started.server.readerUrl, { tenantFilter: { field: 'customer_id', value: 1 } });
});

afterAll(async () => {
  await Promise.all([duckdb?.close(), clickhouse?.close(), filtered?.close()]);
  if (started.available) await started.server.stop();
});

const schemaOf = (warehouse: Warehouse) => (warehouse.dialect === 'duckdb' ? 'main' : started.available ? started.server.database : '');
const table = (warehouse: Warehouse, name: string) => sqlSyntaxFor(warehouse.dialect).table({ schema: schemaOf(warehouse), name });

/** Numbers as numbers (ClickHouse returns UInt64 counts as text where they may exceed 2^53), rounded past float noise. */
function plain(rows: readonly Row[]): Array<Record<string, unknown>> {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => {
        const number = typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
        return [key, typeof number === 'number' ? Math.round(number * 1e6) / 1e6 : number];
      }),
    ),
  );
}

/** Statements written once with each engine's syntax and table names. */
const STATEMENTS: Array<{ name: string; sql: (warehouse: Warehouse, syntax: SqlSyntax) => string }> = [
  {
    name: 'a CTE reading an earlier CTE, joined',
    sql: (w, s) =>
      `WITH c AS (SELECT id, country FROM ${table(w, 'customers')}),
       o AS (SELECT customer_id, amount FROM ${table(w, 'orders')} WHERE amount > 5)
       SELECT c.id AS id, ${s.toDouble('sum(o.amount)')} AS total, count(*) AS n
       FROM c JOIN o ON o.customer_id = c.id GROUP BY c.id ORDER BY c.id`,
  },
  {
    name: 'one CTE read twice, once in an IN subquery and once in a scalar subquery',
    sql: (w, s) =>
      `WITH big AS (SELECT customer_id, amount FROM ${table(w, 'orders')} WHERE amount > 15)
       SELECT id, (SELECT ${s.toDouble('max(amount)')} FROM big) AS largest
       FROM ${table(w, 'customers')} WHERE id IN (SELECT customer_id FROM big) ORDER BY id`,
  },
  {
    name: 'a CTE name defined again in an inner WITH',
    sql: (w) =>
      `WITH x AS (SELECT id FROM ${table(w, 'customers')} WHERE id = 1)
       SELECT inner_x.id AS inner_id, outer_x.id AS outer_id
       FROM (WITH x AS (SELECT id FROM ${table(w, 'customers')} WHERE id = 3) SELECT id FROM x) AS inner_x
       CROSS JOIN x AS outer_x`,
  },
  {
    name: 'the top two orders per customer (topRowsPerGroup)',
    sql: (w, s) =>
      s.topRowsPerGroup(
        `(SELECT customer_id AS col, ${s.toText('id')} AS v, ${s.toDouble('amount')} AS n FROM ${table(w, 'orders')})`,
        'col, v, n',
        'col',
        'n DESC, v',
        2,
      ),
  },
];

describe.skipIf(!started.available)(`the engine's SQL on ClickHouse ${started.available ? started.server.version : ''}`, () => {
  for (const statement of STATEMENTS) {
    it(`${statement.name}: the same rows as on DuckDB`, async () => {
      const run = async (warehouse: Warehouse) =>
        plain((await warehouse.query(statement.sql(warehouse, sqlSyntaxFor(warehouse.dialect)))).rows);
      const expected = await run(duckdb);
      expect(expected.length).toBeGreaterThan(0);
      expect(await run(clickhouse)).toEqual(expected);
    });
  }

  it('keeps the tenant filter in every inlined copy of a CTE over a filtered table', async () => {
    const sql = `WITH o AS (SELECT customer_id, amount FROM ${table(filtered, 'orders')})
      SELECT (SELECT count(*) FROM o) AS everywhere, count(*) AS twice, min(customer_id) AS low, max(customer_id) AS high
      FROM (SELECT customer_id FROM o UNION ALL SELECT customer_id FROM o) AS both_copies`;
    // customer 1 has two orders: 2 rows, 4 in the two copies together; unfiltered it would be 4 and 8, up to customer 3
    expect(plain((await filtered.query(sql)).rows)).toEqual([{ everywhere: 2, twice: 4, low: 1, high: 1 }]);
  });

  it('sends a recursive CTE as written and reports the server refusing it', async () => {
    await expect(
      clickhouse.query('WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r'),
    ).rejects.toThrow(/ClickHouse|refused/);
  });
});
