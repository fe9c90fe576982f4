/** A concurrency limit on p-limit: at most `concurrency` tasks run at once, the rest wait in call order. */
import pLimit from 'p-limit';

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** A limiter of `concurrency` slots; `createLimiter(1)` runs tasks one at a time, in call order (a failure does not stop the next). */
export function createLimiter(concurrency: number): Limiter {
  assertConcurrency(concurrency);
  const limit = pLimit(concurrency);
  return (task) => limit(task);
}

export function assertConcurrency(concurrency: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number ≥ 1, got ${concurrency}: pass how many tasks may run at once`);
  }
}
