/**
 * ROUGE-1 recall, the lexical score InsightBench reports: the share of a reference's words that the
 * candidate also contains, each word counted at most as often as the candidate has it (clipping).
 *
 * Tokenisation: lower-case, split on every run of characters that are neither letters nor digits,
 * nothing dropped and nothing stemmed — on ASCII text the rule of the default tokeniser of the Python
 * `rouge-score` package (without its optional stemmer), so the numbers can be set beside scores
 * computed with it. Keeping stop words gives every pair a floor of shared function words ("the",
 * "in", "of"); the score is for comparing runs side by side, where that floor cancels out, and the
 * LLM judge is the measure of meaning.
 */

/** Lower-case words and numbers of `text`, in order (`"TTR rose 17.09%"` → `ttr rose 17 09`). */
export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

function countTokens(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/** Overlapping words (each clipped to its count in the candidate) over the reference's words; 0 for an empty reference. */
export function rouge1Recall(reference: string, candidate: string): number {
  const referenceTokens = rougeTokens(reference);
  if (referenceTokens.length === 0) return 0;
  const candidateCounts = countTokens(rougeTokens(candidate));
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
export function bestRouge1Match(reference: string, candidates: readonly string[]): BestRougeMatch {
  let best: BestRougeMatch = { index: null, recall: 0 };
  candidates.forEach((candidate, index) => {
    const recall = rouge1Recall(reference, candidate);
    if (best.index === null || recall > best.recall) best = { index, recall };
  });
  return best;
}
