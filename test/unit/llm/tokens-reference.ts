/**
 * The real tokenizers the estimator is calibrated against (dev dependencies, never loaded by
 * production code). `@anthropic-ai/tokenizer` is Anthropic's published tokenizer from the
 * Claude 2 era; newer Claude models tokenize differently (see docs/token-estimation.md).
 */
import { getTokenizer as getClaudeTokenizer } from '@anthropic-ai/tokenizer';
import { countTokens as countCl100kTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200kTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { CorpusSample } from './tokens-corpus.js';

export interface ReferenceCounts {
  claude: number;
  o200k: number;
  cl100k: number;
}

/** One Claude tokenizer for the whole process: building it per call (what `countTokens` does) costs ~30 ms. */
let claudeTokenizer: ReturnType<typeof getClaudeTokenizer> | undefined;

/** Same normalisation and special-token handling as the package's own `countTokens`. */
function countClaudeTokens(text: string): number {
  claudeTokenizer ??= getClaudeTokenizer();
  return claudeTokenizer.encode(text.normalize('NFKC'), 'all').length;
}

export function countWithReferenceTokenizers(text: string): ReferenceCounts {
  return { claude: countClaudeTokens(text), o200k: countO200kTokens(text), cl100k: countCl100kTokens(text) };
}

export function measureCorpus(corpus: CorpusSample[]): ReferenceCounts[] {
  return corpus.map((sample) => countWithReferenceTokenizers(sample.text));
}
