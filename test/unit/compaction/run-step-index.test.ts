import { describe, expect, it } from 'vitest';
import {
  areaQueryText,
  dropRunCollection,
  indexStep,
  runCollectionName,
  searchStepsForArea,
  stepEmbeddingText,
  sweepOrphanRunCollections,
} from '../../../src/compaction/run-step-index.js';
import { AREA_TOP_K } from '../../../src/compaction/step-picker.js';
import type { Embedder } from '../../../src/embed/port.js';
import { NotFoundError } from '../../../src/errors/index.js';
import type { CollectionInfo, VectorHit, VectorIndex, VectorPoint, VectorSearchOptions } from '../../../src/vector/port.js';
import { queryStep } from './steps.js';

/** Bag-of-words over a fixed vocabulary: enough to make related texts score higher than unrelated ones. */
const VOCABULARY = ['churn', 'retention', 'revenue', 'orders', 'device', 'country', 'sql', 'select', 'week'];
const fakeEmbedder: Embedder = {
  id: 'test:bag-of-words',
  dimensions: VOCABULARY.length + 1,
  async embed(texts) {
    return texts.map((text) => {
      const lower = text.toLowerCase();
      return [...VOCABULARY.map((word) => (lower.includes(word) ? 1 : 0)), 0.1];
    });
  },
};

/** An in-memory VectorIndex following the port's contract (exact cosine, upsert replaces by id). */
class MemoryIndex implements VectorIndex {
  readonly collections = new Map<string, { createdAt: string | null; points: Map<string, VectorPoint> }>();
  readonly searches: Array<{ name: string; options: VectorSearchOptions }> = [];

  async ensureCollection(name: string): Promise<void> {
    if (!this.collections.has(name)) this.collections.set(name, { createdAt: '2024-03-01T00:00:00.000Z', points: new Map() });
  }
  async upsert(name: string, points: VectorPoint[]): Promise<void> {
    const collection = this.collections.get(name);
    if (!collection) throw new NotFoundError(`no collection ${name}`);
    for (const point of points) collection.points.set(point.id, point);
  }
  async search(name: string, vector: number[], options: VectorSearchOptions): Promise<VectorHit[]> {
    this.searches.push({ name, options });
    const collection = this.collections.get(name);
    if (!collection) throw new NotFoundError(`no collection ${name}`);
    return [...collection.points.values()]
      .map((point) => ({ id: point.id, score: cosine(vector, point.vector), payload: point.payload }))
      .filter((hit) => options.minScore === undefined || hit.score >= options.minScore)
      .sort((left, right) => right.score - left.score)
      .slice(0, options.topK);
  }
  async deleteCollection(name: string): Promise<void> {
    this.collections.delete(name);
  }
  async listCollections(): Promise<CollectionInfo[]> {
    return [...this.collections].map(([name, collection]) => ({
      name,
      createdAt: collection.createdAt,
      pointCount: collection.points.size,
    }));
  }
  async close(): Promise<void> {}
}

function cosine(left: number[], right: number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  left.forEach((value, index) => {
    const other = right[index] ?? 0;
    dot += value * other;
    leftNorm += value * value;
    rightNorm += other * other;
  });
  return dot / Math.sqrt(leftNorm * rightNorm);
}

const area = { id: 'churn', name: 'Churn', description: 'Who stops playing and when', keywords: ['churn', 'retention'] };

describe('run step index', () => {
  it('names the collection and the texts as the seed does', () => {
    expect(runCollectionName('r-42')).toBe('assay_run_r-42');
    expect(stepEmbeddingText(queryStep(3, { query_purpose: 'Weekly churn', query: 'SELECT 1', executed_query: 'SELECT 2' }))).toBe(
      'Weekly churn\n[SQL]: SELECT 2',
    );
    expect(areaQueryText(area)).toBe('Churn — Who stops playing and when. Keywords: churn, retention');
  });

  it('upserts one point per step with its payload, idempotently', async () => {
    const index = new MemoryIndex();
    const step = queryStep(5, { query_purpose: 'Weekly churn', rows: [{ a: 1 }, { a: 2 }] });
    await indexStep({ embedder: fakeEmbedder, index, runId: 'r1', step });
    await indexStep({ embedder: fakeEmbedder, index, runId: 'r1', step });
    const points = [...(index.collections.get('assay_run_r1')?.points.values() ?? [])];
    expect(points).toHaveLength(1);
    expect(points[0]?.payload).toEqual({ step: 5, purpose: 'Weekly churn', row_count: 2, has_error: false });
  });

  it('returns every step with its score, with no minimum, so the picker can report low scores', async () => {
    const index = new MemoryIndex();
    const steps = Array.from({ length: 30 }, (_, i) =>
      queryStep(i + 1, { query_purpose: i % 3 === 0 ? 'Weekly churn and retention' : 'Revenue by country', executed_query: 'SELECT 1' }),
    );
    for (const step of steps) await indexStep({ embedder: fakeEmbedder, index, runId: 'r1', step });
    const hits = await searchStepsForArea({ embedder: fakeEmbedder, index, runId: 'r1', area });
    expect(hits).toHaveLength(30);
    expect(index.searches[0]?.options).toEqual({ topK: Math.max(AREA_TOP_K, 30) });
    expect(hits[0]?.score).toBeGreaterThan(hits.at(-1)?.score ?? 1);
    expect(new Set(hits.slice(0, 10).map((hit) => hit.step % 3))).toEqual(new Set([1]));
  });

  it('finds nothing for a run that indexed no step', async () => {
    expect(await searchStepsForArea({ embedder: fakeEmbedder, index: new MemoryIndex(), runId: 'none', area, stepCount: 0 })).toEqual([]);
  });

  it('drops the run collection, and a second drop is a no-op', async () => {
    const index = new MemoryIndex();
    await indexStep({ embedder: fakeEmbedder, index, runId: 'r1', step: queryStep(1) });
    await dropRunCollection({ index, runId: 'r1' });
    await dropRunCollection({ index, runId: 'r1' });
    expect(index.collections.size).toBe(0);
  });

  it('sweeps only old collections of inactive runs, leaving other collections alone', async () => {
    const index = new MemoryIndex();
    const now = new Date('2024-03-05T00:00:00.000Z');
    index.collections.set('assay_run_old-dead', { createdAt: '2024-03-03T00:00:00.000Z', points: new Map() });
    index.collections.set('assay_run_old-active', { createdAt: '2024-03-03T00:00:00.000Z', points: new Map() });
    index.collections.set('assay_run_young-dead', { createdAt: '2024-03-04T12:00:00.000Z', points: new Map() });
    index.collections.set('assay_run_unknown-age', { createdAt: null, points: new Map() });
    index.collections.set('assay_schema_p1', { createdAt: '2020-01-01T00:00:00.000Z', points: new Map() });
    const dropped = await sweepOrphanRunCollections({ index, activeRunIds: ['old-active'], now });
    expect(dropped).toEqual(['assay_run_old-dead', 'assay_run_unknown-age']);
    expect([...index.collections.keys()].sort()).toEqual(['assay_run_old-active', 'assay_run_young-dead', 'assay_schema_p1']);
  });
});
