/**
 * Token estimation: the one estimator used both to budget prompts and to report their size.
 * Conservative chars-per-token ratios per provider family (see docs/token-estimation.md).
 */
export type TokenFamily = 'anthropic' | 'openai' | 'default';

/** Characters per token, deliberately on the low side so estimates err towards "too big". */
export const CHARS_PER_TOKEN: Record<TokenFamily, number> = {
  anthropic: 3.2,
  openai: 3.6,
  default: 3.2,
};

export function estimateTokens(text: string, family: TokenFamily = 'default'): number {
  if (text.length === 0) return 0;
  return Math.ceil(text.length / CHARS_PER_TOKEN[family]);
}
