/**
 * Token estimation: the one estimator used both to budget prompts and to report their size.
 *
 * A plain chars-per-token ratio is either far too high for prose or too low for JSON full of
 * numbers and identifiers, so the estimate is a weighted count of character classes (word
 * runs, letters, digits, punctuation, line breaks, non-ASCII) in one pass over the string.
 * The weights per family are fitted against real tokenizers and scaled so the estimate is an
 * over-estimate for at least 95 % of a corpus shaped like Assay's prompts; the figures and
 * how to re-run the calibration are in docs/token-estimation.md. No tokenizer is loaded at
 * run time.
 */
export type TokenFamily = 'anthropic' | 'openai' | 'default';

/** Character-class counts of a text; the estimator is linear in these. */
export interface TokenFeatures {
  /** Runs of ASCII letters, also split where lower case turns upper (tokenizers split camelCase there). */
  letterRuns: number;
  /** Letters beyond the first LONG_RUN_LETTERS of each run: rare words, hashes and ids cost more than one token. */
  letterExcess: number;
  /** Digit runs counted in groups of three, as the GPT and Claude pre-tokenizers split numbers. */
  digitGroups: number;
  /** Underscores: snake_case joins cost a token each for Claude but merge into the next word for GPT. */
  underscores: number;
  /** Other ASCII punctuation and symbols (`"`, `{`, `,`, `.` …). */
  punctuation: number;
  spaces: number;
  /** Line breaks and tabs: indentation in pretty JSON and SQL. */
  lineBreaks: number;
  /** Basic-plane characters above 127 (accents, Cyrillic, CJK): often a token or more each. */
  nonAscii: number;
  /** Characters outside the basic plane (emoji), counted once per surrogate pair. */
  astral: number;
}

export type TokenWeights = { readonly [K in keyof TokenFeatures]: number };

/** Letters of a run that are covered by its first token; common words and identifier parts are shorter. */
export const LONG_RUN_LETTERS = 10;

/**
 * Fitted weights per family (tokens per unit of each feature), already multiplied by the
 * over-estimation scale. Produced by `npx tsx test/bench/token-calibration.ts --fit`.
 */
export const TOKEN_WEIGHTS: Record<TokenFamily, TokenWeights> = {
  anthropic: {
    letterRuns: 1.187,
    letterExcess: 0.661,
    digitGroups: 1.598,
    underscores: 1.529,
    punctuation: 0.344,
    spaces: 0,
    lineBreaks: 2.111,
    nonAscii: 1.061,
    astral: 2.383,
  },
  openai: {
    letterRuns: 1.163,
    letterExcess: 0.672,
    digitGroups: 1.59,
    underscores: 0.551,
    punctuation: 0.339,
    spaces: 0.036,
    lineBreaks: 2.205,
    nonAscii: 1.014,
    astral: 2.069,
  },
  default: {
    letterRuns: 1.198,
    letterExcess: 0.705,
    digitGroups: 1.597,
    underscores: 1.491,
    punctuation: 0.353,
    spaces: 0,
    lineBreaks: 2.205,
    nonAscii: 1.078,
    astral: 2.105,
  },
};

const CODE_A_UPPER = 65;
const CODE_Z_UPPER = 90;
const CODE_A_LOWER = 97;
const CODE_Z_LOWER = 122;
const CODE_0 = 48;
const CODE_9 = 57;
const CODE_SPACE = 32;
const CODE_TAB = 9;
const CODE_LF = 10;
const CODE_CR = 13;
const CODE_UNDERSCORE = 95;
const HIGH_SURROGATE_FIRST = 0xd800;
const HIGH_SURROGATE_LAST = 0xdbff;
const LOW_SURROGATE_FIRST = 0xdc00;
const LOW_SURROGATE_LAST = 0xdfff;

export function countTokenFeatures(text: string): TokenFeatures {
  const features: TokenFeatures = {
    letterRuns: 0,
    letterExcess: 0,
    digitGroups: 0,
    underscores: 0,
    punctuation: 0,
    spaces: 0,
    lineBreaks: 0,
    nonAscii: 0,
    astral: 0,
  };
  let runLength = 0;
  let previousWasLower = false;
  let digitRun = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const isLower = code >= CODE_A_LOWER && code <= CODE_Z_LOWER;
    const isUpper = code >= CODE_A_UPPER && code <= CODE_Z_UPPER;
    if (isLower || isUpper) {
      if (runLength === 0 || (isUpper && previousWasLower)) {
        features.letterRuns += 1;
        runLength = 0;
      }
      runLength += 1;
      if (runLength > LONG_RUN_LETTERS) features.letterExcess += 1;
      previousWasLower = isLower;
      digitRun = 0;
      continue;
    }
    runLength = 0;
    previousWasLower = false;
    if (code >= CODE_0 && code <= CODE_9) {
      if (digitRun % 3 === 0) features.digitGroups += 1;
      digitRun += 1;
      continue;
    }
    digitRun = 0;
    if (code === CODE_SPACE) features.spaces += 1;
    else if (code === CODE_LF || code === CODE_CR || code === CODE_TAB) features.lineBreaks += 1;
    else if (code >= HIGH_SURROGATE_FIRST && code <= HIGH_SURROGATE_LAST) features.astral += 1;
    else if (code >= LOW_SURROGATE_FIRST && code <= LOW_SURROGATE_LAST) continue;
    else if (code === CODE_UNDERSCORE) features.underscores += 1;
    else if (code > 127) features.nonAscii += 1;
    else features.punctuation += 1;
  }
  return features;
}

export function weighFeatures(features: TokenFeatures, weights: TokenWeights): number {
  return (
    features.letterRuns * weights.letterRuns +
    features.letterExcess * weights.letterExcess +
    features.digitGroups * weights.digitGroups +
    features.underscores * weights.underscores +
    features.punctuation * weights.punctuation +
    features.spaces * weights.spaces +
    features.lineBreaks * weights.lineBreaks +
    features.nonAscii * weights.nonAscii +
    features.astral * weights.astral
  );
}

/**
 * Estimated tokens of `text` for a model of `family`, erring towards "too many". Monotone: a
 * prefix never estimates more than the whole string, so callers may binary-search a cut.
 */
export function estimateTokens(text: string, family: TokenFamily = 'default'): number {
  if (text.length === 0) return 0;
  return Math.ceil(weighFeatures(countTokenFeatures(text), TOKEN_WEIGHTS[family]));
}
