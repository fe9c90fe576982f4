import { describe, expect, it } from 'vitest';
import { CancelledError, WarehouseError } from '../../../src/errors/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import type { SchemaIndexProgress } from '../../../src/schema/progress.js';
import { fixedWarehouse } from './fixed-warehouse.js';
import { shopTables, table } from './fixtures.js';

describe('schema discovery', () => {
  it('describes every table, sorted by name, a bounded number at a time, reporting progress', async () => {
    const many = Array.from({ length: 12 }, (_, index) => table(`main.t${String(index).padStart(2, '0')}`, ['id']));
    const warehouse = fixedWarehouse([...many].reverse(), { delayMs: 5 });
    const progress: SchemaIndexProgress[] = [];
    const tables = await discoverSchema(warehouse, { concurrency: 3, onProgress: (event) => progress.push(event) });
    expect(tables.map((entry) => entry.qualified)).toEqual(many.map((entry) => entry.qualified));
    expect(warehouse.maxConcurrentDescribes).toBe(3);
    expect(progress[0]).toEqual({ phase: 'listing_tables', done: 0, total: 0 });
    expect(progress.at(-1)).toEqual({ phase: 'schema_discovery', done: 12, total: 12 });
  });

  it('skips and reports a table that fails or takes too long, and keeps the rest', async () => {
    const warehouse = fixedWarehouse(shopTables(), { failing: new Set(['main.orders']), hanging: new Set(['main.products']) });
    const skipped: string[] = [];
    const tables = await discoverSchema(warehouse, {
      tableTimeoutMs: 50,
      onTableError: (ref, error) => skipped.push(`${ref.name}: ${error.message}`),
    });
    expect(tables.map((entry) => entry.name)).toEqual(['categories', 'customers', 'order_items', 'weather_daily']);
    expect(skipped.sort()).toEqual([
      'orders: permission denied for table main.orders',
      'products: describing main.products took longer than 50 ms; skipped',
    ]);
  });

  it('fails when no table at all could be described', async () => {
    const tables = shopTables();
    const warehouse = fixedWarehouse(tables, { failing: new Set(tables.map((entry) => entry.qualified)) });
    await expect(discoverSchema(warehouse)).rejects.toThrow(WarehouseError);
    await expect(discoverSchema(warehouse)).rejects.toThrow(/could not describe any of the 6 tables; first error/);
  });

  it('stops with CancelledError when its signal is aborted', async () => {
    const controller = new AbortController();
    const warehouse = fixedWarehouse(shopTables(), { delayMs: 20 });
    const pending = discoverSchema(warehouse, { signal: controller.signal, concurrency: 1 });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    expect(warehouse.describeCalls).toBeLessThan(6);
  });

  it('returns nothing for an empty warehouse', async () => {
    expect(await discoverSchema(fixedWarehouse([]))).toEqual([]);
  });

  describe('from a warehouse that describes its whole catalog', () => {
    it('reads the catalog once and no sample rows: tables come back sorted, without samples', async () => {
      const many = Array.from({ length: 12 }, (_, index) =>
        table(`main.t${String(index).padStart(2, '0')}`, ['id', 'label'], index, [{ id: index, label: `row ${index}` }]),
      );
      const warehouse = fixedWarehouse([...many].reverse(), { wholeCatalog: true, delayMs: 5 });
      const progress: SchemaIndexProgress[] = [];
      const tables = await discoverSchema(warehouse, { onProgress: (event) => progress.push(event) });
      expect(tables).toEqual(many.map(({ samples: _samples, ...description }) => description));
      expect(tables.every((entry) => entry.samples === undefined)).toBe(true);
      expect(warehouse.describeCalls).toBe(0);
      expect(warehouse.sampleCalls).toEqual([]);
      expect(progress[0]).toEqual({ phase: 'listing_tables', done: 0, total: 0 });
      expect(progress).toContainEqual({ phase: 'listing_tables', done: 12, total: 12 });
      expect(progress.at(-1)).toEqual({ phase: 'schema_discovery', done: 12, total: 12 });
    });

    it('does not touch a table it cannot read: unreadable and hanging tables are listed all the same', async () => {
      const warehouse = fixedWarehouse(shopTables(), {
        wholeCatalog: true,
        failing: new Set(['main.orders']),
        hanging: new Set(['main.products']),
      });
      const tables = await discoverSchema(warehouse, { tableTimeoutMs: 50 });
      expect(tables.map((entry) => entry.name)).toEqual(['categories', 'customers', 'order_items', 'orders', 'products', 'weather_daily']);
    });

    it('stops when cancelled before the catalog is read', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(
        discoverSchema(fixedWarehouse(shopTables(), { wholeCatalog: true }), { signal: controller.signal }),
      ).rejects.toBeInstanceOf(CancelledError);
    });

    it('returns nothing for an empty warehouse', async () => {
      expect(await discoverSchema(fixedWarehouse([], { wholeCatalog: true }))).toEqual([]);
    });
  });
});
