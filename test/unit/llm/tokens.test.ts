import { describe, expect, it } from 'vitest';
import { countTokenFeatures, estimateTokens, type TokenFamily } from '../../../src/llm/tokens.js';
import { buildCalibrationCorpus } from './tokens-corpus.js';
import { countWithReferenceTokenizers, type ReferenceCounts } from './tokens-reference.js';

/** A different seed from the one the weights were fitted on, so this checks generalisation, not memory. */
const corpus = buildCalibrationCorpus(25, 7);
const reference = corpus.map((sample) => countWithReferenceTokenizers(sample.text));

function errorsFor(family: TokenFamily, tokenizer: keyof ReferenceCounts): number[] {
  return corpus.map((sample, index) => {
    const actual = reference[index]![tokenizer];
    return (estimateTokens(sample.text, family) - actual) / actual;
  });
}

const CASES: Array<{ family: TokenFamily; tokenizer: keyof ReferenceCounts; maxMeanError: number }> = [
  { family: 'anthropic', tokenizer: 'claude', maxMeanError: 0.15 },
  { family: 'openai', tokenizer: 'cl100k', maxMeanError: 0.15 },
  // o200k is much denser on non-Latin scripts than cl100k, which the openai family must also cover.
  { family: 'openai', tokenizer: 'o200k', maxMeanError: 0.22 },
  { family: 'default', tokenizer: 'claude', maxMeanError: 0.2 },
  { family: 'default', tokenizer: 'o200k', maxMeanError: 0.25 },
];

describe('when estimating tokens of Assay-shaped prompt text', () => {
  for (const { family, tokenizer, maxMeanError } of CASES) {
    it(`over-estimates ${tokenizer} for at least 95 % of samples with the ${family} weights, within ${maxMeanError * 100} % on average`, () => {
      const errors = errorsFor(family, tokenizer);
      const overEstimated = errors.filter((error) => error >= 0).length / errors.length;
      const meanAbsolute = errors.reduce((sum, error) => sum + Math.abs(error), 0) / errors.length;
      expect(overEstimated).toBeGreaterThanOrEqual(0.95);
      expect(meanAbsolute).toBeLessThanOrEqual(maxMeanError);
    });
  }
});

describe('when the text is empty or grows', () => {
  it('counts nothing for an empty string', () => {
    expect(estimateTokens('', 'anthropic')).toBe(0);
  });

  it('never estimates a prefix above the whole string, so a cut can be binary-searched', () => {
    for (const sample of corpus.slice(0, 40)) {
      let previous = 0;
      for (let end = 0; end <= sample.text.length; end += Math.max(1, Math.floor(sample.text.length / 17))) {
        const estimate = estimateTokens(sample.text.slice(0, end), 'openai');
        expect(estimate).toBeGreaterThanOrEqual(previous);
        previous = estimate;
      }
    }
  });

  it('charges long letter runs (hashes, ids) per letter rather than as one word', () => {
    const word = estimateTokens('revenue', 'default');
    const longRun = estimateTokens('qzxkvbnmwlrtpsdfghjq'.repeat(10), 'default');
    expect(longRun).toBeGreaterThan(word * 50);
  });

  it('splits camelCase the way tokenizers do', () => {
    expect(countTokenFeatures('customerLifetimeValue').letterRuns).toBe(3);
    expect(countTokenFeatures('snake_case_name').underscores).toBe(2);
    expect(countTokenFeatures('1234567').digitGroups).toBe(3);
    expect(countTokenFeatures('🎮').astral).toBe(1);
  });
});
