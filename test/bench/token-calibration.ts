/**
 * Token-estimator calibration against real tokenizers (dev dependencies only).
 *
 *   npx tsx test/bench/token-calibration.ts          measure the shipped weights, print a table, write bench-results/token-calibration.json
 *   npx tsx test/bench/token-calibration.ts --fit    also fit new weights and print them for src/llm/tokens.ts
 *
 * See docs/token-estimation.md for the method and the current figures.
 */
import {
  TOKEN_WEIGHTS,
  countTokenFeatures,
  weighFeatures,
  type TokenFamily,
  type TokenFeatures,
  type TokenWeights,
} from '../../src/llm/tokens.js';
import { CONTENT_TYPES, buildCalibrationCorpus, type ContentType } from '../unit/llm/tokens-corpus.js';
import { measureCorpus, type ReferenceCounts } from '../unit/llm/tokens-reference.js';
import { writeBenchResult } from './bench.js';

const FEATURE_KEYS: ReadonlyArray<keyof TokenFeatures> = [
  'letterRuns',
  'letterExcess',
  'digitGroups',
  'underscores',
  'punctuation',
  'spaces',
  'lineBreaks',
  'nonAscii',
  'astral',
];

/** Quantile of the actual/estimate ratio the scale must cover: a little above the 95 % target so unseen text keeps it. */
const COVERAGE_QUANTILE = 0.97;

/** Which tokenizer counts each family is calibrated against. */
const FAMILY_TARGET: Record<TokenFamily, (counts: ReferenceCounts) => number> = {
  anthropic: (counts) => counts.claude,
  openai: (counts) => Math.max(counts.o200k, counts.cl100k),
  default: (counts) => Math.max(counts.claude, counts.o200k, counts.cl100k),
};

/** Non-negative least squares on relative error, by projected coordinate descent (7 features: tiny). */
function fitWeights(features: TokenFeatures[], targets: number[]): TokenWeights {
  const weights: Record<keyof TokenFeatures, number> = { ...TOKEN_WEIGHTS.default };
  for (let sweep = 0; sweep < 400; sweep += 1) {
    for (const key of FEATURE_KEYS) {
      let numerator = 0;
      let denominator = 0;
      features.forEach((sample, index) => {
        const target = targets[index]!;
        const scale = 1 / (target * target);
        const residualWithout = weighFeatures(sample, weights) - weights[key] * sample[key] - target;
        numerator -= sample[key] * residualWithout * scale;
        denominator += sample[key] * sample[key] * scale;
      });
      if (denominator > 0) weights[key] = Math.max(0, numerator / denominator);
    }
  }
  const ratios = features.map((sample, index) => targets[index]! / weighFeatures(sample, weights)).sort((a, b) => a - b);
  const scale = ratios[Math.min(ratios.length - 1, Math.floor(COVERAGE_QUANTILE * ratios.length))]!;
  const rounded = Object.fromEntries(FEATURE_KEYS.map((key) => [key, Math.ceil(weights[key] * scale * 1000) / 1000]));
  return rounded as TokenWeights;
}

interface ErrorRow {
  family: TokenFamily;
  tokenizer: string;
  contentType: ContentType | 'all';
  samples: number;
  meanErrorPct: number;
  maxErrorPct: number;
  minErrorPct: number;
  overEstimatePct: number;
}

function main(): void {
  const fit = process.argv.includes('--fit');
  const corpus = buildCalibrationCorpus();
  const started = performance.now();
  const measured = measureCorpus(corpus);
  const tokenizeMs = performance.now() - started;
  const features = corpus.map((sample) => countTokenFeatures(sample.text));

  if (fit) {
    console.log('Fitted weights (paste into TOKEN_WEIGHTS in src/llm/tokens.ts):');
    for (const family of Object.keys(FAMILY_TARGET) as TokenFamily[]) {
      const targets = measured.map((counts) => FAMILY_TARGET[family](counts));
      console.log(`  ${family}: ${JSON.stringify(fitWeights(features, targets))},`);
    }
  }

  const rows: ErrorRow[] = [];
  const comparisons: Array<{ family: TokenFamily; tokenizer: keyof ReferenceCounts }> = [
    { family: 'anthropic', tokenizer: 'claude' },
    { family: 'openai', tokenizer: 'o200k' },
    { family: 'openai', tokenizer: 'cl100k' },
    { family: 'default', tokenizer: 'claude' },
    { family: 'default', tokenizer: 'o200k' },
    { family: 'default', tokenizer: 'cl100k' },
  ];
  for (const { family, tokenizer } of comparisons) {
    for (const contentType of [...CONTENT_TYPES, 'all'] as const) {
      const errors = corpus.flatMap((sample, index) => {
        if (contentType !== 'all' && sample.type !== contentType) return [];
        const estimate = Math.ceil(weighFeatures(features[index]!, TOKEN_WEIGHTS[family]));
        return [(estimate - measured[index]![tokenizer]) / measured[index]![tokenizer]];
      });
      rows.push({
        family,
        tokenizer,
        contentType,
        samples: errors.length,
        meanErrorPct: round1((100 * errors.reduce((sum, error) => sum + Math.abs(error), 0)) / errors.length),
        maxErrorPct: round1(100 * Math.max(...errors)),
        minErrorPct: round1(100 * Math.min(...errors)),
        overEstimatePct: round1((100 * errors.filter((error) => error >= 0).length) / errors.length),
      });
    }
  }

  const estimateStarted = performance.now();
  for (const sample of corpus) countTokenFeatures(sample.text);
  const estimateMs = performance.now() - estimateStarted;
  const totalChars = corpus.reduce((sum, sample) => sum + sample.text.length, 0);

  console.table(rows.filter((row) => row.contentType === 'all'));
  console.table(rows.filter((row) => row.contentType !== 'all'));
  console.log(
    `corpus: ${corpus.length} samples, ${totalChars} chars; tokenizers ${tokenizeMs.toFixed(0)} ms, estimator ${estimateMs.toFixed(1)} ms`,
  );
  console.log(`wrote ${writeBenchResult('token-calibration', { weights: TOKEN_WEIGHTS, rows, totalChars, samples: corpus.length })}`);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

main();
