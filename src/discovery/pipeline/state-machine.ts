/**
 * The run pipeline as one pure state machine, driven the same way by the BullMQ coordinator and the
 * in-process runner:
 *
 *   prepare → explore 1 … n → mine → analyze (areas, each with its verifications) → recommend → finalize
 *
 * A driver executes the command, reports how the stage ended, and applies the transition's update to
 * the run document (atomically, through the store) before executing the next command. Nothing here
 * does I/O, so both drivers share exactly the same transitions and failure semantics.
 */
import type { Run } from '../../domain/index.js';
import {
  enterAnalysis,
  failMining,
  failRecommendations,
  failUnsettledAreas,
  settleVerifications,
  stopExplorationAt,
  type VerificationOutcomes,
} from './run-updates.js';

/** The stages, in order: the one declaration both drivers and the fleet's job contracts derive theirs from. */
export const PIPELINE_STAGES = ['prepare', 'explore', 'mine', 'analyze', 'recommend', 'finalize'] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];
/** Stages whose work a driver runs and waits for; `finalize` ends the run where it is decided. */
export const STAGES_WITH_WORK: readonly PipelineStage[] = PIPELINE_STAGES.filter((stage) => stage !== 'finalize');

export interface PipelineState {
  stage: PipelineStage;
  /** The exploration step in flight (stage `explore`); 0 otherwise. */
  step: number;
}

/** How a stage ended, as its driver saw it; `failure` is set only when the work failed for good. */
export type StageResult =
  | { stage: 'prepare'; failure?: string | undefined }
  | { stage: 'explore'; step: number; finished: boolean; failure?: string | undefined }
  /** Mining failed for good: analysis goes on from the exploration digests alone. */
  | { stage: 'mine'; failure?: string | undefined }
  /**
   * Areas whose work failed for good without recording an outcome, with the reason; and every
   * verification's verdict or final failure, stored by the transition in one update.
   */
  | { stage: 'analyze'; failures: ReadonlyMap<string, string>; verifications: VerificationOutcomes }
  | { stage: 'recommend'; failure?: string | undefined };

export type PipelineCommand =
  | { do: 'prepare' }
  | { do: 'explore'; step: number }
  | { do: 'mine' }
  | { do: 'analyze' }
  | { do: 'recommend' }
  | { do: 'finalize'; fatalError?: string };

export interface Transition {
  state: PipelineState;
  command: PipelineCommand;
  /** Applied to the run document before the command runs. */
  update?: (run: Run) => Run;
}

export const PIPELINE_START: Transition = { state: { stage: 'prepare', step: 0 }, command: { do: 'prepare' } };

/** After exploration, the engine mines the warehouse; entering it is entering analysis (phase and progress). */
function toMining(update?: (run: Run) => Run): Transition {
  return { state: { stage: 'mine', step: 0 }, command: { do: 'mine' }, update: (run) => enterAnalysis(update ? update(run) : run) };
}

/** The next stage after `result`, for a run with `maxSteps` exploration steps. */
export function nextStage(result: StageResult, maxSteps: number): Transition {
  switch (result.stage) {
    case 'prepare':
      if (result.failure !== undefined)
        return { state: { stage: 'finalize', step: 0 }, command: { do: 'finalize', fatalError: `prepare failed: ${result.failure}` } };
      return maxSteps >= 1 ? { state: { stage: 'explore', step: 1 }, command: { do: 'explore', step: 1 } } : toMining();
    case 'explore': {
      if (result.failure !== undefined) {
        const reason = result.failure;
        return toMining((run) => stopExplorationAt(run, result.step, reason));
      }
      if (result.finished || result.step + 1 > maxSteps) return toMining();
      return { state: { stage: 'explore', step: result.step + 1 }, command: { do: 'explore', step: result.step + 1 } };
    }
    case 'mine': {
      const reason = result.failure;
      return {
        state: { stage: 'analyze', step: 0 },
        command: { do: 'analyze' },
        ...(reason !== undefined ? { update: (run: Run) => failMining(run, reason) } : {}),
      };
    }
    case 'analyze':
      return {
        state: { stage: 'recommend', step: 0 },
        command: { do: 'recommend' },
        update: (run) => failUnsettledAreas(settleVerifications(run, result.verifications, result.failures), result.failures),
      };
    case 'recommend': {
      const reason = result.failure;
      return {
        state: { stage: 'finalize', step: 0 },
        command: { do: 'finalize' },
        ...(reason !== undefined ? { update: (run: Run) => failRecommendations(run, reason) } : {}),
      };
    }
  }
}
