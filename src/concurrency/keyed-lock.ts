/** Serialises async sections per key within this process (a run's updates, one discover per project at a time). */
import { Mutex } from 'async-mutex';

export class KeyedLock {
  /** One mutex per key while anyone holds or waits for it; `users` lets the last one remove it. */
  private readonly locks = new Map<string, { mutex: Mutex; users: number }>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let entry = this.locks.get(key);
    if (!entry) {
      entry = { mutex: new Mutex(), users: 0 };
      this.locks.set(key, entry);
    }
    entry.users += 1;
    try {
      return await entry.mutex.runExclusive(task);
    } finally {
      entry.users -= 1;
      if (entry.users === 0) this.locks.delete(key);
    }
  }
}
