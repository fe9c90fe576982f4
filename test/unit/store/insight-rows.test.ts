import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSchema, type Run } from '../../../src/domain/index.js';
import { insightChanges, insightRowsOf, withInsights, withoutInsights, type InsightRow } from '../../../src/store/insight-rows.js';
import { realisticRun, runWithInsights } from '../../support/realistic-run.js';

const base = realisticRun('rows');

const runWith = (areas: number[][]): Run => runWithInsights(base, areas);

const key = (row: Pick<InsightRow, 'area' | 'position'>) => `${row.area}/${row.position}`;

/** The stored rows after applying `changes` as the PostgreSQL statement does. */
function applied(rows: InsightRow[], previous: Run | undefined, next: Run): Map<string, unknown> {
  const changes = insightChanges(previous, next);
  const stored = new Map(rows.map((row) => [key(row), row]));
  for (const [id, row] of stored) {
    const trimmed = changes.counts.some((count) => count.area === row.area && row.position >= count.count);
    const dropped = changes.dropAreasFrom !== undefined && row.area >= changes.dropAreasFrom;
    if (trimmed || dropped) stored.delete(id);
  }
  for (const row of changes.upserts) stored.set(key(row), row);
  return new Map([...stored].map(([id, row]) => [id, row.doc]));
}

const areaLists = fc.array(fc.array(fc.nat({ max: 40 }), { maxLength: 6 }), { maxLength: 5 });

describe('insight rows', () => {
  it('puts a run back together from its document and rows', () => {
    const stored = JSON.parse(JSON.stringify(withoutInsights(base)));
    expect(stored.areas.every((area: object) => !('insights' in area))).toBe(true);
    const rows = JSON.parse(JSON.stringify(insightRowsOf(base))) as InsightRow[];
    expect(runSchema.parse(withInsights(stored, rows.reverse()))).toEqual(base);
  });

  it('takes the rows over an insights member left inside a stored area, and says so', () => {
    const stored = JSON.parse(JSON.stringify(base));
    const report = { strayInsights: false };
    const rebuilt = runSchema.parse(withInsights(stored, [], report));
    expect(rebuilt.areas.every((area) => area.insights.length === 0)).toBe(true);
    expect(report.strayInsights).toBe(true);
  });

  it('writes exactly what turns the stored rows of one version into those of the next', () => {
    fc.assert(
      fc.property(areaLists, areaLists, fc.boolean(), (before, after, known) => {
        const previous = runWith(before);
        const next = runWith(after);
        const rows = insightRowsOf(previous);
        const expected = new Map(insightRowsOf(next).map((row) => [key(row), row.doc]));
        expect(applied(rows, known ? previous : undefined, next)).toEqual(expected);
      }),
    );
  });

  it('writes one row when one insight changes, and none when nothing does', () => {
    const changed = runSchema.parse({
      ...base,
      areas: base.areas.map((area, index) =>
        index === 1
          ? { ...area, insights: area.insights.map((insight, position) => (position === 2 ? { ...insight, confidence: 0.1 } : insight)) }
          : area,
      ),
    });
    const changes = insightChanges(base, changed);
    expect(changes.upserts.map((row) => [row.area, row.position])).toEqual([[1, 2]]);
    expect(changes.counts).toEqual([]);
    expect(changes.dropAreasFrom).toBeUndefined();
    expect(insightChanges(base, runSchema.parse(JSON.parse(JSON.stringify(base))))).toEqual({ upserts: [], counts: [] });
  });
});
