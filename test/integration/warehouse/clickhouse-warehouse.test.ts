import { afterAll } from 'vitest';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { runWarehouseContract } from './contract.js';
import { loadClickhouseFixture } from './fixtures.js';

const started = await startTestClickhouse();
if (started.available) await loadClickhouseFixture(started.server.admin, started.server.database);
afterAll(async () => {
  if (started.available) await started.server.stop();
});

runWarehouseContract(
  started.available ? `ClickHouse (${started.server.version})` : 'ClickHouse',
  async () => {
    if (!started.available) throw new Error(started.reason);
    const server = started.server;
    const warehouse = await openWarehouse(server.readerUrl);
    const reader = new URL(server.readerUrl);
    return {
      warehouse,
      // ClickHouse has no NOT NULL constraint to declare: a column is Nullable(T) or it is not
      declaresConstraints: true,
      booleansAreIntegers: true,
      refusesRepeatedAliases: true,
      columnTypes: { id: /^Int32$/, amount: /^Decimal\(10, 2\)$/, big_total: /^Int64$/, created_at: /^DateTime/, note: /^String$/ },
      endlessQuery: 'SELECT sum(number) AS s FROM numbers(100000000000)',
      cellsQuery: `SELECT toDate('2024-03-01') AS d, toDateTime('2024-03-01 10:11:12') AS ts, toInt64('9007199254740993') AS big,
                  toInt64(42) AS small, toDecimal64(12.34, 2) AS amount, CAST(NULL AS Nullable(Int32)) AS nothing, 1 = 1 AS yes`,
      // the engine layer alone: the reader's read-only profile, straight over HTTP
      runUnguarded: async (sql) => {
        const response = await fetch(`${server.httpUrl}/?user=${reader.username}&password=${decodeURIComponent(reader.password)}`, {
          method: 'POST',
          body: sql,
        });
        const text = await response.text();
        if (!response.ok) throw new Error(text);
        return text;
      },
      close: () => warehouse.close(),
    };
  },
  started.available ? {} : { skipReason: started.reason },
);
