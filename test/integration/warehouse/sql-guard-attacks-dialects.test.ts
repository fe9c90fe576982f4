/**
 * The attack corpus's MySQL/MariaDB and ClickHouse sections through the full adapter path against the
 * live servers (started throwaway here): every statement is refused with UnsafeSqlError and nothing
 * happened — the tables hold the same rows, no table appeared, the server's file directory stays
 * empty, no sleep ran. The accept corpus runs to completion. BigQuery and Snowflake sections run in
 * the guard's unit tests (their servers cannot be reached from here).
 */
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { UnsafeSqlError } from '../../../src/errors/index.js';
import { openWarehouse, type Warehouse } from '../../../src/warehouse/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { startTestMariadb } from '../../support/mariadb.js';
import { dialectAccepts, dialectAttacks } from '../../unit/warehouse/sql-corpus-dialects.js';
import { loadClickhouseFixture, loadMysqlFixture } from './fixtures.js';

const [mariadb, clickhouse] = await Promise.all([startTestMariadb(), startTestClickhouse()]);
if (mariadb.available) await loadMysqlFixture(mariadb.server.adminUrl);
else console.log(`skipping the MySQL/MariaDB attack corpus: ${mariadb.reason}`);
if (clickhouse.available) await loadClickhouseFixture(clickhouse.server.admin, clickhouse.server.database);
else console.log(`skipping the ClickHouse attack corpus: ${clickhouse.reason}`);

afterAll(async () => {
  if (mariadb.available) await mariadb.server.stop();
  if (clickhouse.available) await clickhouse.server.stop();
});

const TARGETS = [
  {
    dialect: 'mysql' as const,
    available: mariadb.available,
    url: () => (mariadb.available ? mariadb.server.readerUrl : ''),
    fileDirectory: () => (mariadb.available ? mariadb.server.fileDirectory : ''),
  },
  {
    dialect: 'clickhouse' as const,
    available: clickhouse.available,
    url: () => (clickhouse.available ? clickhouse.server.readerUrl : ''),
    fileDirectory: () => (clickhouse.available ? clickhouse.server.userFilesDirectory : ''),
  },
];

/** Everything an attack could change, read through the adapter. */
async function snapshot(warehouse: Warehouse): Promise<unknown> {
  return {
    tables: (await warehouse.listTables()).map((table) => table.name).sort(),
    canary: (await warehouse.query('SELECT id FROM canary ORDER BY id')).rows,
    orders: (await warehouse.query('SELECT id, customer_id, amount FROM orders ORDER BY id')).rows,
    customers: (await warehouse.query('SELECT id, name FROM customers ORDER BY id')).rows,
  };
}

describe.each(TARGETS)('the live $dialect warehouse under attack', (target) => {
  it.skipIf(!target.available)('refuses every attack of its section and nothing changes', async () => {
    const warehouse = await openWarehouse(target.url());
    try {
      const before = await snapshot(warehouse);
      const attacks = dialectAttacks(target.dialect);
      const outcomes: Array<{ name: string; refused: boolean; detail: string }> = [];
      for (const attack of attacks) {
        const error = await warehouse.query(attack.sql.replaceAll('{{dir}}', target.fileDirectory())).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        outcomes.push({
          name: attack.name,
          refused: error instanceof UnsafeSqlError,
          detail: error instanceof Error ? error.message : 'executed',
        });
      }
      // every attack was refused by the guard before it reached the server, so SLEEP(10) and friends never ran
      expect(outcomes.filter((outcome) => !outcome.refused)).toEqual([]);
      expect(outcomes.length).toBeGreaterThan(40);
      expect(await snapshot(warehouse)).toEqual(before);
      expect(readdirSync(target.fileDirectory())).toEqual([]);
    } finally {
      await warehouse.close();
    }
  });

  it.skipIf(!target.available)('runs every analytical query of its accept section', async () => {
    const warehouse = await openWarehouse(target.url());
    try {
      const failures: string[] = [];
      for (const entry of dialectAccepts(target.dialect)) {
        await warehouse
          .query(entry.sql)
          .catch((error: unknown) => failures.push(`${entry.name}: ${error instanceof Error ? error.message : String(error)}`));
      }
      expect(failures).toEqual([]);
    } finally {
      await warehouse.close();
    }
  });
});
