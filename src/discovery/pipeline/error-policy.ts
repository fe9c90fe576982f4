/**
 * The one error policy of a run (docs/architecture.md, "Error policy"). A phase records only FINAL
 * failures on the run (a malformed reply after its reformat retries, a refused statement, a broken
 * pack); everything a later attempt may fix — a provider rate limit, a transient or timed-out call, a
 * store or network hiccup — is rethrown, and the driver (the BullMQ workers or the in-process runner)
 * decides: wait out the rate limit (the fleet pauses the whole queue), retry with backoff, and, when
 * the attempts run out, record the failure on the run through the pipeline's reconcilers.
 */
import { AssayError, CancelledError, LlmError, describeError, type ErrorCode } from '../../errors/index.js';

/** Failures no retry can fix: bad input, a missing run, a broken pack or config, refused SQL. */
const PERMANENT_CODES: ReadonlySet<ErrorCode> = new Set([
  'validation',
  'not_found',
  'conflict',
  'pack',
  'config',
  'unsafe_sql',
  'sql_syntax',
]);

/** Pause after a 429 that did not say how long to wait. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 30_000;

export type StageError =
  | { kind: 'cancelled'; reason: string }
  | { kind: 'rate_limited'; retryAfterMs: number; reason: string }
  | { kind: 'retryable'; reason: string }
  | { kind: 'final'; reason: string };

export function classifyStageError(error: unknown): StageError {
  if (error instanceof CancelledError || (error instanceof LlmError && error.kind === 'aborted'))
    return { kind: 'cancelled', reason: (error as Error).message };
  if (error instanceof LlmError) {
    if (error.kind === 'rate_limit')
      return { kind: 'rate_limited', retryAfterMs: error.info.retryAfterMs ?? DEFAULT_RATE_LIMIT_PAUSE_MS, reason: describeError(error) };
    return error.info.isRetryable ? { kind: 'retryable', reason: describeError(error) } : { kind: 'final', reason: describeError(error) };
  }
  if (error instanceof AssayError && PERMANENT_CODES.has(error.code)) return { kind: 'final', reason: `${error.code}: ${error.message}` };
  return { kind: 'retryable', reason: describeError(error) };
}

/** For phases: rethrow anything that is not theirs to record (cancellation and whatever a retry may fix). */
export function rethrowUnlessFinal(error: unknown): void {
  if (classifyStageError(error).kind !== 'final') throw error;
}

/**
 * The work units a driver runs, each with its retry budget (the fleet's job options use the same
 * numbers). `coordinate` is the driver's own work between stages — reading the run, applying a
 * transition's update: the fleet's coordinator job retries it, the in-process driver likewise, and
 * when the attempts run out both take the run up again under the recovery policy (`stuck-runs.ts`).
 */
export type PipelineWork = 'coordinate' | 'prepare' | 'explore' | 'mine' | 'analyze' | 'verify' | 'recommend';

export interface RetryBudget {
  /** Attempts in total, the first included. */
  attempts: number;
  /** First backoff; doubles per attempt (with jitter on the fleet). */
  backoffDelayMs: number;
}

export const STAGE_RETRY: Readonly<Record<PipelineWork, RetryBudget>> = {
  coordinate: { attempts: 5, backoffDelayMs: 2_000 },
  prepare: { attempts: 5, backoffDelayMs: 2_000 },
  explore: { attempts: 3, backoffDelayMs: 5_000 },
  mine: { attempts: 2, backoffDelayMs: 5_000 },
  analyze: { attempts: 3, backoffDelayMs: 10_000 },
  verify: { attempts: 3, backoffDelayMs: 5_000 },
  recommend: { attempts: 3, backoffDelayMs: 10_000 },
};

/**
 * Rate-limit waits one unit of work is given, in both drivers (the in-process runner's count in
 * `underPolicy`, the fleet's in the job's data): past it, a rate limit spends an attempt like any
 * retryable failure, so a provider that never stops refusing ends the unit once its attempts run out.
 */
export const MAX_RATE_LIMIT_WAITS = 10;

/** What a unit of work records when its last attempt fails retryably, in both drivers. */
export function failureAfterAttempts(reason: string, attempts: number): string {
  return `${reason} (after ${attempts} attempts)`;
}
