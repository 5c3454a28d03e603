/**
 * A small map whose entries live at most `ttlMs` and which keeps at most `maxEntries`, dropping the
 * least recently used first. In-process only: each gateway replica has its own.
 */
export class TtlLruCache<K, V> {
  // A Map iterates in insertion order; re-inserting on read keeps the least recently used first.
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly options: {
      /** Lifetime of an entry, in ms. 0 disables the cache. */
      ttlMs: number;
      maxEntries: number;
      now?: () => number;
    },
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.options.ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
