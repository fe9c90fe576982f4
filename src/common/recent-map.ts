/** A bounded map for documents a store keeps in memory: most recently used last, the oldest dropped when full. */
export class RecentMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  deleteWhere(matches: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (matches(key)) this.entries.delete(key);
  }
}
