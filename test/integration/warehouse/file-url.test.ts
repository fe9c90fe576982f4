/** Files by URL: `duckdb:events.csv` and `file:data/*.csv` load files as tables of an in-memory DuckDB. */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'assay-file-url-'));
  await mkdir(path.join(directory, 'data'));
  await writeFile(path.join(directory, 'events.csv'), 'user_id,kind,at\n1,view,2024-01-01 10:00:00\n2,buy,2024-01-02 11:00:00\n');
  await writeFile(path.join(directory, 'data', 'Order Items.csv'), 'order_id,sku,quantity\n1,A,2\n1,B,1\n2,A,5\n');
  await writeFile(path.join(directory, 'data', 'customers.csv'), 'id,country\n1,GB\n2,FI\n');
  await writeFile(path.join(directory, 'data', 'broken.parquet'), 'this is not parquet');
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('when the warehouse URL names a data file', () => {
  it('duckdb:events.csv serves the file as the table events, read-only', async () => {
    const warehouse = await openWarehouse(`duckdb:${path.join(directory, 'events.csv')}`);
    try {
      expect((await warehouse.listTables()).map((table) => table.name)).toEqual(['events']);
      expect((await warehouse.query('SELECT kind, count(*) AS n FROM events GROUP BY kind ORDER BY kind')).rows).toEqual([
        { kind: 'buy', n: 1 },
        { kind: 'view', n: 1 },
      ]);
      await expect(warehouse.query('DELETE FROM events')).rejects.toThrow(/only a single SELECT/);
    } finally {
      await warehouse.close();
    }
  });

  it('file:data/*.csv loads every match, each table named after its file', async () => {
    const warehouse = await openWarehouse(`file:${path.join(directory, 'data', '*.csv')}`);
    try {
      expect((await warehouse.listTables()).map((table) => table.name).sort()).toEqual(['customers', 'order_items']);
      expect((await warehouse.query('SELECT sum(quantity) AS units FROM order_items')).rows).toEqual([{ units: 8 }]);
    } finally {
      await warehouse.close();
    }
  });
});

describe('when a file cannot be loaded', () => {
  it('names the missing file', async () => {
    const missing = path.join(directory, 'nope.csv');
    const error = await openWarehouse(`duckdb:${missing}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`warehouse file ${missing} does not exist; check the path in the warehouse URL`);
  });

  it('names a pattern that matches nothing', async () => {
    const pattern = path.join(directory, 'data', '*.tsv');
    await expect(openWarehouse(`file:${pattern}`)).rejects.toThrow(`no file matches ${pattern}`);
  });

  it('names the file DuckDB could not read, and what was wrong with it', async () => {
    const broken = path.join(directory, 'data', 'broken.parquet');
    const error = await openWarehouse(`file:${broken}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      new RegExp(`^warehouse file ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(table broken\\) could not be read: .+`),
    );
  });

  it.skipIf(process.getuid?.() === 0)('names a file it may not read', async () => {
    const locked = path.join(directory, 'locked.csv');
    await writeFile(locked, 'a\n1\n');
    await chmod(locked, 0o000);
    await expect(openWarehouse(`duckdb:${locked}`)).rejects.toThrow(locked);
  });
});
