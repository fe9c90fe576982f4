/** Runs an async function over items with at most `concurrency` calls in flight; results keep input order. */
import pLimit from 'p-limit';
import { CancelledError } from '../errors/index.js';

/**
 * The first rejection stops new calls from starting and rejects the whole map (calls already in
 * flight finish on their own). An aborted signal stops new calls the same way, with CancelledError.
 * A `concurrency` below 1 runs one call at a time.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  // rejectOnClear: calls still queued when the map fails settle (with AbortError) instead of hanging.
  const limit = pLimit({ concurrency: Math.max(1, Math.floor(concurrency)), rejectOnClear: true });
  let failure: { error: unknown } | undefined;
  const calls = items.map((item, index) =>
    limit(async () => {
      if (failure !== undefined) throw failure.error;
      if (signal?.aborted) throw new CancelledError('cancelled', { cause: signal.reason });
      try {
        return await fn(item, index);
      } catch (error) {
        // Recorded before the slot frees, so the next queued call sees it and does not start.
        if (failure === undefined) {
          failure = { error };
          limit.clearQueue();
        }
        throw error;
      }
    }),
  );
  try {
    return await Promise.all(calls);
  } catch (error) {
    throw failure === undefined ? error : failure.error;
  }
}
