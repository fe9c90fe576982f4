/**
 * The InsightBench harness: run discovery on one benchmark flag and score its insights against the
 * flag's ground truth (ROUGE-1 recall beside a template baseline always, an LLM judge when a real model
 * is configured).
 */
export {
  flagProfile,
  groundTruthOf,
  insightBenchFlagSchema,
  loadInsightBenchFlag,
  parseInsightBenchFlag,
  tableNameForFile,
  type FlagTable,
  type GroundTruthInsight,
  type InsightBenchFlag,
} from './flag.js';
export {
  runInsightBenchFlag,
  type FlagDiscovery,
  type FlagDiscoveryRequest,
  type InsightBenchInsight,
  type InsightBenchOptions,
  type InsightBenchReport,
} from './harness.js';
export { JUDGE_INSTRUCTIONS, judgeFindings, judgePromptSections, parseJudgeReply, type JudgeOutcome, type JudgeVerdict } from './judge.js';
export { INSIGHTBENCH_PACK_STRATEGY, choosePack, type PackChoice, type PackStrategy } from './pack-choice.js';
export { bestRouge1Match, ENGLISH_STOP_WORDS, rouge1Recall, rougeTokens, STOP_WORDS_SOURCE, type RougeOptions } from './rouge.js';
export {
  capText,
  countStatuses,
  foundInsights,
  INSIGHT_TEXT_CAP,
  isFound,
  liftOver,
  RAW_SCORING_RULE,
  rawInsightText,
  SCORING_RULE,
  scoreCandidates,
  scoredText,
  scoreRouge,
  scoreRougeRaw,
  scoreTemplateSentences,
  type GroundTruthMatch,
  type Lift,
  type RougeScore,
  type ScoredCandidate,
  type StatusCounts,
} from './score.js';
export {
  TEMPLATE_TOP_VALUES,
  templateSentence,
  templateSentences,
  type ColumnTopValues,
  type ColumnValueCount,
} from './template-baseline.js';
export { buildFlagWarehouse, type LoadedTable } from './warehouse.js';
