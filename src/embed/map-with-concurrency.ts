/** Runs an async function over items with at most `concurrency` calls in flight; results keep input order. */
import { CancelledError } from '../errors/index.js';

/**
 * The first rejection stops new calls from starting and rejects the whole map (calls already in
 * flight finish on their own). An aborted signal stops new calls the same way, with CancelledError.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  async function worker(): Promise<void> {
    while (!failed && next < items.length) {
      if (signal?.aborted) throw new CancelledError('cancelled', { cause: signal.reason });
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  }
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, () => worker());
  await Promise.all(workers);
  return results;
}
