/** Which analysis area a planned query serves: the area whose keywords and name its words mention most. */
import { mentionsStem, wordsOf } from '../text.js';
import type { AreaInfo } from '../types.js';

export interface AreaMatch {
  area: AreaInfo;
  score: number;
}

function scoreArea(area: AreaInfo, text: string): number {
  const keywordHits = area.keywords.filter((keyword) => mentionsStem(text, keyword)).length;
  const nameHits = wordsOf(area.name).filter((word) => word.length >= 4 && mentionsStem(text, word)).length;
  return keywordHits * 2 + nameHits;
}

/** Best area first; ties keep the prompt's area order. */
export function rankAreas(areas: readonly AreaInfo[], words: readonly string[]): AreaMatch[] {
  const text = words.join(' ');
  return areas
    .map((area, index) => ({ area, score: scoreArea(area, text), index }))
    .sort((left, right) => right.score - left.score || left.index - right.index)
    .map(({ area, score }) => ({ area, score }));
}
