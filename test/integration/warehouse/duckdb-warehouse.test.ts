import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openLockedDuckdb } from '../../../src/warehouse/duckdb/duckdb-warehouse.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { runWarehouseContract, type WarehouseContractFixture } from './contract.js';
import { createDuckdbFixtureFile, createParquetFixtureFiles } from './fixtures.js';

async function openFixture(kind: 'file' | 'memory'): Promise<WarehouseContractFixture> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'assay-duckdb-contract-'));
  const file = kind === 'file' ? await createDuckdbFixtureFile(directory) : undefined;
  const files = kind === 'memory' ? await createParquetFixtureFiles(directory) : undefined;
  const warehouse = await openWarehouse(file === undefined ? 'duckdb::memory:' : `duckdb:${file}`, files === undefined ? {} : { files });
  // the same engine layer the adapter uses, reached without the guard
  const engine = await openLockedDuckdb({ path: file ?? ':memory:', ...(files === undefined ? {} : { files }) });
  return {
    warehouse,
    declaresConstraints: kind === 'file',
    runUnguarded: (sql) => engine.connection.run(sql),
    close: async () => {
      engine.connection.closeSync();
      engine.instance.closeSync();
      await engine.cleanup();
      await warehouse.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

runWarehouseContract('DuckDB file', () => openFixture('file'));
runWarehouseContract('DuckDB in-memory with Parquet files', () => openFixture('memory'));
