/** Ranking rules shared by the vector adapters so their answers agree. */
import type { Payload, VectorHit } from './port.js';

/** Score descending, then id ascending: the same inputs always give the same order. */
export function compareHits(left: VectorHit, right: VectorHit): number {
  if (left.score !== right.score) return right.score - left.score;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/** Exact match on every filter key; an array field matches when it contains the value (as in Qdrant). */
export function matchesFilter(payload: Payload, filter: Record<string, string | number | boolean> | undefined): boolean {
  if (!filter) return true;
  for (const [key, expected] of Object.entries(filter)) {
    const actual = payload[key];
    if (Array.isArray(actual)) {
      if (!(actual as Array<string | number>).some((element) => element === expected)) return false;
    } else if (actual !== expected) {
      return false;
    }
  }
  return true;
}
