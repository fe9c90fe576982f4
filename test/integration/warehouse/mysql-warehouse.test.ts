import mysql from 'mysql2/promise';
import { afterAll } from 'vitest';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { MYSQL_SESSION_SQL } from '../../../src/warehouse/mysql/mysql-warehouse.js';
import { startTestMariadb } from '../../support/mariadb.js';
import { runWarehouseContract } from './contract.js';
import { loadMysqlFixture } from './fixtures.js';

const started = await startTestMariadb();
if (started.available) await loadMysqlFixture(started.server.adminUrl);
afterAll(async () => {
  if (started.available) await started.server.stop();
});

runWarehouseContract(
  started.available ? `MySQL/MariaDB (${started.server.version})` : 'MySQL/MariaDB',
  async () => {
    if (!started.available) throw new Error(started.reason);
    const warehouse = await openWarehouse(started.server.readerUrl);
    const connection = await mysql.createConnection({ uri: started.server.readerUrl });
    for (const statement of MYSQL_SESSION_SQL) await connection.query(statement);
    return {
      warehouse,
      declaresConstraints: true,
      booleansAreIntegers: true,
      // rows of information_schema.COLLATIONS (hundreds) joined four times: billions of rows
      endlessQuery:
        'SELECT COUNT(*) AS n FROM information_schema.COLLATIONS a, information_schema.COLLATIONS b, information_schema.COLLATIONS c, information_schema.COLLATIONS d',
      cellsQuery: `SELECT CAST('2024-03-01' AS DATE) AS d, CAST('2024-03-01 10:11:12' AS DATETIME) AS ts, CAST(9007199254740993 AS SIGNED) AS big,
                  CAST(42 AS SIGNED) AS small, CAST(12.34 AS DECIMAL(10,2)) AS amount, CAST(NULL AS SIGNED) AS nothing, 1 = 1 AS yes`,
      // the engine layer alone: the reader in the adapter's read-only session and transaction
      runUnguarded: async (sql) => {
        await connection.query('START TRANSACTION READ ONLY');
        try {
          return await connection.query(sql);
        } finally {
          await connection.query('ROLLBACK');
        }
      },
      close: async () => {
        await connection.end();
        await warehouse.close();
      },
    };
  },
  started.available ? {} : { skipReason: started.reason },
);
