import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../../src/errors/index.js';
import { createSchemaCache, type SchemaCache } from '../../../src/schema/cache.js';
import { createSchemaBudget } from '../../../src/schema/budget.js';
import { SAMPLE_CELL_MAX_CHARS } from '../../../src/schema/constants.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import { lookupSchemaWithSamples } from '../../../src/schema/lookup.js';
import { createTableSampler, readSamples, type TableSamplerOptions } from '../../../src/schema/table-samples.js';
import { createEmbeddedRunStore } from '../../../src/store/index.js';
import type { RunStore } from '../../../src/store/port.js';
import type { TableSchema } from '../../../src/warehouse/port.js';
import { fixedWarehouse } from './fixed-warehouse.js';
import { shopTables, table } from './fixtures.js';

const HASH = 'b'.repeat(64);

/** The shop tables as discovery returns them: from the catalog, without samples. */
function unsampled(tables: readonly TableSchema[] = shopTables()): TableSchema[] {
  return tables.map(({ samples: _samples, ...description }) => description);
}

function byName(tables: readonly TableSchema[], name: string): TableSchema {
  const found = tables.find((entry) => entry.name === name);
  if (!found) throw new Error(`no table ${name} in the fixture`);
  return found;
}

describe('readSamples', () => {
  it('reads tables of one shape in one call, batches of a bounded size, a bounded number at a time', async () => {
    const many = Array.from({ length: 12 }, (_, index) =>
      table(`main.t${String(index).padStart(2, '0')}`, ['id', 'label'], index, [{ id: index, label: `row ${index}` }]),
    );
    const warehouse = fixedWarehouse(many, { wholeCatalog: true, delayMs: 5 });
    const samples = await readSamples(warehouse, unsampled(many), { concurrency: 2, sampleBatch: 5 });
    expect([...samples.keys()].sort()).toEqual(many.map((entry) => entry.qualified));
    for (const entry of many) expect(samples.get(entry.qualified)).toEqual(entry.samples);
    expect(warehouse.sampleCalls.map((call) => call.length)).toEqual([5, 5, 2]);
    expect(warehouse.maxConcurrentDescribes).toBe(2);
    expect(warehouse.describeCalls).toBe(0);
  });

  it('retries a failed or timed-out batch table by table, leaving out and reporting only the bad tables', async () => {
    const warehouse = fixedWarehouse(shopTables(), {
      wholeCatalog: true,
      failing: new Set(['main.orders']),
      hanging: new Set(['main.products']),
    });
    const skipped: string[] = [];
    const samples = await readSamples(warehouse, unsampled(), {
      tableTimeoutMs: 50,
      sampleBatch: 3,
      onTableError: (ref, error) => skipped.push(`${ref.name}: ${error.message}`),
    });
    expect([...samples.keys()].sort()).toEqual(['main.categories', 'main.customers', 'main.order_items', 'main.weather_daily']);
    expect(skipped.sort()).toEqual([
      'orders: permission denied for table main.orders',
      'products: reading sample rows of main.products took longer than 50 ms; skipped',
    ]);
    // by shape: [orders, customers, weather_daily] and [categories, order_items, products] each hold a bad table
    expect(warehouse.sampleCalls.map((call) => call.length)).toEqual([3, 3, 1, 1, 1, 1, 1, 1]);
  });

  it('puts tables of the same column types in the same call', async () => {
    const narrow = ['main.a1', 'main.c1', 'main.e1'].map((name) => table(name, ['id', 'label']));
    const wide = ['main.b2', 'main.d2', 'main.f2'].map((name) => table(name, ['id', ['amount', 'DOUBLE'], ['created_at', 'TIMESTAMP']]));
    const warehouse = fixedWarehouse([...narrow, ...wide], { wholeCatalog: true });
    await readSamples(warehouse, unsampled([...narrow, ...wide]), { sampleBatch: 3, concurrency: 1 });
    expect(warehouse.sampleCalls.map((call) => [...call].sort())).toEqual(
      expect.arrayContaining([
        ['main.a1', 'main.c1', 'main.e1'],
        ['main.b2', 'main.d2', 'main.f2'],
      ]),
    );
  });

  it('falls back to describeTable per table on a warehouse without sampleTables', async () => {
    const warehouse = fixedWarehouse(shopTables());
    const samples = await readSamples(warehouse, unsampled().slice(0, 2));
    expect(warehouse.describeCalls).toBe(2);
    expect(samples.get('main.orders')).toEqual(byName(shopTables(), 'orders').samples);
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    const slow = fixedWarehouse(shopTables(), { wholeCatalog: true, delayMs: 20 });
    const pending = readSamples(slow, unsampled(), { signal: controller.signal, concurrency: 1, sampleBatch: 1 });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    expect(slow.sampleCalls.length).toBeLessThan(6);
  });
});

describe('the table sampler', () => {
  let dir: string;
  let store: RunStore;
  let cache: SchemaCache;
  let builtAt: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'assay-table-samples-'));
    store = createEmbeddedRunStore({ dir });
    cache = createSchemaCache({ store });
    ({ builtAt } = await cache.put('shop', HASH, unsampled()));
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const samplerOver = (warehouse: TableSamplerOptions['warehouse'], generation = builtAt, extra: Partial<TableSamplerOptions> = {}) =>
    createTableSampler({ warehouse, cache: { cache, projectId: 'shop', warehouseHash: HASH, builtAt: generation }, ...extra });

  it('reads a table from the warehouse once, then serves it from memory', async () => {
    const warehouse = fixedWarehouse(shopTables(), { wholeCatalog: true });
    const sampler = samplerOver(warehouse);
    const orders = byName(unsampled(), 'orders');
    const first = await sampler.samplesOf([orders]);
    const second = await sampler.samplesOf([orders]);
    expect(first.get('main.orders')).toEqual(byName(shopTables(), 'orders').samples);
    expect(second).toEqual(first);
    expect(warehouse.sampleCalls).toEqual([['main.orders']]);
  });

  it('shares one read between concurrent requests for the same table', async () => {
    const warehouse = fixedWarehouse(shopTables(), { wholeCatalog: true, delayMs: 10 });
    const sampler = samplerOver(warehouse);
    const tables = unsampled();
    const [left, right] = await Promise.all([sampler.samplesOf(tables.slice(0, 3)), sampler.samplesOf(tables.slice(1, 4))]);
    expect(warehouse.sampleCalls.flat().sort()).toEqual(
      tables
        .slice(0, 4)
        .map((entry) => entry.qualified)
        .sort(),
    );
    expect(left.get(tables[1]?.qualified ?? '')).toEqual(right.get(tables[1]?.qualified ?? ''));
  });

  it('serves another process from the shared cache without touching the warehouse', async () => {
    const first = fixedWarehouse(shopTables(), { wholeCatalog: true });
    await samplerOver(first).samplesOf(unsampled().slice(0, 2));
    const second = fixedWarehouse(shopTables(), { wholeCatalog: true });
    const reads: string[][] = [];
    const samples = await samplerOver(second, builtAt, { onWarehouseRead: (tables) => reads.push([...tables]) }).samplesOf(
      unsampled().slice(0, 3),
    );
    expect(second.sampleCalls).toEqual([[unsampled()[2]?.qualified]]);
    expect(reads).toEqual([[unsampled()[2]?.qualified]]);
    expect(samples.get('main.orders')).toEqual(byName(shopTables(), 'orders').samples);
  });

  it('reads again once the schema is rebuilt or invalidated: samples go with their schema', async () => {
    const orders = [byName(unsampled(), 'orders')];
    await samplerOver(fixedWarehouse(shopTables(), { wholeCatalog: true })).samplesOf(orders);
    expect((await cache.getSamples('shop', HASH, builtAt, ['main.orders'])).size).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 2)); // a rebuild has a later built_at
    const rebuilt = await cache.put('shop', HASH, unsampled());
    expect(rebuilt.builtAt).not.toBe(builtAt);
    expect((await cache.getSamples('shop', HASH, builtAt, ['main.orders'])).size).toBe(0);
    const afterRebuild = fixedWarehouse(shopTables(), { wholeCatalog: true });
    await samplerOver(afterRebuild, rebuilt.builtAt).samplesOf(orders);
    expect(afterRebuild.sampleCalls).toEqual([['main.orders']]);

    await cache.invalidate('shop');
    expect((await cache.getSamples('shop', HASH, rebuilt.builtAt, ['main.orders'])).size).toBe(0);
  });

  it('keeps no failure: a table that could not be read is empty now and read again next time', async () => {
    const failing = new Set(['main.orders']);
    const warehouse = fixedWarehouse(shopTables(), { wholeCatalog: true, failing });
    const errors: string[] = [];
    const sampler = samplerOver(warehouse, builtAt, { onTableError: (ref) => errors.push(ref.name) });
    const orders = [byName(unsampled(), 'orders')];
    expect((await sampler.samplesOf(orders)).get('main.orders')).toEqual([]);
    expect(errors).toEqual(['orders']);
    failing.clear();
    expect((await sampler.samplesOf(orders)).get('main.orders')).toEqual(byName(shopTables(), 'orders').samples);
    expect(warehouse.sampleCalls).toEqual([['main.orders'], ['main.orders']]);
  });

  it('keeps long strings cut, so one blob cannot bloat the cache', async () => {
    const blob = 'x'.repeat(SAMPLE_CELL_MAX_CHARS * 5);
    const wide = table('main.docs', ['id', 'body'], 1, [{ id: 1, body: blob }]);
    const warehouse = fixedWarehouse([wide], { wholeCatalog: true });
    const samples = await samplerOver(warehouse).samplesOf(unsampled([wide]));
    expect(samples.get('main.docs')).toEqual([{ id: 1, body: blob.slice(0, SAMPLE_CELL_MAX_CHARS) }]);
    expect(await cache.getSamples('shop', HASH, builtAt, ['main.docs'])).toEqual(samples);
  });

  it('uses the samples a table already carries and reads nothing for it', async () => {
    const warehouse = fixedWarehouse(shopTables(), { wholeCatalog: true });
    const samples = await samplerOver(warehouse).samplesOf([byName(shopTables(), 'orders')]);
    expect(samples.get('main.orders')).toEqual(byName(shopTables(), 'orders').samples);
    expect(warehouse.sampleCalls).toEqual([]);
  });
});

describe('lookup_schema with samples on demand', () => {
  it('samples only the tables the reply shows, never ones already shown or not found', async () => {
    const warehouse = fixedWarehouse(shopTables(), { wholeCatalog: true });
    const tables = await discoverSchema(warehouse);
    const sampler = createTableSampler({ warehouse });
    const budget = { ...createSchemaBudget(), fetched: ['main.customers'] };
    const result = await lookupSchemaWithSamples(['orders', 'main.customers', 'nope'], { tables, budget }, sampler);
    expect(result.found).toEqual(['main.orders']);
    expect(warehouse.sampleCalls).toEqual([['main.orders']]);
    expect(result.text).toContain('Sample rows (2):');
    expect(result.text).toContain('"paid"');
  });

  it('asks the warehouse nothing when nothing new is shown', async () => {
    const warehouse = fixedWarehouse(shopTables(), { wholeCatalog: true });
    const tables = await discoverSchema(warehouse);
    const result = await lookupSchemaWithSamples(['nope'], { tables, budget: createSchemaBudget() }, createTableSampler({ warehouse }));
    expect(result.found).toEqual([]);
    expect(warehouse.sampleCalls).toEqual([]);
  });
});
