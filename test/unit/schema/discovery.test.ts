import { describe, expect, it } from 'vitest';
import { CancelledError, WarehouseError } from '../../../src/errors/index.js';
import { discoverSchema } from '../../../src/schema/discovery.js';
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
    it('reads the catalog once and samples in batches, a bounded number at a time, with the same result as table by table', async () => {
      const many = Array.from({ length: 12 }, (_, index) =>
        table(`main.t${String(index).padStart(2, '0')}`, ['id', 'label'], index, [{ id: index, label: `row ${index}` }]),
      );
      const batched = fixedWarehouse([...many].reverse(), { wholeCatalog: true, delayMs: 5 });
      const progress: SchemaIndexProgress[] = [];
      const tables = await discoverSchema(batched, { concurrency: 2, sampleBatch: 5, onProgress: (event) => progress.push(event) });
      expect(tables).toEqual(await discoverSchema(fixedWarehouse(many)));
      expect(tables.map((entry) => entry.samples)).toEqual(many.map((entry) => entry.samples));
      expect(batched.describeCalls).toBe(0);
      expect(batched.sampleCalls.map((call) => call.length)).toEqual([5, 5, 2]);
      expect(batched.maxConcurrentDescribes).toBe(2);
      expect(progress[0]).toEqual({ phase: 'listing_tables', done: 0, total: 0 });
      expect(progress).toContainEqual({ phase: 'listing_tables', done: 12, total: 12 });
      expect(progress.at(-1)).toEqual({ phase: 'schema_discovery', done: 12, total: 12 });
    });

    it('retries a failed or timed-out batch table by table, skipping and reporting only the bad tables', async () => {
      const warehouse = fixedWarehouse(shopTables(), {
        wholeCatalog: true,
        failing: new Set(['main.orders']),
        hanging: new Set(['main.products']),
      });
      const skipped: string[] = [];
      const tables = await discoverSchema(warehouse, {
        tableTimeoutMs: 50,
        sampleBatch: 3,
        onTableError: (ref, error) => skipped.push(`${ref.name}: ${error.message}`),
      });
      expect(tables.map((entry) => entry.name)).toEqual(['categories', 'customers', 'order_items', 'weather_daily']);
      expect(skipped.sort()).toEqual([
        'orders: permission denied for table main.orders',
        'products: describing main.products took longer than 50 ms; skipped',
      ]);
      // batched by shape: [orders, customers, weather_daily] and [categories, order_items, products] each hold a bad
      // table, so each failed whole and its tables were sampled one by one
      expect(warehouse.sampleCalls.map((call) => call.length)).toEqual([3, 3, 1, 1, 1, 1, 1, 1]);
    });

    it('fails when no table at all could be sampled, and stops when cancelled', async () => {
      const tables = shopTables();
      const broken = fixedWarehouse(tables, { wholeCatalog: true, failing: new Set(tables.map((entry) => entry.qualified)) });
      await expect(discoverSchema(broken)).rejects.toThrow(/could not describe any of the 6 tables; first error/);

      const controller = new AbortController();
      const slow = fixedWarehouse(tables, { wholeCatalog: true, delayMs: 20 });
      const pending = discoverSchema(slow, { signal: controller.signal, concurrency: 1, sampleBatch: 1 });
      setTimeout(() => controller.abort(), 30);
      await expect(pending).rejects.toBeInstanceOf(CancelledError);
      expect(slow.sampleCalls.length).toBeLessThan(6);
    });

    it('puts tables of the same column types in the same batch, and still returns them sorted by name', async () => {
      const narrow = ['main.a1', 'main.c1', 'main.e1'].map((name) => table(name, ['id', 'label']));
      const wide = ['main.b2', 'main.d2', 'main.f2'].map((name) => table(name, ['id', ['amount', 'DOUBLE'], ['created_at', 'TIMESTAMP']]));
      const warehouse = fixedWarehouse([...narrow, ...wide], { wholeCatalog: true });
      const tables = await discoverSchema(warehouse, { sampleBatch: 3, concurrency: 1 });
      expect(tables.map((entry) => entry.name)).toEqual(['a1', 'b2', 'c1', 'd2', 'e1', 'f2']);
      expect(warehouse.sampleCalls.map((call) => [...call].sort())).toEqual(
        expect.arrayContaining([
          ['main.a1', 'main.c1', 'main.e1'],
          ['main.b2', 'main.d2', 'main.f2'],
        ]),
      );
    });

    it('returns nothing for an empty warehouse', async () => {
      expect(await discoverSchema(fixedWarehouse([], { wholeCatalog: true }))).toEqual([]);
    });
  });
});
