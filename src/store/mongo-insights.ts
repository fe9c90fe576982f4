/**
 * A run's insights on MongoDB, each in its own document of the `insights` collection, as PostgreSQL
 * keeps them in rows (insight-rows.ts). The run document holds the rest of the run and, per area, the
 * ids of its insight documents in order (`_insights`); reading puts the insights back.
 *
 * MongoDB changes several documents atomically only inside a transaction, which needs a replica set.
 * So that a standalone server works too, insight documents are never changed in place: an update
 * inserts a new document for each insight it changed (a fresh id), then replaces the run document —
 * compare-and-set on its `_version`, as before — with the new list of ids, and only then deletes the
 * documents it replaced. A reader sees either the old list or the new one, and both point at
 * documents that exist while that list is current; a reader that finds a listed document already gone
 * read the run just before a newer version replaced it, and reads again. An update that loses the
 * compare-and-set deletes the documents it inserted and tries again on the newer version.
 *
 * Run documents written before insights moved out (areas with an `insights` array, no `_insights`)
 * are read as they are; the first update of such a run moves them out (migration on write).
 *
 * Pure functions: no driver in here.
 */
import type { Run } from '../domain/index.js';
import { jsonEqual } from './json-document.js';
import { withoutInsights } from './insight-rows.js';

/** An insight as stored: its own document, found by `_id` from the run document's `_insights` lists. */
export interface InsightDocument {
  /** `<run id>/<area>.<position>/<write token>`: unique per write, so a document is never changed in place. */
  _id: string;
  run_id: string;
  /** Position of the area in `run.areas`, and of the insight in the area's list, when it was written. */
  area: number;
  position: number;
  doc: unknown;
}

/** The run's insight documents, per area, in order. */
export type InsightRefs = string[][];

/** What the store last read of a run: the run and the ids its insights were read from. */
export interface StoredInsights {
  run: Run;
  /** Undefined for a run whose insights are still inline in its document (written before they moved out). */
  refs: InsightRefs | undefined;
}

/** What one write of a run does to the `insights` collection and the run document. */
export interface InsightWrite {
  /** The run document to store (without `_id` and `_version`): each area without `insights`, plus `_insights`. */
  document: Record<string, unknown>;
  /** Insight documents to insert before the run document is written. */
  inserts: InsightDocument[];
  /** Ids no longer listed once the run document is written: deleted after it is. */
  replaced: string[];
}

export function insightDocumentId(runId: string, area: number, position: number, token: string): string {
  return `${runId}/${area}.${position}/${token}`;
}

/**
 * The write that stores `next`. Insights equal to those `previous` read at the same place (by
 * identity first — a revised run shares them with the run it came from — then by value) keep their
 * document; every other insight gets a new one named with `token`, which must be unique per write.
 */
export function planInsightWrite(next: Run, previous: StoredInsights | undefined, token: string): InsightWrite {
  const inserts: InsightDocument[] = [];
  const refs: InsightRefs = next.areas.map((area, areaIndex) =>
    area.insights.map((insight, position) => {
      const before = previous?.refs ? previous.run.areas[areaIndex]?.insights[position] : undefined;
      const kept = previous?.refs?.[areaIndex]?.[position];
      if (kept !== undefined && before !== undefined && (before === insight || jsonEqual(before, insight))) return kept;
      const document: InsightDocument = {
        _id: insightDocumentId(next.id, areaIndex, position, token),
        run_id: next.id,
        area: areaIndex,
        position,
        doc: insight,
      };
      inserts.push(document);
      return document._id;
    }),
  );
  const listed = new Set(refs.flat());
  const replaced = (previous?.refs ?? []).flat().filter((id) => !listed.has(id));
  return { document: { ...withoutInsights(next), _insights: refs }, inserts, replaced };
}

/** The ids of insight documents a stored run document lists; undefined when its insights are inline. */
export function insightRefsOf(stored: Record<string, unknown>): InsightRefs | undefined {
  const refs = stored._insights;
  if (refs === undefined) return undefined;
  if (!Array.isArray(refs) || !refs.every((area) => Array.isArray(area) && area.every((id) => typeof id === 'string')))
    throw new Error(`run ${String(stored.id)}: its _insights field is not a list of id lists; the document was changed by hand`);
  return refs as InsightRefs;
}

/**
 * A stored run document (storage fields `_id` and `_version` already removed, not yet validated) with
 * its insights put back from `found` (insight documents by id). Answers `missing` with the ids listed
 * but not found — the run was rewritten between the two reads: read both again — and the document as
 * it is when its insights are inline.
 */
export function joinInsights(
  stored: Record<string, unknown>,
  found: ReadonlyMap<string, unknown>,
): { document: Record<string, unknown>; refs: InsightRefs | undefined } | { missing: string[] } {
  const { _insights: _refs, ...document } = stored;
  const refs = insightRefsOf(stored);
  if (refs === undefined) return { document, refs };
  const missing = refs.flat().filter((id) => !found.has(id));
  if (missing.length > 0) return { missing };
  const areas = Array.isArray(document.areas) ? document.areas : [];
  return {
    document: {
      ...document,
      areas: areas.map((area: unknown, index) =>
        typeof area === 'object' && area !== null ? { ...area, insights: (refs[index] ?? []).map((id) => found.get(id)) } : area,
      ),
    },
    refs,
  };
}
