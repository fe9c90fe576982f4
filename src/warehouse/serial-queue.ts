/** Runs async tasks one at a time, in call order: a DuckDB connection executes one statement at a time. */
import pLimit, { type LimitFunction } from 'p-limit';

export class SerialQueue {
  private readonly limit: LimitFunction = pLimit(1);

  /** A failed task does not stop the queue: the next one still runs. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return this.limit(task);
  }
}
