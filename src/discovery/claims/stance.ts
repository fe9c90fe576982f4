/**
 * Which side of a fact a claim states, and when two claims state the same fact from both sides: on a
 * measure the pack says is better one way (abandonment: lower), a segment on the better side is a
 * strength to learn from and one on the worse side a problem to fix. "Desktop sessions abandon checkout
 * less" and "mobile sessions abandon it more" are one fact; it is told once, from the problem's side.
 */
import type { Claim } from '../../domain/index.js';

export type Stance = 'problem' | 'strength' | 'neutral';

/** A problem (the segment is worse on the measure), a strength (better), or neutral when no direction is known to be better. */
export function stanceOf(claim: Pick<Claim, 'kind' | 'direction' | 'metric'>): Stance {
  const better = claim.metric.better;
  // a correlation's sign and a share of the rows say nothing good or bad about a segment
  if (!better || claim.kind === 'correlation' || (claim.kind === 'share' && claim.metric.kind === 'count')) return 'neutral';
  return claim.direction === better ? 'strength' : 'problem';
}

/**
 * Two segments of one column that together hold at least this share of the compared rows: each one's
 * "rest" is mostly the other, so "A lower" and "B higher" on the same measure say the same thing.
 */
export const MIRROR_COVERAGE = 0.8;

function measureKey(claim: Claim): string {
  const metric = claim.metric;
  return JSON.stringify([
    metric.table,
    metric.kind,
    metric.column ?? null,
    metric.start_column ?? null,
    metric.end_column ?? null,
    metric.condition ?? null,
    metric.filters,
  ]);
}

/**
 * Whether two differences are one fact seen from both sides: the same measure, single values of the same
 * column each against the rest, opposite directions, over the same rows, the two segments holding most of
 * them (a two-valued column always; desktop and mobile beside a few tablets).
 */
export function mirrors(left: Claim, right: Claim): boolean {
  if (left.kind !== 'difference' || right.kind !== 'difference') return false;
  const a = left.segment;
  const b = right.segment;
  if (!a || !b || a.value === undefined || b.value === undefined) return false;
  if (a.column !== b.column || a.grain !== b.grain || a.value === b.value) return false;
  if ((left.comparison?.kind ?? 'rest') !== 'rest' || (right.comparison?.kind ?? 'rest') !== 'rest') return false;
  if (left.direction === right.direction || measureKey(left) !== measureKey(right)) return false;
  const leftRows = left.n?.segment;
  const rightRows = right.n?.segment;
  const total = left.n?.comparison !== undefined && leftRows !== undefined ? leftRows + left.n.comparison : undefined;
  const otherTotal = right.n?.comparison !== undefined && rightRows !== undefined ? rightRows + right.n.comparison : undefined;
  if (total === undefined || otherTotal === undefined || leftRows === undefined || rightRows === undefined) return false;
  // the same rows compared (a sampled recount may differ by a row or two)
  if (Math.abs(total - otherTotal) > 0.01 * Math.max(total, otherTotal)) return false;
  return leftRows + rightRows >= MIRROR_COVERAGE * total;
}

/**
 * Of two mirrored claims, the one to state: the problem when the pack says which direction is better,
 * else the larger segment (it speaks for more of the rows); `left` on a tie.
 */
export function preferredSide<T extends { claim: Claim }>(left: T, right: T): T {
  const leftStance = stanceOf(left.claim);
  const rightStance = stanceOf(right.claim);
  if (leftStance === 'problem' && rightStance !== 'problem') return left;
  if (rightStance === 'problem' && leftStance !== 'problem') return right;
  return (right.claim.n?.segment ?? 0) > (left.claim.n?.segment ?? 0) ? right : left;
}

/**
 * A list with each mirrored pair told once (see `preferredSide`), in the list's order, and which kept
 * item stands for each one left out — so references to the one left out can follow to the one kept.
 */
export function withoutMirrors<T extends { id: string; claim?: Claim | undefined }>(
  items: readonly T[],
): { kept: T[]; replacedBy: Map<string, string> } {
  const kept: T[] = [];
  const replacedBy = new Map<string, string>();
  for (const item of items) {
    const claim = item.claim;
    const index = claim ? kept.findIndex((other) => other.claim !== undefined && mirrors(other.claim, claim)) : -1;
    if (index < 0) {
      kept.push(item);
      continue;
    }
    const held = kept[index] as T & { claim: Claim };
    const chosen = preferredSide(held, item as T & { claim: Claim });
    const dropped = chosen === held ? item : held;
    // the one kept takes the place of the pair's first
    kept[index] = chosen;
    replacedBy.set(dropped.id, chosen.id);
  }
  return { kept, replacedBy };
}
