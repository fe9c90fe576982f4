/** Runs an async function over items with at most `concurrency` calls in flight; results keep input order. */
import pMap from 'p-map';
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
  return pMap(
    items,
    (item, index) => {
      if (signal?.aborted) throw new CancelledError('cancelled', { cause: signal.reason });
      return fn(item, index);
    },
    { concurrency: Math.max(1, concurrency), stopOnError: true },
  );
}
