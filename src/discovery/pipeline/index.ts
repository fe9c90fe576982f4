/** The run pipeline both drivers share: the state machine, the run-document reconcilers and the error policy. */
export {
  DEFAULT_RATE_LIMIT_PAUSE_MS,
  MAX_RATE_LIMIT_WAITS,
  STAGE_RETRY,
  classifyStageError,
  failureAfterAttempts,
  rethrowUnlessFinal,
  type PipelineWork,
  type RetryBudget,
  type StageError,
} from './error-policy.js';
export {
  ANALYSIS_PROGRESS,
  enterAnalysis,
  failMining,
  failRecommendations,
  failUnsettledAreas,
  failVerification,
  settleVerifications,
  stopExplorationAt,
  type InsightVerdict,
  type VerificationOutcomes,
} from './run-updates.js';
export {
  PIPELINE_STAGES,
  PIPELINE_START,
  STAGES_WITH_WORK,
  nextStage,
  type PipelineCommand,
  type PipelineStage,
  type PipelineState,
  type StageResult,
  type Transition,
} from './state-machine.js';
export {
  MAX_RUN_RECOVERIES,
  STUCK_RUN_GRACE_MS,
  coordinationFailed,
  countRecovery,
  judgeRun,
  recoveryOf,
  type CoordinatorState,
  type RecoveryVerdict,
  type StuckRunVerdict,
} from './stuck-runs.js';
