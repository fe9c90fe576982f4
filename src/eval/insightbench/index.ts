/**
 * The InsightBench harness: run discovery on one benchmark flag and score its insights against the
 * flag's ground truth (ROUGE-1 recall always, an LLM judge when a real model is configured).
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
export { bestRouge1Match, rouge1Recall, rougeTokens } from './rouge.js';
export {
  countStatuses,
  insightText,
  scoreRouge,
  scoredInsights,
  type GroundTruthMatch,
  type RougeScore,
  type StatusCounts,
} from './score.js';
export { buildFlagWarehouse, type LoadedTable } from './warehouse.js';
