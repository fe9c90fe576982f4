import { afterEach, describe, expect, it, vi } from 'vitest';
import { CancelledError, LlmError, type LlmErrorKind } from '../../../src/errors/index.js';
import { abortableSleep, backoffDelayMs, withRetry } from '../../../src/llm/retry.js';

function llmError(kind: LlmErrorKind, retryAfterMs?: number): LlmError {
  return new LlmError(`provider said ${kind}`, { kind, isRetryable: kind !== 'invalid_request', provider: 'scripted', retryAfterMs });
}

/** A fake clock: sleeping advances it instantly and records every wait. */
function fakeClock() {
  let time = 0;
  const waits: number[] = [];
  return {
    waits,
    now: () => time,
    sleep: async (ms: number) => {
      waits.push(ms);
      time += ms;
    },
  };
}

/** An operation that fails with the given errors in order, then returns 'ok'. */
function scripted(errors: LlmError[]) {
  const attempts: number[] = [];
  return {
    attempts,
    run: async (attempt: number) => {
      attempts.push(attempt);
      const error = errors[attempts.length - 1];
      if (error) throw error;
      return 'ok';
    },
  };
}

describe('when a retryable error occurs', () => {
  it('retries with exponential full-jitter backoff and returns the eventual success', async () => {
    const clock = fakeClock();
    const operation = scripted([llmError('transient'), llmError('timeout'), llmError('transient')]);
    const result = await withRetry(operation.run, { ...clock, random: () => 0.5, baseDelayMs: 1_000 });
    expect(result).toBe('ok');
    expect(operation.attempts).toEqual([1, 2, 3, 4]);
    expect(clock.waits).toEqual([500, 1_000, 2_000]);
  });

  it('draws each wait uniformly below the doubling ceiling, capped at maxDelayMs', () => {
    expect(backoffDelayMs(1, undefined, { random: () => 0.999, baseDelayMs: 1_000 })).toBe(999);
    expect(backoffDelayMs(10, undefined, { random: () => 0.999, baseDelayMs: 1_000, maxDelayMs: 30_000 })).toBe(29_970);
    expect(backoffDelayMs(3, undefined, { random: () => 0 })).toBe(0);
  });

  it('waits at least the retry-after the provider asked for on a rate limit', async () => {
    const clock = fakeClock();
    const operation = scripted([llmError('rate_limit', 7_000)]);
    await withRetry(operation.run, { ...clock, random: () => 0.1 });
    expect(clock.waits).toEqual([7_000]);
  });

  it('gives up after maxAttempts and rethrows the last error unchanged', async () => {
    const clock = fakeClock();
    const last = llmError('transient');
    const operation = scripted([llmError('transient'), llmError('transient'), last]);
    await expect(withRetry(operation.run, { ...clock, maxAttempts: 3, random: () => 0 })).rejects.toBe(last);
    expect(operation.attempts).toEqual([1, 2, 3]);
  });

  it('defaults to four attempts', async () => {
    const clock = fakeClock();
    const operation = scripted(Array.from({ length: 10 }, () => llmError('transient')));
    await expect(withRetry(operation.run, { ...clock, random: () => 0 })).rejects.toBeInstanceOf(LlmError);
    expect(operation.attempts).toHaveLength(4);
  });

  it('surfaces a retry-after longer than it is willing to wait, and stops at maxElapsedMs', async () => {
    const tooLong = scripted([llmError('rate_limit', 600_000)]);
    await expect(withRetry(tooLong.run, { ...fakeClock(), maxRetryAfterMs: 60_000 })).rejects.toMatchObject({
      info: { retryAfterMs: 600_000 },
    });
    const deadline = scripted([llmError('rate_limit', 5_000), llmError('rate_limit', 5_000)]);
    await expect(withRetry(deadline.run, { ...fakeClock(), maxElapsedMs: 8_000, random: () => 0 })).rejects.toBeInstanceOf(LlmError);
    expect(deadline.attempts).toEqual([1, 2]);
  });
});

describe('when the error is not retryable', () => {
  for (const kind of ['context_overflow', 'auth', 'invalid_request', 'aborted', 'malformed_output'] as const) {
    it(`does not retry ${kind}`, async () => {
      const clock = fakeClock();
      const operation = scripted([llmError(kind)]);
      await expect(withRetry(operation.run, clock)).rejects.toMatchObject({ info: { kind } });
      expect(operation.attempts).toEqual([1]);
      expect(clock.waits).toEqual([]);
    });
  }

  it('does not retry errors that are not LlmErrors', async () => {
    let calls = 0;
    await expect(withRetry(async () => ((calls += 1), Promise.reject(new TypeError('bug'))), fakeClock())).rejects.toBeInstanceOf(
      TypeError,
    );
    expect(calls).toBe(1);
  });
});

describe('when the call is cancelled', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects the backoff wait with CancelledError as soon as the signal aborts', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const operation = scripted([llmError('transient'), llmError('transient')]);
    const pending = withRetry(operation.run, { signal: controller.signal, random: () => 0.99, baseDelayMs: 10_000 });
    const assertion = expect(pending).rejects.toBeInstanceOf(CancelledError);
    await vi.advanceTimersByTimeAsync(1_000);
    controller.abort();
    await assertion;
    expect(operation.attempts).toEqual([1]);
  });

  it('sleeps for the full time when not aborted, and refuses to start when already aborted', async () => {
    vi.useFakeTimers();
    let done = false;
    const sleeping = abortableSleep(5_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(done).toBe(true);
    const controller = new AbortController();
    controller.abort();
    await expect(withRetry(async () => 'never', { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
  });
});
