import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../../src/embed/local.js';
import type { Embedder } from '../../../src/embed/port.js';
import { CancelledError } from '../../../src/errors/index.js';
import { createSchemaBudget } from '../../../src/schema/budget.js';
import { DEFAULT_MAX_SEARCHES_PER_RUN, DEFAULT_SEARCH_TOP_K, MAX_SEARCH_TOP_K } from '../../../src/schema/constants.js';
import { clampSearchTopK, searchTables } from '../../../src/schema/search.js';
import { createEmbeddedVectorIndex } from '../../../src/vector/embedded.js';
import type { VectorIndex } from '../../../src/vector/port.js';

const embedder = createLocalEmbedder();
const collection = 'assay_schema_test';
let dir: string;
let index: VectorIndex;

const described = [
  ['main.cart_events', 2_000_000, 'Cart events: one row per add-to-cart or cart abandonment, with session_id and product_id.'],
  ['main.orders', 1_200_000, 'Orders placed by customers, with amount and status.'],
  ['main.weather_daily', 400, 'Daily temperature and rainfall per city.'],
  ...Array.from({ length: 40 }, (_, n) => [
    `main.filler_${String(n).padStart(2, '0')}`,
    n * 10,
    `Filler table number ${n} about inventory levels.`,
  ]),
] as Array<[string, number, string]>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assay-search-'));
  index = createEmbeddedVectorIndex({ dir });
  await index.ensureCollection(collection, embedder.dimensions);
  const vectors = await embedder.embed(described.map(([name, , blurb]) => `${name}\n${blurb}`));
  await index.upsert(
    collection,
    described.map(([name, rows, blurb], position) => ({
      id: name,
      vector: vectors[position] as number[],
      payload: { table: name, row_count: rows, blurb },
    })),
  );
});

afterAll(async () => {
  await index.close();
  await rm(dir, { recursive: true, force: true });
});

describe('search_tables', () => {
  it('ranks the matching table first and replies with rank, rows, score, blurb, a lookup hint and the budget', async () => {
    const result = await searchTables('abandoned cart sessions', { embedder, index, collection, budget: createSchemaBudget() });
    expect(result.hits[0]?.table).toBe('main.cart_events');
    expect(result.text).toMatch(
      /^Search results for "abandoned cart sessions":\n<<<WAREHOUSE_DATA\n1\. main\.cart_events — 2M rows — score=0\.\d{3}\n {3}Cart events: one row/,
    );
    expect(result.text).toContain('Call lookup_schema');
    expect(
      result.text.endsWith(`search_tables budget: 1/${DEFAULT_MAX_SEARCHES_PER_RUN} calls used, ${DEFAULT_MAX_SEARCHES_PER_RUN - 1} left.`),
    ).toBe(true);
    expect(result.budget).toEqual({ lookups_used: 0, searches_used: 1, fetched: [] });
  });

  it('does not let a big table outrank a better match through its size', async () => {
    const result = await searchTables('daily temperature rainfall per city', {
      embedder,
      index,
      collection,
      budget: createSchemaBudget(),
      topK: 3,
    });
    expect(result.hits[0]?.table).toBe('main.weather_daily');
  });

  it(`returns ${DEFAULT_SEARCH_TOP_K} hits by default and never more than ${MAX_SEARCH_TOP_K}`, async () => {
    expect((await searchTables('inventory levels', { embedder, index, collection, budget: createSchemaBudget() })).hits).toHaveLength(
      DEFAULT_SEARCH_TOP_K,
    );
    expect(
      (await searchTables('inventory levels', { embedder, index, collection, budget: createSchemaBudget(), topK: 500 })).hits,
    ).toHaveLength(MAX_SEARCH_TOP_K);
    expect([undefined, Number.NaN, 0, -3, 2.7, 30, 31].map(clampSearchTopK)).toEqual([10, 10, 1, 1, 2, 30, 30]);
  });

  it('refuses without charging once the run budget is spent', async () => {
    const budget = { lookups_used: 0, searches_used: DEFAULT_MAX_SEARCHES_PER_RUN, fetched: [] };
    const result = await searchTables('orders', { embedder, index, collection, budget });
    expect(result.hits).toEqual([]);
    expect(result.debited).toBe(false);
    expect(result.budget).toBe(budget);
    expect(result.text).toMatch(/^search_tables budget exhausted/);
  });

  it('says so when nothing matches', async () => {
    const empty = 'assay_schema_empty';
    await index.ensureCollection(empty, embedder.dimensions);
    const result = await searchTables('orders', { embedder, index, collection: empty, budget: createSchemaBudget() });
    expect(result.hits).toEqual([]);
    expect(result.failed).toBe(false);
    expect(result.text).toContain('no matching tables');
  });

  it('turns a failing embedder or a missing index into a reply, charged to the budget', async () => {
    const broken: Embedder = {
      id: 'broken',
      dimensions: embedder.dimensions,
      embed: () => Promise.reject(new Error('connection refused')),
    };
    const failed = await searchTables('orders', { embedder: broken, index, collection, budget: createSchemaBudget() });
    expect(failed.failed).toBe(true);
    expect(failed.text).toMatch(/^search_tables failed: connection refused\./);
    expect(failed.budget.searches_used).toBe(1);
    const missing = await searchTables('orders', { embedder, index, collection: 'assay_schema_missing', budget: createSchemaBudget() });
    expect(missing.failed).toBe(true);
    expect(missing.text).toContain('does not exist');
  });

  it('asks for a phrase when the query is blank', async () => {
    const result = await searchTables('   ', { embedder, index, collection, budget: createSchemaBudget() });
    expect(result.failed).toBe(true);
    expect(result.text).toMatch(/^search_tables needs a non-empty description/);
  });

  it('throws on cancellation instead of replying', async () => {
    const controller = new AbortController();
    const slow: Embedder = {
      id: 'slow',
      dimensions: embedder.dimensions,
      embed: () => {
        controller.abort();
        return Promise.reject(new Error('aborted'));
      },
    };
    await expect(
      searchTables('orders', { embedder: slow, index, collection, budget: createSchemaBudget(), signal: controller.signal }),
    ).rejects.toBeInstanceOf(CancelledError);
  });
});
