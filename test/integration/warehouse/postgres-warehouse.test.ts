import pg from 'pg';
import { afterAll } from 'vitest';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { readOnlyTransactionSql } from '../../../src/warehouse/postgres/postgres-warehouse.js';
import { startTestPostgres } from '../../support/postgres.js';
import { runWarehouseContract } from './contract.js';
import { loadPostgresFixture } from './fixtures.js';

const started = await startTestPostgres();
if (started.available) await loadPostgresFixture(started.server.adminUrl);
afterAll(async () => {
  if (started.available) await started.server.stop();
});

runWarehouseContract(
  'PostgreSQL',
  async () => {
    if (!started.available) throw new Error(started.reason);
    const warehouse = await openWarehouse(started.server.readerUrl);
    const client = new pg.Client({ connectionString: started.server.readerUrl });
    await client.connect();
    return {
      warehouse,
      declaresConstraints: true,
      // the engine layer alone: the reader role inside the adapter's read-only transaction
      runUnguarded: async (sql) => {
        await client.query(readOnlyTransactionSql(5_000));
        try {
          return await client.query(sql);
        } finally {
          await client.query('ROLLBACK');
        }
      },
      close: async () => {
        await client.end();
        await warehouse.close();
      },
    };
  },
  started.available ? {} : { skipReason: started.reason },
);
