/**
 * ROUGE-1 recall, the lexical score InsightBench reports: the share of a reference's words that the
 * candidate also contains, each word counted at most as often as the candidate has it (clipping).
 *
 * Tokenisation: lower-case, split on every run of characters that are neither letters nor digits,
 * nothing stemmed — on ASCII text the rule of the default tokeniser of the Python `rouge-score`
 * package (without its optional stemmer). With `stopWords`, those words are dropped from both sides
 * before counting: kept, they give every pair a floor of shared function words ("the", "in", "of")
 * that says nothing about whether a finding was stated. The harness scores with ENGLISH_STOP_WORDS;
 * the raw rule (nothing dropped) stays available so figures computed with it remain comparable.
 */
import { eng } from 'stopword';

/**
 * English stop words: the `eng` list of the `stopword` npm package (pinned in package.json), 108
 * function words ("the", "of", "is", "which", "most"). Negations ("not", "no") are not in it.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(eng);

/** Where ENGLISH_STOP_WORDS comes from, as reports name it. */
export const STOP_WORDS_SOURCE = 'stopword (npm) eng list';

export interface RougeOptions {
  /** Words dropped from reference and candidate before counting; none when absent (the raw rule). */
  stopWords?: ReadonlySet<string>;
}

/** Lower-case words and numbers of `text`, in order (`"TTR rose 17.09%"` → `ttr rose 17 09`). */
export function rougeTokens(text: string, options: RougeOptions = {}): string[] {
  const tokens = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
  const { stopWords } = options;
  return stopWords ? tokens.filter((token) => !stopWords.has(token)) : tokens;
}

function countTokens(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/** Overlapping words (each clipped to its count in the candidate) over the reference's words; 0 for an empty reference. */
export function rouge1Recall(reference: string, candidate: string, options: RougeOptions = {}): number {
  const referenceTokens = rougeTokens(reference, options);
  if (referenceTokens.length === 0) return 0;
  const candidateCounts = countTokens(rougeTokens(candidate, options));
  let overlap = 0;
  for (const [token, count] of countTokens(referenceTokens)) overlap += Math.min(count, candidateCounts.get(token) ?? 0);
  return overlap / referenceTokens.length;
}

export interface BestRougeMatch {
  /** Position of the best candidate, or null when there are none. */
  index: number | null;
  recall: number;
}

/** The candidate that recalls most of `reference` (the first one on ties). */
export function bestRouge1Match(reference: string, candidates: readonly string[], options: RougeOptions = {}): BestRougeMatch {
  let best: BestRougeMatch = { index: null, recall: 0 };
  candidates.forEach((candidate, index) => {
    const recall = rouge1Recall(reference, candidate, options);
    if (best.index === null || recall > best.recall) best = { index, recall };
  });
  return best;
}
