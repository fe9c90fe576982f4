/**
 * Which area each mined finding is evidence for: the area whose kinds of finding include it and whose
 * words (name, description, keywords) are closest to what the finding is about, measured with the run's
 * embedder. Each finding goes to one area, so two areas never present the same fact.
 */
import type { MinedFinding } from '../../domain/index.js';
import type { Embedder } from '../../embed/port.js';
import type { AnalysisArea } from '../packs/pack-schema.js';
import { contentWords, cosine } from './relevance.js';

type Kind = MinedFinding['kind'];

/** Words in an area's text that say which kinds of finding it is about. */
const KIND_WORDS: ReadonlyArray<[Kind, RegExp]> = [
  ['trend', /\b(trend\w*|over time|growth|grow\w*|declin\w*|chang\w*|month\w*|week\w*|daily|season\w*|time series|evolution)\b/i],
  ['shift', /\b(change point\w*|shift\w*|spike\w*|anomal\w*|outlier\w*|unusual|sudden|jump\w*|drop\w*|surge\w*|window\w*)\b/i],
  ['share', /\b(share\w*|concentrat\w*|mix|distribut\w*|top|dominan\w*|imbalanc\w*|most|portion|breakdown|volume)\b/i],
  [
    'difference',
    /\b(segment\w*|group\w*|differ\w*|driver\w*|rate\w*|compar\w*|gap\w*|by \w+|outcome\w*|conversion|retention|churn|duration\w*|time to|elapsed|performance)\b/i,
  ],
  ['correlation', /\b(correlat\w*|relationship\w*|driver\w*|associat\w*|depend\w*|relat\w*)\b/i],
  [
    'contribution',
    /\b(driver\w*|what changed|why \w+ (rose|fell|changed)|contribut\w*|account\w* for|breakdown|growth|declin\w*|chang\w*|variance)\b/i,
  ],
  ['outlier', /\b(outlier\w*|anomal\w*|unusual|extreme\w*|largest|biggest|whale\w*|fraud\w*|exception\w*)\b/i],
];
/** Weight of the kind match against the text similarity. */
const KIND_MATCH = 0.5;

export function areaKinds(
  area: Pick<AnalysisArea, 'name' | 'description' | 'keywords'> & { finding_kinds?: readonly Kind[] | undefined },
): Set<Kind> {
  if (area.finding_kinds && area.finding_kinds.length > 0) return new Set(area.finding_kinds);
  const text = `${area.name} ${area.description} ${area.keywords.join(' ')}`;
  return new Set(KIND_WORDS.filter(([, words]) => words.test(text)).map(([kind]) => kind));
}

/**
 * The findings with `area_id` and `area_fit` set; ties go to the area listed first (the pack's priority
 * order). The fit is the finding's similarity to its area's words, scaled so the area's closest finding
 * is 1: what the area's reader came for ranks first among findings of like score.
 */
export async function assignAreas(
  embedder: Embedder,
  findings: readonly MinedFinding[],
  areas: ReadonlyArray<Pick<AnalysisArea, 'id' | 'name' | 'description' | 'keywords'> & { finding_kinds?: readonly Kind[] | undefined }>,
  signal?: AbortSignal,
): Promise<MinedFinding[]> {
  if (areas.length === 0 || findings.length === 0) return [...findings];
  const areaTexts = areas.map((area) => contentWords(`${area.name} ${area.description} ${area.keywords.join(' ')}`));
  const findingTexts = findings.map((finding) => contentWords(`${finding.kind} ${finding.statement} ${finding.columns.join(' ')}`));
  const vectors = await embedder.embed([...areaTexts, ...findingTexts], signal ? { signal } : undefined);
  const kinds = areas.map((area) => areaKinds(area));
  const placed = findings.map((finding, index) => {
    const vector = vectors[areas.length + index] as number[];
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    let similarity = 0;
    areas.forEach((_, at) => {
      const closeness = cosine(vector, vectors[at] as number[]);
      const score = closeness + (kinds[at]?.has(finding.kind) ? KIND_MATCH : 0);
      if (score > bestScore) {
        best = at;
        bestScore = score;
        similarity = Math.max(0, closeness);
      }
    });
    return { finding, area: (areas[best] as { id: string }).id, similarity };
  });
  const closest = new Map<string, number>();
  for (const { area, similarity } of placed) closest.set(area, Math.max(closest.get(area) ?? 0, similarity));
  return placed.map(({ finding, area, similarity }) => {
    const top = closest.get(area) ?? 0;
    return { ...finding, area_id: area, area_fit: top > 0 ? Math.min(1, similarity / top) : 0 };
  });
}
