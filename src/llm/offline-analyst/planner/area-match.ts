/** Which analysis area a planned query serves: the area whose keywords and name its words mention most. */
import { mentionsStem, wordsOf } from '../text.js';
import type { AreaInfo } from '../types.js';

export interface AreaMatch {
  area: AreaInfo;
  score: number;
}

function scoreArea(area: AreaInfo, text: string, weights: ReadonlyMap<string, number>): number {
  const keywordHits = area.keywords
    .filter((keyword) => mentionsStem(text, keyword))
    .reduce((sum, keyword) => sum + (weights.get(keyword) ?? 1), 0);
  const nameHits = wordsOf(area.name)
    .filter((word) => word.length >= 4 && mentionsStem(text, word))
    .reduce((sum, word) => sum + (weights.get(word) ?? 1), 0);
  return keywordHits * 2 + nameHits;
}

/**
 * How much each area keyword (and area-name word) tells areas apart, given the texts of every query
 * to be placed: one that nearly every query mentions (the only table's name) places nothing.
 */
export function keywordWeights(areas: readonly AreaInfo[], texts: readonly string[]): Map<string, number> {
  const weights = new Map<string, number>();
  if (texts.length === 0) return weights;
  const terms = new Set(areas.flatMap((area) => [...area.keywords, ...wordsOf(area.name).filter((word) => word.length >= 4)]));
  for (const term of terms) {
    const share = texts.filter((text) => mentionsStem(text, term)).length / texts.length;
    weights.set(term, share > UBIQUITOUS_SHARE ? UBIQUITOUS_WEIGHT : 1);
  }
  return weights;
}

/** A keyword more than this share of the queries mention … */
const UBIQUITOUS_SHARE = 0.6;
/** … counts this much. */
const UBIQUITOUS_WEIGHT = 0.1;

/** Best area first; ties keep the prompt's area order. */
export function rankAreas(
  areas: readonly AreaInfo[],
  words: readonly string[],
  weights: ReadonlyMap<string, number> = new Map(),
): AreaMatch[] {
  const text = words.join(' ');
  return areas
    .map((area, index) => ({ area, score: scoreArea(area, text, weights), index }))
    .sort((left, right) => right.score - left.score || left.index - right.index)
    .map(({ area, score }) => ({ area, score }));
}
