/**
 * A run's insights stored apart from the run document (issue #10: "steps/insights/feedback in their
 * own tables"). A store keeps one row per insight, keyed by (run, area position, insight position),
 * and the run document without the areas' `insights` arrays; reading puts them back. An update then
 * writes the insights that changed — a verification touches one — instead of every area's insights
 * inside the run's document, which is most of a finished run's bytes.
 *
 * Rows are keyed by position, not by insight id: an area's list is ordered, its ids are the model's
 * and a list may repeat one until verification sorts it out. Pure functions, no store in here.
 */
import type { Run } from '../domain/index.js';
import { jsonEqual } from './json-document.js';

export interface InsightRow {
  /** Position of the area in `run.areas`. */
  area: number;
  /** Position of the insight in the area's `insights`. */
  position: number;
  doc: unknown;
}

/** What one update changes in a run's insight rows. */
export interface InsightChanges {
  /** Rows written (inserted or replaced). */
  upserts: InsightRow[];
  /** Per area whose list changed length: rows at or past `count` go. */
  counts: Array<{ area: number; count: number }>;
  /** Rows of areas at or past this position go (areas removed from the end, or rows not known exactly). */
  dropAreasFrom?: number;
}

/** The run document as stored: each area without its `insights` member. Shares everything else with `run`. */
export function withoutInsights(run: Run): Record<string, unknown> {
  return {
    ...run,
    areas: run.areas.map((area) => {
      const { insights: _insights, ...rest } = area;
      return rest;
    }),
  };
}

/** Every insight of the run as a row. */
export function insightRowsOf(run: Run): InsightRow[] {
  const rows: InsightRow[] = [];
  run.areas.forEach((area, areaIndex) => {
    area.insights.forEach((insight, position) => {
      rows.push({ area: areaIndex, position, doc: insight });
    });
  });
  return rows;
}

/**
 * A stored document (not yet validated) with its insight rows put back into its areas, in position
 * order. The rows are the truth: an `insights` member inside a stored area (none is written so) is
 * replaced, and reported through `report.strayInsights` so the next write replaces the whole document.
 * A row whose area is not in the document has nowhere to go and is left out.
 */
export function withInsights(doc: unknown, rows: readonly InsightRow[], report?: { strayInsights: boolean }): unknown {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return doc;
  const areas = (doc as { areas?: unknown }).areas;
  if (!Array.isArray(areas)) return doc;
  const byArea = new Map<number, InsightRow[]>();
  for (const row of rows) {
    const list = byArea.get(row.area);
    if (list) list.push(row);
    else byArea.set(row.area, [row]);
  }
  return {
    ...doc,
    areas: areas.map((area: unknown, index) => {
      if (typeof area !== 'object' || area === null || Array.isArray(area)) return area;
      if (report && Object.hasOwn(area, 'insights')) report.strayInsights = true;
      const own = [...(byArea.get(index) ?? [])].sort((left, right) => left.position - right.position);
      return { ...area, insights: own.map((row) => row.doc) };
    }),
  };
}

/**
 * The rows to write so the stored insights of `previous` become those of `next`. Without `previous`
 * (the stored rows are not known exactly) every insight is written and every list's length set.
 * Unchanged insights are recognised by identity first (a revised run shares them with the run it came
 * from), then by value.
 */
export function insightChanges(previous: Run | undefined, next: Run): InsightChanges {
  const upserts: InsightRow[] = [];
  const counts: InsightChanges['counts'] = [];
  next.areas.forEach((area, areaIndex) => {
    const before = previous?.areas[areaIndex]?.insights;
    const after = area.insights;
    if (before === after) return;
    after.forEach((insight, position) => {
      const old = before?.[position];
      if (old === insight || (old !== undefined && jsonEqual(old, insight))) return;
      upserts.push({ area: areaIndex, position, doc: insight });
    });
    if (before === undefined || before.length !== after.length) counts.push({ area: areaIndex, count: after.length });
  });
  const shrunk = previous === undefined || previous.areas.length > next.areas.length;
  return shrunk ? { upserts, counts, dropAreasFrom: next.areas.length } : { upserts, counts };
}
