import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSchema, type Run } from '../../../src/domain/index.js';
import { insightRefsOf, joinInsights, planInsightWrite, type InsightDocument } from '../../../src/store/mongo-insights.js';
import { realisticRun, runWithInsights } from '../../support/realistic-run.js';

const base = realisticRun('mongo-rows');
const pool = base.areas.flatMap((area) => area.insights);

const runWith = (areas: number[][]): Run => runWithInsights(base, areas);

/** The collection and run document as MongoDB would hold them after a write (JSON round trip, as the driver stores them). */
class FakeCollection {
  readonly documents = new Map<string, unknown>();
  apply(inserts: InsightDocument[], deletes: string[] = []): void {
    for (const inserted of inserts) {
      expect(this.documents.has(inserted._id), `${inserted._id} is written once`).toBe(false);
      this.documents.set(inserted._id, JSON.parse(JSON.stringify(inserted.doc)));
    }
    for (const id of deletes) this.documents.delete(id);
  }
}

const stored = (document: Record<string, unknown>) => JSON.parse(JSON.stringify(document)) as Record<string, unknown>;

function read(document: Record<string, unknown>, collection: FakeCollection) {
  const joined = joinInsights(document, collection.documents);
  if ('missing' in joined) throw new Error(`missing ${joined.missing.join(', ')}`);
  return { run: runSchema.parse(joined.document), refs: joined.refs };
}

describe('MongoDB insight documents', () => {
  it('stores the run document without its insights, each insight in a document of its own, and reads the run back', () => {
    const write = planInsightWrite(base, undefined, 'tok1');
    const areas = write.document.areas as Array<Record<string, unknown>>;
    expect(areas.every((area) => !('insights' in area))).toBe(true);
    expect(write.inserts).toHaveLength(pool.length);
    expect(write.inserts[0]).toMatchObject({ _id: `${base.id}/0.0/tok1`, run_id: base.id, area: 0, position: 0 });
    expect(write.replaced).toEqual([]);
    const collection = new FakeCollection();
    collection.apply(write.inserts);
    expect(read(stored(write.document), collection).run).toEqual(base);
  });

  it('writes only the insight an update changed, and deletes only the document it replaced', () => {
    const collection = new FakeCollection();
    const first = planInsightWrite(base, undefined, 'a');
    collection.apply(first.inserts);
    const current = read(stored(first.document), collection);
    const firstArea = current.run.areas[0] as Run['areas'][number];
    const verified = {
      ...current.run,
      areas: [
        {
          ...firstArea,
          insights: firstArea.insights.map((insight, index) => (index === 0 ? { ...insight, description: 'checked' } : insight)),
        },
        ...current.run.areas.slice(1),
      ],
    };
    const second = planInsightWrite(verified, current, 'b');
    expect(second.inserts.map((inserted) => inserted._id)).toEqual([`${base.id}/0.0/b`]);
    expect(second.replaced).toEqual([`${base.id}/0.0/a`]);
    collection.apply(second.inserts, second.replaced);
    expect(read(stored(second.document), collection).run).toEqual(verified);
    expect(collection.documents.size).toBe(pool.length);
  });

  it('keeps every version it writes readable from the collection, whatever the lists become', () => {
    const areaLists = fc.array(fc.array(fc.nat({ max: 40 }), { maxLength: 6 }), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(areaLists, { minLength: 1, maxLength: 5 }), (versions) => {
        const collection = new FakeCollection();
        let current: { run: Run; refs: string[][] | undefined } | undefined;
        versions.forEach((areas, index) => {
          const next = runWith(areas);
          const write = planInsightWrite(next, current, `t${index}`);
          collection.apply(write.inserts, write.replaced);
          current = read(stored(write.document), collection);
          expect(current.run).toEqual(next);
          // nothing is left behind: the collection holds exactly the listed documents
          expect([...collection.documents.keys()].sort()).toEqual([...(current.refs ?? []).flat()].sort());
        });
      }),
      { numRuns: 40 },
    );
  });

  it('tells a reader that an insight it was pointed at is gone, so that it reads the run again', () => {
    const collection = new FakeCollection();
    const first = planInsightWrite(base, undefined, 'a');
    collection.apply(first.inserts);
    const before = stored(first.document);
    const current = read(before, collection);
    const next = runWith([[7], [8]]);
    const second = planInsightWrite(next, current, 'b');
    collection.apply(second.inserts, second.replaced);
    // the run document read before the update, its insights read after it
    const joined = joinInsights(before, collection.documents);
    expect('missing' in joined && joined.missing.length).toBeGreaterThan(0);
  });

  it('reads a run document that still holds its insights inline as it is, and moves them out on its next write', () => {
    const legacy = stored({ ...base });
    expect(insightRefsOf(legacy)).toBeUndefined();
    const current = read(legacy, new FakeCollection());
    expect(current).toEqual({ run: base, refs: undefined });
    const write = planInsightWrite(current.run, current, 'm');
    expect(write.inserts).toHaveLength(pool.length);
    expect(write.replaced).toEqual([]);
    expect((write.document.areas as Array<Record<string, unknown>>).some((area) => 'insights' in area)).toBe(false);
  });

  it('refuses an _insights field that is not a list of id lists, naming the run', () => {
    expect(() => insightRefsOf({ id: 'r1', _insights: [[1]] })).toThrow(/run r1: its _insights field/);
    expect(() => insightRefsOf({ id: 'r1', _insights: 'x' })).toThrow(/by hand/);
  });
});
