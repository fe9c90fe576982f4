/** The run's outcome rules as pure functions: a verification's status, the run's type and its final status. */
import type { AreaRun, RunType, ValidationStatus } from '../domain/index.js';

/** Verified within this relative distance of the claim counts as confirmed (discovery-lifecycle seed: 20 %). */
export const VERIFICATION_TOLERANCE = 0.2;

export interface VerificationOutcome {
  status: ValidationStatus;
  reasoning: string;
}

/**
 * Status of a verified count against a claimed one. The claim itself is never changed:
 * adjusted records the verified value beside it; rejected means the warehouse found none.
 */
export function classifyVerification(claimed: number | null, verified: number | null, queryError?: string): VerificationOutcome {
  if (claimed === null || claimed <= 0)
    return { status: 'skipped', reasoning: 'the insight claims no count, so there is nothing to verify' };
  if (queryError !== undefined) return { status: 'error', reasoning: `verification query failed: ${queryError}` };
  if (verified === null || !Number.isFinite(verified))
    return { status: 'error', reasoning: 'the verification query returned no numeric count' };
  if (verified === 0) return { status: 'rejected', reasoning: `the warehouse returned 0 where the insight claims ${claimed}` };
  const ratio = verified / claimed;
  if (Math.abs(ratio - 1) <= VERIFICATION_TOLERANCE) {
    return { status: 'confirmed', reasoning: `verified ${verified} is within ${VERIFICATION_TOLERANCE * 100}% of the claimed ${claimed}` };
  }
  return { status: 'adjusted', reasoning: `verified ${verified} differs from the claimed ${claimed} (ratio ${ratio.toFixed(2)})` };
}

export interface RunTypeInput {
  cancelled: boolean;
  areas: Array<Pick<AreaRun, 'status'>>;
  /** Exploration stopped early on an LLM failure (the steps before it are kept). */
  explorationFailed: boolean;
  /** A fatal error before or outside analysis (no areas could run). */
  fatalError?: string | undefined;
  /** Statements stopped by the statement timeout, in any stage: what they would have shown is missing. */
  queryTimeouts?: number | undefined;
}

/**
 * full: every requested area completed, exploration ended normally and no statement timed out;
 * partial: some areas failed, exploration broke off early, or statements timed out; failed: no area completed (or a fatal error); cancelled.
 */
export function decideRunType(input: RunTypeInput): RunType {
  if (input.cancelled) return 'cancelled';
  if (input.fatalError !== undefined) return 'failed';
  const completed = input.areas.filter((area) => area.status === 'completed').length;
  if (input.areas.length === 0 || completed === 0) return 'failed';
  if (completed < input.areas.length || input.explorationFailed || (input.queryTimeouts ?? 0) > 0) return 'partial';
  return 'full';
}

/** A failed run is never reported as completed. */
export function runStatusFor(runType: RunType): 'completed' | 'failed' | 'cancelled' {
  if (runType === 'failed') return 'failed';
  if (runType === 'cancelled') return 'cancelled';
  return 'completed';
}
