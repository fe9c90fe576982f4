import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../../src/embed/local.js';
import type { Embedder } from '../../../src/embed/port.js';
import { AssayError, CancelledError } from '../../../src/errors/index.js';
import { schemaEmbeddingText, templateBlurb } from '../../../src/schema/blurb.js';
import {
  buildSchemaIndex,
  readSchemaIndexPointer,
  SCHEMA_POINTER_COLLECTION,
  tolerableBlurbFailures,
} from '../../../src/schema/index-builder.js';
import type { SchemaIndexProgress } from '../../../src/schema/progress.js';
import { searchTables } from '../../../src/schema/search.js';
import { createSchemaBudget } from '../../../src/schema/budget.js';
import { createEmbeddedVectorIndex } from '../../../src/vector/embedded.js';
import type { VectorIndex } from '../../../src/vector/port.js';
import { shopTables, table } from './fixtures.js';

const embedder = createLocalEmbedder();
let dir: string;
let vectorIndex: VectorIndex;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assay-schema-index-'));
  vectorIndex = createEmbeddedVectorIndex({ dir });
});
afterEach(async () => {
  await vectorIndex.close();
  await rm(dir, { recursive: true, force: true });
});

/** The local embedder, failing from its `failFromCall`-th call on. */
function embedderFailingFrom(failFromCall: number): Embedder {
  let calls = 0;
  return {
    id: embedder.id,
    dimensions: embedder.dimensions,
    embed(texts, options) {
      calls += 1;
      return calls >= failFromCall ? Promise.reject(new Error('embedding service unavailable')) : embedder.embed(texts, options);
    },
  };
}

const manyTables = (count: number) =>
  Array.from({ length: count }, (_, index) => table(`main.table_${String(index).padStart(3, '0')}`, ['id', 'value']));

describe('building the schema index', () => {
  it('indexes every table under a new collection, points the project at it, and reports the phases in order', async () => {
    const progress: SchemaIndexProgress[] = [];
    const build = await buildSchemaIndex({
      projectId: 'shop',
      tables: shopTables(),
      embedder,
      vectorIndex,
      areaKeywords: ['order'],
      onProgress: (event) => progress.push(event),
    });
    expect(build.pointer).toMatchObject({ projectId: 'shop', embedderId: 'local:hash-384', dimensions: 384, tableCount: 6 });
    expect(build.pointer.collection).toMatch(/^assay_schema_shop_b[0-9a-z]{13}$/);
    expect(await readSchemaIndexPointer(vectorIndex, 'shop')).toEqual(build.pointer);
    const phases = progress.map((event) => event.phase).filter((phase, index, all) => all[index - 1] !== phase);
    expect(phases).toEqual(['describing_tables', 'embedding', 'done']);
    expect(progress.filter((event) => event.phase === 'describing_tables').at(-1)).toEqual({
      phase: 'describing_tables',
      done: 6,
      total: 6,
    });

    const result = await searchTables('customer orders with amount and status', {
      embedder,
      index: vectorIndex,
      collection: build.pointer.collection,
      budget: createSchemaBudget(),
      topK: 3,
    });
    expect(result.hits[0]?.table).toBe('main.orders');
    const [hit] = await vectorIndex.search(build.pointer.collection, (await embedder.embed(['orders']))[0] as number[], {
      topK: 1,
      filter: { table: 'main.orders' },
    });
    expect(hit?.payload).toMatchObject({
      project_id: 'shop',
      table: 'main.orders',
      row_count: 1_234_567,
      column_count: 5,
      keywords: ['order'],
      blurb_source: 'template',
      embedding_model: 'local:hash-384',
    });
  });

  it('finds a table by a column name its blurb never mentions', async () => {
    const tables = [table('main.ledger', ['id', 'zorblax_code']), table('main.other', ['id', 'name'])];
    const build = await buildSchemaIndex({ projectId: 'p', tables, embedder, vectorIndex, blurb: async () => 'A table of things.' });
    const result = await searchTables('zorblax code', {
      embedder,
      index: vectorIndex,
      collection: build.pointer.collection,
      budget: createSchemaBudget(),
    });
    expect(result.hits[0]?.table).toBe('main.ledger');
  });

  it('swaps to the new build and deletes the old one, leaving other projects alone', async () => {
    const first = await buildSchemaIndex({ projectId: 'shop', tables: shopTables(), embedder, vectorIndex });
    const neighbour = await buildSchemaIndex({ projectId: 'shop_b', tables: shopTables(), embedder, vectorIndex });
    const second = await buildSchemaIndex({ projectId: 'shop', tables: shopTables().slice(0, 3), embedder, vectorIndex });
    expect(second.pointer.collection).not.toBe(first.pointer.collection);
    expect(second.replaced).toEqual([first.pointer.collection]);
    expect((await readSchemaIndexPointer(vectorIndex, 'shop'))?.tableCount).toBe(3);
    const names = (await vectorIndex.listCollections()).map((info) => info.name);
    expect(names).toEqual([SCHEMA_POINTER_COLLECTION, neighbour.pointer.collection, second.pointer.collection].sort());
  });

  it('keeps the previous index serving when a rebuild fails mid-way, and removes the half-built collection', async () => {
    const first = await buildSchemaIndex({ projectId: 'shop', tables: manyTables(10), embedder, vectorIndex });
    await expect(
      buildSchemaIndex({ projectId: 'shop', tables: manyTables(200), embedder: embedderFailingFrom(2), vectorIndex }),
    ).rejects.toThrow(/embedding service unavailable/);
    expect(await readSchemaIndexPointer(vectorIndex, 'shop')).toEqual(first.pointer);
    expect((await vectorIndex.listCollections()).map((info) => info.name).sort()).toEqual(
      [SCHEMA_POINTER_COLLECTION, first.pointer.collection].sort(),
    );
  });

  it('stops with CancelledError before writing anything when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      buildSchemaIndex({ projectId: 'shop', tables: shopTables(), embedder, vectorIndex, signal: controller.signal }),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(await vectorIndex.listCollections()).toEqual([]);
  });

  describe('when some blurbs fail', () => {
    const tables = manyTables(40);
    const failing = (count: number) => async (entry: { qualified: string }) => {
      const position = Number(entry.qualified.slice(-3));
      if (position < count) throw new Error(`model timeout on ${entry.qualified}`);
      return `A described table ${entry.qualified}.`;
    };

    it('tolerates up to 5 % (at least one), indexing those tables with the template blurb', async () => {
      expect([1, 19, 20, 40, 100, 2_000].map(tolerableBlurbFailures)).toEqual([1, 1, 1, 2, 5, 100]);
      const build = await buildSchemaIndex({ projectId: 'p', tables, embedder, vectorIndex, blurb: failing(2) });
      expect(build.blurbFailures.map((failure) => failure.table)).toEqual(['main.table_000', 'main.table_001']);
      const hits = await vectorIndex.search(build.pointer.collection, (await embedder.embed(['table 000']))[0] as number[], { topK: 40 });
      expect(hits).toHaveLength(40);
      const failed = hits.find((hit) => hit.id === 'main.table_000');
      expect(failed?.payload.blurb_source).toBe('template');
      expect(failed?.payload.blurb).toBe(templateBlurb(tables[0]!, { keywords: [], joins: [] }));
      expect(hits.find((hit) => hit.id === 'main.table_039')?.payload.blurb_source).toBe('writer');
    });

    it('fails above 5 %, naming how many, and writes nothing', async () => {
      const failure = await buildSchemaIndex({ projectId: 'p', tables, embedder, vectorIndex, blurb: failing(3) }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AssayError);
      expect((failure as AssayError).message).toMatch(
        /3 of 40 table descriptions failed \(at most 2 tolerated, 5 %\); first: main\.table_00\d: model timeout/,
      );
      expect(await vectorIndex.listCollections()).toEqual([]);
    });

    it('counts an oversized blurb as a failure', async () => {
      const build = await buildSchemaIndex({
        projectId: 'p',
        tables: tables.slice(0, 20),
        embedder,
        vectorIndex,
        blurb: async (entry) => (entry.qualified.endsWith('007') ? 'x'.repeat(5_000) : 'ok'),
      });
      expect(build.blurbFailures).toEqual([{ table: 'main.table_007', error: 'blurb of 5000 characters (limit 4000)' }]);
    });
  });
});

describe('the template blurb', () => {
  it('describes rows, columns by category, joins and keywords from the catalog alone, never from sample rows', () => {
    const orders = shopTables()[0]!;
    const blurb = templateBlurb(orders, { keywords: ['revenue'], joins: ['main.customers'] });
    expect(blurb).toBe(
      'main.orders: 1.2M rows, 5 columns. Keys: order_id, customer_id. Time: created_at. Metrics: amount. Dimensions: status. Likely joins: main.customers. Related to: revenue.',
    );
    const { samples: _samples, ...fromCatalog } = orders;
    expect(templateBlurb(fromCatalog, { keywords: ['revenue'], joins: ['main.customers'] })).toBe(blurb);
  });

  it('is embedded together with the table name and every column name', () => {
    const orders = shopTables()[0]!;
    expect(schemaEmbeddingText(orders, 'Blurb.')).toBe('main.orders\ncolumns: order_id, customer_id, amount, created_at, status\nBlurb.');
  });
});
