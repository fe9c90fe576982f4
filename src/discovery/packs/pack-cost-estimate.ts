/**
 * The cost estimate of a run of one pack, as `assay estimate` and `POST …/discover/estimate` both
 * compute it: the pack's prompts measured with the model's token estimator, the loop-compaction
 * constants the exploration loop really uses, and `estimateRunCost` over them.
 */
import { COMPACT_ASST_KEEP, COMPACT_HISTORY_MAX_CHARS, COMPACT_KEEP_TAIL, COMPACT_TOOL_KEEP } from '../../compaction/conversation.js';
import type { ModelCatalogEntry } from '../../llm/catalog.js';
import { estimateTokens } from '../../llm/tokens.js';
import { estimateRunCost, type RunCostEstimate } from '../cost-estimate.js';
import type { AnalysisArea, DomainPack } from './pack-schema.js';

/** Loop compaction keeps the last COMPACT_KEEP_TAIL messages whole; one exploration turn is two messages (action, result). */
const KEEP_TURNS = COMPACT_KEEP_TAIL / 2;
/** Chars per token for sizes known only in characters: the low end of what the calibration measured, so sizes err high. */
const CHARS_PER_TOKEN_FOR_CHAR_LIMITS = 3;
/**
 * A full turn: the action JSON plus a result message with its first 10 rows and digest. Measured at
 * 3,262 tokens per turn on the e-commerce demo run (test/e2e/simulated-run.test.ts).
 */
const FULL_TURN_TOKENS = 3_200;
/** Level-0 catalog of a ~150-table warehouse (about 25 tokens a line) when the caller does not know its size. */
export const DEFAULT_CATALOG_TOKENS = 4_000;

export interface PackRunEstimateInput {
  entry: ModelCatalogEntry;
  pack: DomainPack;
  /** The areas the run analyses (the pack's, its category's, or a selection). */
  areas: readonly AnalysisArea[];
  maxSteps: number;
  catalogTokens: number;
}

export function estimatePackRunCost(input: PackRunEstimateInput): RunCostEstimate {
  const { entry, pack, areas } = input;
  const measure = (text: string): number => estimateTokens(text, entry.family);
  return estimateRunCost({
    catalogEntry: entry,
    catalogTokens: input.catalogTokens,
    basePromptTokens: measure(pack.prompts.base_context),
    explorationPromptTokens: measure(pack.prompts.exploration),
    maxSteps: input.maxSteps,
    areas: areas.length,
    avgAnalysisPromptTokens: areas.length === 0 ? 0 : Math.ceil(areas.reduce((sum, area) => sum + measure(area.prompt), 0) / areas.length),
    loopCompaction: {
      keepTurns: KEEP_TURNS,
      perOldTurnTokens: Math.ceil((COMPACT_ASST_KEEP + COMPACT_TOOL_KEEP) / CHARS_PER_TOKEN_FOR_CHAR_LIMITS),
      perRecentTurnTokens: FULL_TURN_TOKENS,
      maxCompactedHistoryTokens: Math.ceil(COMPACT_HISTORY_MAX_CHARS / CHARS_PER_TOKEN_FOR_CHAR_LIMITS),
    },
  });
}
