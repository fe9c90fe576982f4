import { describe, expect, it } from 'vitest';
import { fromQdrantPayload, qdrantFilter, qdrantPointId, QDRANT_ORIGINAL_ID_KEY } from '../../../src/vector/qdrant.js';
import { createVectorIndex } from '../../../src/vector/index.js';
import { ConfigError } from '../../../src/errors/index.js';

describe('mapping Assay ids and filters to Qdrant', () => {
  it('turns any string id into the same UUID every time, and different ids into different UUIDs', () => {
    const id = qdrantPointId('main.orders');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(qdrantPointId('main.orders')).toBe(id);
    expect(qdrantPointId('main.Orders')).not.toBe(id);
  });

  it('gives back the original id and strips it from the payload', () => {
    expect(fromQdrantPayload('uuid', { [QDRANT_ORIGINAL_ID_KEY]: 'main.orders', table: 'main.orders' })).toEqual({
      id: 'main.orders',
      payload: { table: 'main.orders' },
    });
    expect(fromQdrantPayload(7, null)).toEqual({ id: '7', payload: {} });
  });

  it('expresses an exact-match filter as must/match clauses and omits an empty one', () => {
    expect(qdrantFilter({ project_id: 'p', active: true })).toEqual({
      must: [
        { key: 'project_id', match: { value: 'p' } },
        { key: 'active', match: { value: true } },
      ],
    });
    expect(qdrantFilter({})).toBeUndefined();
  });
});

describe('createVectorIndex', () => {
  it('accepts embedded and a URL and rejects anything else', async () => {
    await createVectorIndex('embedded', { dataDir: '/tmp/assay-unused' }).close();
    await createVectorIndex('http://localhost:6333', { dataDir: '/tmp/assay-unused' }).close();
    expect(() => createVectorIndex('qdrant', { dataDir: '.' })).toThrow(ConfigError);
  });
});
