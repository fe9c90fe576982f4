/** Runs async tasks one at a time, in call order: a DuckDB connection executes one statement at a time. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    // the queue continues whether the task succeeded or failed
    this.tail = result.catch(() => undefined);
    return result;
  }
}
