/**
 * The cost estimate of a run of one pack, as `assay estimate` and `POST …/discover/estimate` both
 * compute it: the pack's prompts measured with the model's token estimator, the loop-compaction
 * constants the exploration loop really uses, the tool definitions the model's protocol sends, and
 * `estimateRunCost` over them — with and without prompt caching.
 */
import { COMPACT_ASST_KEEP, COMPACT_HISTORY_MAX_CHARS, COMPACT_KEEP_TAIL, COMPACT_TOOL_KEEP } from '../../compaction/conversation.js';
import type { ModelCatalogEntry } from '../../llm/catalog.js';
import { toolDefinitionTokens } from '../../llm/prompt-builder.js';
import { answerRequest, nativeAnswerNote, type ProtocolPreference } from '../../llm/structured-output.js';
import { estimateTokens } from '../../llm/tokens.js';
import { estimateRunCost, type RunCostEstimate } from '../cost-estimate.js';
import { EXPLORER_ACTIONS, actionAnswer } from '../parsing/action-parser.js';
import { EXPLORATION_TAIL_GROWTH, MAX_REFORMAT_RETRIES } from '../phases/explore-step.js';
import type { AnalysisArea, DomainPack } from './pack-schema.js';

/** Loop compaction keeps the last COMPACT_KEEP_TAIL messages whole; one exploration turn is two messages (action, result). */
const KEEP_TURNS = COMPACT_KEEP_TAIL / 2;
/** Chars per token for sizes known only in characters: the low end of what the calibration measured, so sizes err high. */
const CHARS_PER_TOKEN_FOR_CHAR_LIMITS = 3;
/**
 * A full turn: the action (thinking, purpose, SQL) plus a result message with its first 10 rows, digest and
 * budget footer. Measured at 437 + 713 tokens (+ 16 of message overhead) per turn on the 60-step e-commerce
 * demo run (docs/llm.md).
 */
const FULL_TURN_TOKENS = 1_170;
/** The working notes the offline analyst keeps (1,478 tokens on that run), written in its first three steps. */
const NOTES = { tokens: 1_500, settledAfterStep: 3 } as const;
export { DEFAULT_CATALOG_TOKENS } from '../../schema/constants.js';

export interface PackRunEstimateInput {
  entry: ModelCatalogEntry;
  pack: DomainPack;
  /** The areas the run analyses (the pack's, its category's, or a selection). */
  areas: readonly AnalysisArea[];
  maxSteps: number;
  catalogTokens: number;
  /** `config.llmProtocol`: with native tools the exploration prompt also carries their definitions. @defaultValue `auto` */
  protocol?: ProtocolPreference;
}

/** Tokens the exploration protocol adds to every call: tool definitions and the note on how to answer. */
export function explorationProtocolTokens(entry: ModelCatalogEntry, protocol: ProtocolPreference = 'auto'): number {
  const request = answerRequest(actionAnswer(EXPLORER_ACTIONS, MAX_REFORMAT_RETRIES), entry, protocol);
  const note = nativeAnswerNote(request);
  return toolDefinitionTokens(request, entry.family) + (note === undefined ? 0 : estimateTokens(note, entry.family));
}

export function estimatePackRunCost(input: PackRunEstimateInput): RunCostEstimate {
  const { entry, pack, areas } = input;
  const measure = (text: string): number => estimateTokens(text, entry.family);
  return estimateRunCost({
    catalogEntry: entry,
    catalogTokens: input.catalogTokens,
    basePromptTokens: measure(pack.prompts.base_context),
    explorationPromptTokens: measure(pack.prompts.exploration),
    explorationToolTokens: explorationProtocolTokens(entry, input.protocol),
    maxSteps: input.maxSteps,
    areas: areas.length,
    avgAnalysisPromptTokens: areas.length === 0 ? 0 : Math.ceil(areas.reduce((sum, area) => sum + measure(area.prompt), 0) / areas.length),
    loopCompaction: {
      keepTurns: KEEP_TURNS,
      tailGrowthTurns: EXPLORATION_TAIL_GROWTH / 2,
      perOldTurnTokens: Math.ceil((COMPACT_ASST_KEEP + COMPACT_TOOL_KEEP) / CHARS_PER_TOKEN_FOR_CHAR_LIMITS),
      perRecentTurnTokens: FULL_TURN_TOKENS,
      maxCompactedHistoryTokens: Math.ceil(COMPACT_HISTORY_MAX_CHARS / CHARS_PER_TOKEN_FOR_CHAR_LIMITS),
    },
    notes: NOTES,
  });
}
