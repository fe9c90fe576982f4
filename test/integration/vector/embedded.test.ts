import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedVectorIndex } from '../../../src/vector/embedded.js';
import { vectorIndexContract } from './contract.js';

let contractDir = '';
vectorIndexContract('embedded', {
  async create() {
    contractDir = await mkdtemp(join(tmpdir(), 'assay-vector-contract-'));
    return createEmbeddedVectorIndex({ dir: contractDir });
  },
  async cleanup() {
    await rm(contractDir, { recursive: true, force: true });
  },
});

describe('the embedded vector index on disk', () => {
  const dirs: string[] = [];
  const tempDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'assay-vector-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('keeps collections across restarts, with their creation time, exactly', async () => {
    const dir = await tempDir();
    const first = createEmbeddedVectorIndex({ dir });
    await first.ensureCollection('assay_schema_p', 4);
    await first.upsert('assay_schema_p', [
      { id: 'main.orders', vector: [0.1, 0.2, 0.3, 0.4], payload: { table: 'main.orders' } },
      { id: 'main.users', vector: [0.4, 0.3, 0.2, 0.1], payload: { table: 'main.users' } },
    ]);
    const before = await first.search('assay_schema_p', [0.1, 0.2, 0.3, 0.5], { topK: 2 });
    const [infoBefore] = await first.listCollections();
    await first.close();

    const second = createEmbeddedVectorIndex({ dir });
    expect(await second.search('assay_schema_p', [0.1, 0.2, 0.3, 0.5], { topK: 2 })).toEqual(before);
    expect(await second.listCollections()).toEqual([infoBefore]);
    await second.close();
  });

  it('sees writes made by another instance on the same directory', async () => {
    const dir = await tempDir();
    const reader = createEmbeddedVectorIndex({ dir });
    const writer = createEmbeddedVectorIndex({ dir });
    await writer.ensureCollection('shared', 2);
    await reader.search('shared', [1, 0], { topK: 1 });
    await writer.upsert('shared', [{ id: 'late', vector: [1, 0], payload: {} }]);
    expect((await reader.search('shared', [1, 0], { topK: 1 })).map((hit) => hit.id)).toEqual(['late']);
  });

  it('ignores temp files left by a crash mid-write and leaves no temp files itself', async () => {
    const dir = await tempDir();
    const index = createEmbeddedVectorIndex({ dir });
    await index.ensureCollection('c', 2);
    await index.upsert('c', [{ id: 'a', vector: [1, 0], payload: {} }]);
    expect((await readdir(dir)).filter((file) => file.endsWith('.tmp'))).toEqual([]);
    await writeFile(join(dir, 'c.collection.json.999.0.tmp'), '{"half":');
    expect((await index.listCollections()).map((collection) => [collection.name, collection.pointCount])).toEqual([['c', 1]]);
  });

  it('serialises concurrent upserts so none is lost', async () => {
    const dir = await tempDir();
    const index = createEmbeddedVectorIndex({ dir });
    await index.ensureCollection('busy', 2);
    await Promise.all(Array.from({ length: 20 }, (_, n) => index.upsert('busy', [{ id: `p${n}`, vector: [1, n], payload: { n } }])));
    const reopened = createEmbeddedVectorIndex({ dir });
    expect((await reopened.listCollections())[0]?.pointCount).toBe(20);
  });

  it('appends upserts to a journal instead of rewriting the collection, and reads both back', async () => {
    const dir = await tempDir();
    const index = createEmbeddedVectorIndex({ dir });
    await index.ensureCollection('steps', 3);
    const file = join(dir, 'steps.collection.json');
    const before = await readFile(file, 'utf8');
    for (let n = 0; n < 30; n++) await index.upsert('steps', [{ id: `step-${n}`, vector: [1, n, 0], payload: { step: n } }]);
    await index.upsert('steps', [{ id: 'step-3', vector: [0, 0, 1], payload: { step: 3, redone: true } }]);
    expect(await readFile(file, 'utf8')).toBe(before);
    expect((await stat(join(dir, 'steps.collection.jsonl'))).size).toBeGreaterThan(0);
    const hits = await index.search('steps', [0, 0, 1], { topK: 1 });
    await index.close();

    const reopened = createEmbeddedVectorIndex({ dir });
    expect(await reopened.search('steps', [0, 0, 1], { topK: 1 })).toEqual(hits);
    expect(hits[0]?.payload).toEqual({ step: 3, redone: true });
    expect((await reopened.listCollections())[0]?.pointCount).toBe(30);
  });

  it('drops a journal line cut short by a crash, and folds the journal at the next upsert', async () => {
    const dir = await tempDir();
    const index = createEmbeddedVectorIndex({ dir });
    await index.ensureCollection('c', 2);
    await index.upsert('c', [{ id: 'a', vector: [1, 0], payload: {} }]);
    await index.close();
    await appendFile(join(dir, 'c.collection.jsonl'), '{"points":[{"id":"b","vec');

    const reopened = createEmbeddedVectorIndex({ dir });
    expect((await reopened.listCollections())[0]?.pointCount).toBe(1);
    await reopened.upsert('c', [{ id: 'b', vector: [0, 1], payload: {} }]);
    expect((await readdir(dir)).sort()).toEqual(['c.collection.json']);
    const third = createEmbeddedVectorIndex({ dir });
    expect((await third.search('c', [0, 1], { topK: 2 })).map((hit) => hit.id)).toEqual(['b', 'a']);
  });

  it('never replays the journal of a deleted collection into one created again under its name', async () => {
    const dir = await tempDir();
    const index = createEmbeddedVectorIndex({ dir });
    await index.ensureCollection('run', 2);
    await index.upsert('run', [{ id: 'old', vector: [1, 0], payload: {} }]);
    const journal = await readFile(join(dir, 'run.collection.jsonl'), 'utf8');
    await index.deleteCollection('run');
    // as if the delete had stopped after removing the collection file
    await writeFile(join(dir, 'run.collection.jsonl'), journal);
    await index.ensureCollection('run', 2);
    await index.upsert('run', [{ id: 'new', vector: [0, 1], payload: {} }]);
    const reopened = createEmbeddedVectorIndex({ dir });
    expect((await reopened.search('run', [1, 1], { topK: 5 })).map((hit) => hit.id)).toEqual(['new']);
  });
});
