/**
 * The retry policy for LLM calls — the single owner of retries (provider SDKs run with their
 * own retries off, so attempts never multiply). Exponential backoff with full jitter, the
 * provider's retry-after honoured, only retryable kinds retried, and every wait abortable.
 */
import { CancelledError, LlmError, type LlmErrorKind } from '../errors/index.js';

/** Kinds worth another attempt: the same request may succeed later. Overflow, auth and bad requests never do. */
export const RETRYABLE_LLM_ERROR_KINDS: ReadonlySet<LlmErrorKind> = new Set(['rate_limit', 'transient', 'timeout']);

export interface RetryOptions {
  /** Attempts in total, the first included. @defaultValue 4 */
  maxAttempts?: number;
  /** Ceiling of the first backoff; doubles per attempt. @defaultValue 1000 */
  baseDelayMs?: number;
  /** Ceiling of any single backoff. @defaultValue 30000 */
  maxDelayMs?: number;
  /** A provider's retry-after above this is not waited out: the error surfaces instead. @defaultValue 120000 */
  maxRetryAfterMs?: number;
  /** Give up rather than start a wait that would end after this much time since the first attempt. */
  maxElapsedMs?: number;
  signal?: AbortSignal | undefined;
  /** Injectable for tests. */
  random?: () => number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Kinds retried here. @defaultValue RETRYABLE_LLM_ERROR_KINDS. The discovery phases leave `rate_limit`
   * out, so a 429 reaches their driver at once (the fleet pauses the whole queue for the retry-after).
   */
  retryKinds?: ReadonlySet<LlmErrorKind>;
  /** Told before each wait (for logs and metrics). */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** The attempt that failed (1-based). */
  attempt: number;
  delayMs: number;
  error: LlmError;
}

export const DEFAULT_MAX_ATTEMPTS = 4;
export const DEFAULT_BASE_DELAY_MS = 1_000;
export const DEFAULT_MAX_DELAY_MS = 30_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;

export function isRetryableLlmError(error: unknown): error is LlmError {
  return error instanceof LlmError && RETRYABLE_LLM_ERROR_KINDS.has(error.info.kind);
}

/**
 * Wait before retrying after `attempt` failed: full jitter (uniform in [0, min(max, base·2^(attempt-1))]),
 * but never less than the provider's retry-after.
 */
export function backoffDelayMs(attempt: number, retryAfterMs: number | undefined, options: RetryOptions = {}): number {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const ceiling = Math.min(options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS, base * 2 ** (attempt - 1));
  const jittered = Math.floor((options.random ?? Math.random)() * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Resolves after `ms`, or rejects with CancelledError as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new CancelledError('cancelled while waiting to retry an LLM call'));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new CancelledError('cancelled while waiting to retry an LLM call'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Run `operation` until it succeeds, a non-retryable error is thrown, or the attempts run out
 * (the last error is rethrown unchanged). `operation` receives the 1-based attempt number.
 */
export async function withRetry<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const started = now();
  for (let attempt = 1; ; attempt += 1) {
    if (options.signal?.aborted) throw new CancelledError('cancelled before an LLM call');
    try {
      return await operation(attempt);
    } catch (error) {
      if (!isRetryableLlmError(error) || !(options.retryKinds ?? RETRYABLE_LLM_ERROR_KINDS).has(error.info.kind) || attempt >= maxAttempts)
        throw error;
      const retryAfterMs = error.info.retryAfterMs;
      if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) throw error;
      const delayMs = backoffDelayMs(attempt, retryAfterMs, options);
      if (options.maxElapsedMs !== undefined && now() - started + delayMs > options.maxElapsedMs) throw error;
      options.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }
}
