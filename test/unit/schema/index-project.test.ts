import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../../src/embed/local.js';
import { NotFoundError } from '../../../src/errors/index.js';
import { createSchemaCache, type SchemaCache } from '../../../src/schema/cache.js';
import { createEmbeddedRunStore } from '../../../src/store/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { assessSchemaIndex, indexProjectSchema } from '../../../src/schema/index-project.js';
import { createEmbeddedVectorIndex } from '../../../src/vector/embedded.js';
import type { VectorIndex } from '../../../src/vector/port.js';
import { fixedWarehouse } from './fixed-warehouse.js';
import { shopTables } from './fixtures.js';

const embedder = createLocalEmbedder();
const DAY = 24 * 60 * 60 * 1000;
let dir: string;
let clock: number;
let cache: SchemaCache;
let store: RunStore;
let vectorIndex: VectorIndex;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assay-index-project-'));
  clock = Date.now();
  store = createEmbeddedRunStore({ dir: join(dir, 'store') });
  cache = createSchemaCache({ store, now: () => clock });
  vectorIndex = createEmbeddedVectorIndex({ dir: join(dir, 'vectors') });
});
afterEach(async () => {
  await vectorIndex.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('indexing a project', () => {
  const warehouse = fixedWarehouse(shopTables());
  const hash = 'c'.repeat(64);

  it('describes the warehouse once, then reuses the fresh cache, and re-describes on refresh', async () => {
    const calls = warehouse.describeCalls;
    const first = await indexProjectSchema({ projectId: 'shop', warehouse, warehouseHash: hash, cache, embedder, vectorIndex });
    expect(first.tablesFrom).toBe('warehouse');
    expect(warehouse.describeCalls - calls).toBe(6);
    const second = await indexProjectSchema({ projectId: 'shop', warehouse, warehouseHash: hash, cache, embedder, vectorIndex });
    expect(second.tablesFrom).toBe('cache');
    expect(warehouse.describeCalls - calls).toBe(6);
    expect(second.tables).toEqual(first.tables);
    const third = await indexProjectSchema({
      projectId: 'shop',
      warehouse,
      warehouseHash: hash,
      cache,
      embedder,
      vectorIndex,
      refresh: true,
    });
    expect(third.tablesFrom).toBe('warehouse');
    expect(warehouse.describeCalls - calls).toBe(12);
  });

  it('refuses a warehouse without tables', async () => {
    await expect(
      indexProjectSchema({ projectId: 'empty', warehouse: fixedWarehouse([]), warehouseHash: hash, cache, embedder, vectorIndex }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('is assessed as ready only with a fresh cache, an index, and the same embedder', async () => {
    const assess = (embedderId = embedder.id) =>
      assessSchemaIndex({ projectId: 'shop', warehouseHash: hash, cache, vectorIndex, embedderId });
    expect(await assess()).toMatchObject({ ready: false, reason: 'cache_missing' });
    await cache.put('shop', hash, shopTables());
    expect(await assess()).toMatchObject({ ready: false, reason: 'index_missing' });
    const { build } = await indexProjectSchema({ projectId: 'shop', warehouse, warehouseHash: hash, cache, embedder, vectorIndex });
    expect(await assess()).toMatchObject({ ready: true, collection: build.pointer.collection });
    expect(await assess('openai:text-embedding-3-small')).toMatchObject({ ready: false, reason: 'embedder_changed' });
    clock += 8 * DAY;
    const stale = await assess();
    expect(stale).toMatchObject({ ready: false, reason: 'cache_stale' });
    expect(stale.tables).toHaveLength(6);
  });
});
