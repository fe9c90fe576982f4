/** The VectorIndex contract: every adapter must pass these, so callers never care which one they got. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../../../src/errors/index.js';
import type { VectorIndex } from '../../../src/vector/port.js';

export interface ContractTarget {
  create(): Promise<VectorIndex>;
  cleanup?(): Promise<void>;
}

/** A unique name per test, so runs against a shared server never collide. */
function collectionName(label: string): string {
  return `contract_${label}_${randomBytes(4).toString('hex')}`;
}

export function vectorIndexContract(adapter: string, target: ContractTarget): void {
  describe(`the ${adapter} vector index`, () => {
    let index: VectorIndex;
    const created: string[] = [];
    const fresh = async (label: string, dimensions = 3): Promise<string> => {
      const name = collectionName(label);
      created.push(name);
      await index.ensureCollection(name, dimensions);
      return name;
    };

    beforeAll(async () => {
      index = await target.create();
    });

    afterAll(async () => {
      for (const name of created) await index.deleteCollection(name);
      await index.close();
      await target.cleanup?.();
    });

    describe('when a collection is created', () => {
      it('lists it with its creation time and no points, and creating it again is a no-op', async () => {
        const before = Date.now();
        const name = await fresh('create');
        await index.ensureCollection(name, 3);
        const info = (await index.listCollections()).find((collection) => collection.name === name);
        expect(info).toBeDefined();
        expect(info?.pointCount).toBe(0);
        expect(Date.parse(info?.createdAt ?? '')).toBeGreaterThanOrEqual(before - 5_000);
      });

      it('refuses to re-create it with another size', async () => {
        const name = await fresh('resize');
        await expect(index.ensureCollection(name, 4)).rejects.toBeInstanceOf(ConflictError);
      });

      it('refuses names that are not safe everywhere', async () => {
        await expect(index.ensureCollection('../escape', 3)).rejects.toBeInstanceOf(ValidationError);
      });
    });

    describe('when points are searched', () => {
      it('returns the nearest by cosine first, with the score and payload', async () => {
        const name = await fresh('nearest');
        await index.upsert(name, [
          { id: 'main.orders', vector: [1, 0, 0], payload: { table: 'main.orders', rows: 10 } },
          { id: 'main.customers', vector: [0.6, 0.8, 0], payload: { table: 'main.customers', rows: 5 } },
          { id: 'main.weather', vector: [0, 0, 1], payload: { table: 'main.weather', rows: 1 } },
        ]);
        const hits = await index.search(name, [2, 0, 0], { topK: 2 });
        expect(hits.map((hit) => hit.id)).toEqual(['main.orders', 'main.customers']);
        expect(hits[0]?.score).toBeCloseTo(1, 5);
        expect(hits[1]?.score).toBeCloseTo(0.6, 5);
        expect(hits[0]?.payload).toEqual({ table: 'main.orders', rows: 10 });
      });

      it('drops hits below minScore and honours topK', async () => {
        const name = await fresh('minscore');
        await index.upsert(name, [
          { id: 'a', vector: [1, 0, 0], payload: {} },
          { id: 'b', vector: [0.6, 0.8, 0], payload: {} },
          { id: 'c', vector: [0, 1, 0], payload: {} },
        ]);
        expect((await index.search(name, [1, 0, 0], { topK: 10, minScore: 0.5 })).map((hit) => hit.id)).toEqual(['a', 'b']);
        expect(await index.search(name, [1, 0, 0], { topK: 1 })).toHaveLength(1);
      });

      it('orders equal scores by id', async () => {
        const name = await fresh('ties');
        await index.upsert(name, [
          { id: 'zeta', vector: [0, 1, 0], payload: {} },
          { id: 'alpha', vector: [0, 2, 0], payload: {} },
          { id: 'mid', vector: [0, 3, 0], payload: {} },
        ]);
        const hits = await index.search(name, [0, 1, 0], { topK: 3 });
        expect(hits.map((hit) => hit.id)).toEqual(['alpha', 'mid', 'zeta']);
      });

      it('filters on exact payload values, including membership in an array field', async () => {
        const name = await fresh('filter');
        await index.upsert(name, [
          { id: 'p1', vector: [1, 0, 0], payload: { project_id: 'p', active: true, tags: ['sales', 'core'], rank: 1 } },
          { id: 'p2', vector: [1, 0.1, 0], payload: { project_id: 'p', active: false, tags: ['ops'], rank: 2 } },
          { id: 'q1', vector: [1, 0, 0], payload: { project_id: 'q', active: true, tags: ['sales'], rank: 1 } },
        ]);
        const ids = async (filter: Record<string, string | number | boolean>): Promise<string[]> =>
          (await index.search(name, [1, 0, 0], { topK: 10, filter })).map((hit) => hit.id);
        expect(await ids({ project_id: 'p' })).toEqual(['p1', 'p2']);
        expect(await ids({ project_id: 'p', active: true })).toEqual(['p1']);
        expect(await ids({ tags: 'sales' })).toEqual(['p1', 'q1']);
        expect(await ids({ rank: 2 })).toEqual(['p2']);
        expect(await ids({ project_id: 'nobody' })).toEqual([]);
      });

      it('rejects a query vector of the wrong size', async () => {
        const name = await fresh('dims');
        await expect(index.search(name, [1, 0], { topK: 1 })).rejects.toBeInstanceOf(ValidationError);
      });
    });

    describe('when points are upserted', () => {
      it('replaces a point with the same id and round-trips any string id and payload types', async () => {
        const name = await fresh('upsert');
        const id = 'run-1/step 3: "orders" ✓';
        await index.upsert(name, [{ id, vector: [1, 0, 0], payload: { text: 'old' } }]);
        const payload = { text: 'new', count: 3, ratio: 0.5, flag: false, none: null, words: ['a', 'b'], numbers: [1, 2] };
        await index.upsert(name, [{ id, vector: [0, 1, 0], payload }]);
        const hits = await index.search(name, [0, 1, 0], { topK: 5 });
        expect(hits).toHaveLength(1);
        expect(hits[0]?.id).toBe(id);
        expect(hits[0]?.payload).toEqual(payload);
        expect(hits[0]?.score).toBeCloseTo(1, 5);
        expect((await index.listCollections()).find((collection) => collection.name === name)?.pointCount).toBe(1);
      });

      it('rejects vectors of the wrong size and leaves the collection unchanged', async () => {
        const name = await fresh('baddims');
        await expect(index.upsert(name, [{ id: 'x', vector: [1, 0], payload: {} }])).rejects.toBeInstanceOf(ValidationError);
        expect(await index.search(name, [1, 0, 0], { topK: 5 })).toEqual([]);
      });

      it('refuses a collection that does not exist', async () => {
        await expect(index.upsert(collectionName('missing'), [{ id: 'x', vector: [1, 0, 0], payload: {} }])).rejects.toBeInstanceOf(
          NotFoundError,
        );
      });
    });

    describe('when a collection is deleted', () => {
      it('is gone from the listing and from search, and deleting it again is a no-op', async () => {
        const name = await fresh('delete');
        await index.upsert(name, [{ id: 'x', vector: [1, 0, 0], payload: {} }]);
        await index.deleteCollection(name);
        await index.deleteCollection(name);
        expect((await index.listCollections()).map((collection) => collection.name)).not.toContain(name);
        await expect(index.search(name, [1, 0, 0], { topK: 1 })).rejects.toBeInstanceOf(NotFoundError);
      });
    });
  });
}
