/**
 * Which shipped domain pack fits a warehouse, for a run that names none: a pack fits when at least
 * half of its base areas find their keywords in the warehouse's table and column names (two or more
 * keywords each). When none fits, the general pack is used, so an incident table is never framed as a
 * purchase funnel.
 */
import { matchTableKeywords, prepareKeywords } from '../../../schema/index.js';
import type { TableSchema } from '../../../warehouse/port.js';
import { resolveAreas } from '../pack-loader.js';
import type { DomainPack } from '../pack-schema.js';

/** Keywords of one area that must appear in the warehouse for the area to count as present. */
export const AREA_MATCH_MIN_KEYWORDS = 2;
/** Share of a pack's base areas that must be present for the pack to fit. */
export const PACK_MATCH_MIN_SHARE = 0.5;

export interface PackScore {
  slug: string;
  /** Base areas whose keywords the warehouse has. */
  matchedAreas: number;
  areas: number;
  /** Distinct keywords found, over all areas. */
  keywordHits: number;
}

export interface PackChoice {
  /** The fitting pack, or `fallback` when none fits. */
  slug: string;
  /** True when no domain pack fitted and the fallback was chosen. */
  fallback: boolean;
  /** Every candidate's score, best first. */
  scores: PackScore[];
}

function scorePack(pack: DomainPack, tables: readonly TableSchema[]): PackScore {
  const areas = resolveAreas(pack);
  const found = new Set<string>();
  let matchedAreas = 0;
  for (const area of areas) {
    const prepared = prepareKeywords(area.keywords);
    const hits = new Set(tables.flatMap((table) => matchTableKeywords(table, prepared, area.keywords.length)));
    for (const hit of hits) found.add(hit);
    if (hits.size >= AREA_MATCH_MIN_KEYWORDS) matchedAreas += 1;
  }
  return { slug: pack.slug, matchedAreas, areas: areas.length, keywordHits: found.size };
}

/** The best-fitting pack among `packs` (hidden ones and the fallback itself excluded), else `fallback`. */
export function choosePackForTables(tables: readonly TableSchema[], packs: readonly DomainPack[], fallback: string): PackChoice {
  const scores = packs
    .filter((pack) => !pack.hidden && pack.slug !== fallback)
    .map((pack) => scorePack(pack, tables))
    .sort(
      (left, right) =>
        right.matchedAreas / right.areas - left.matchedAreas / left.areas ||
        right.keywordHits - left.keywordHits ||
        (left.slug < right.slug ? -1 : 1),
    );
  const best = scores[0];
  if (best && best.areas > 0 && best.matchedAreas / best.areas >= PACK_MATCH_MIN_SHARE) return { slug: best.slug, fallback: false, scores };
  return { slug: fallback, fallback: true, scores };
}
