import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors/index.js';
import { createSchemaCache } from '../../../src/schema/cache.js';
import { createEmbeddedRunStore } from '../../../src/store/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { shopTables } from './fixtures.js';

let dir: string;
let store: RunStore;
let clock: number;
const DAY = 24 * 60 * 60 * 1000;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assay-schema-cache-'));
  store = createEmbeddedRunStore({ dir });
  clock = Date.parse('2025-03-01T00:00:00Z');
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the schema cache', () => {
  const hash = 'a'.repeat(64);

  it('is missing before anything is stored', async () => {
    const cache = createSchemaCache({ store, now: () => clock });
    expect(await cache.get('shop', hash)).toEqual({ status: 'missing', reason: 'absent' });
  });

  it('returns what was stored as fresh within the TTL, and as stale (with the tables) after it', async () => {
    const cache = createSchemaCache({ store, now: () => clock });
    const { builtAt } = await cache.put('shop', hash, shopTables());
    expect(builtAt).toBe('2025-03-01T00:00:00.000Z');
    clock += 6 * DAY;
    const fresh = await cache.get('shop', hash);
    expect(fresh).toMatchObject({ status: 'fresh', builtAt, ageMs: 6 * DAY });
    expect(fresh.status !== 'missing' && fresh.tables).toEqual(shopTables());
    clock += 2 * DAY;
    const stale = await cache.get('shop', hash);
    expect(stale.status).toBe('stale');
    expect(stale.status !== 'missing' && stale.tables.length).toBe(6);
  });

  it('keeps the comments of tables and columns', async () => {
    const cache = createSchemaCache({ store, now: () => clock });
    const [orders, ...rest] = shopTables();
    const commented = {
      ...orders!,
      comment: 'Web orders',
      columns: orders!.columns.map((column) => ({ ...column, comment: `${column.name}!` })),
    };
    await cache.put('shop', hash, [commented, ...rest]);
    const entry = await cache.get('shop', hash);
    expect(entry.status !== 'missing' && entry.tables[0]).toEqual(commented);
  });

  it('rebuilds an entry of the format before comments were kept', async () => {
    const cache = createSchemaCache({ store, now: () => clock });
    await cache.put('shop', hash, shopTables());
    const stored = (await store.cacheGet('schema', `shop:${hash}`))?.value as Record<string, unknown>;
    await store.cachePut('schema', `shop:${hash}`, { ...stored, version: 1 }, { ttlMs: DAY });
    expect(await cache.get('shop', hash)).toEqual({ status: 'missing', reason: 'unreadable' });
  });

  it('keys entries by project and warehouse', async () => {
    const cache = createSchemaCache({ store, now: () => clock });
    await cache.put('shop', hash, shopTables());
    expect((await cache.get('other', hash)).status).toBe('missing');
    expect((await cache.get('shop', 'b'.repeat(64))).status).toBe('missing');
  });

  it('treats an entry of another shape as missing so the caller rebuilds it', async () => {
    const cache = createSchemaCache({ store, now: () => clock });
    await cache.put('shop', hash, shopTables());
    await store.cachePut('schema', `shop:${hash}`, { version: 1, tables: [{ oops: true }] }, { ttlMs: DAY });
    expect(await cache.get('shop', hash)).toEqual({ status: 'missing', reason: 'unreadable' });
  });

  it('forgets one warehouse or the whole project on invalidate', async () => {
    const cache = createSchemaCache({ store, now: () => clock });
    const other = 'b'.repeat(64);
    await cache.put('shop', hash, shopTables());
    await cache.put('shop', other, shopTables());
    await cache.invalidate('shop', hash);
    expect((await cache.get('shop', hash)).status).toBe('missing');
    expect((await cache.get('shop', other)).status).toBe('fresh');
    await cache.invalidate('shop');
    expect((await cache.get('shop', other)).status).toBe('missing');
  });

  it('refuses project ids that are not plain keys', async () => {
    const cache = createSchemaCache({ store });
    await expect(cache.get('../etc', hash)).rejects.toBeInstanceOf(ValidationError);
  });
});
