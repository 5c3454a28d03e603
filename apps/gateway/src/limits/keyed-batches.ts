/**
 * Gathers work items by key so that items of one key arriving close together are handled by one
 * call of `run`: an item that may wait lingers up to `lingerMs` for others of its key, or until
 * `maxBatch` wait, or until its `until` settles (it is needed now); then its batch goes with
 * everything of its key that waits. An item that may not wait is sent at once, with whatever of
 * its key waits already. `run` answers each item of the batch, in order, or fails them all.
 */
export class KeyedBatches<K, T, R> {
  private readonly waiting = new Map<K, Batch<T, R>>();

  constructor(
    private readonly options: {
      run: (key: K, items: T[]) => Promise<R[]>;
      lingerMs: number;
      maxBatch: number;
      /** Told the size of each batch sent. */
      onBatch?: (size: number) => void;
    },
  ) {}

  /** Answers `item`; it may wait for others unless `until` is undefined. */
  add(key: K, item: T, until?: Promise<unknown>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let batch = this.waiting.get(key);
      if (!batch) {
        batch = { items: [], settle: [] };
        this.waiting.set(key, batch);
      }
      batch.items.push(item);
      batch.settle.push({ resolve, reject });
      const wait = until !== undefined && this.options.lingerMs > 0 && batch.items.length < this.options.maxBatch;
      if (!wait) return this.send(key);
      batch.timer ??= setTimeout(() => this.send(key), this.options.lingerMs);
      const waiting = batch;
      const needed = () => {
        if (this.waiting.get(key) === waiting) this.send(key);
      };
      until.then(needed, needed);
    });
  }

  /** Items waiting now, all keys. */
  get size(): number {
    let size = 0;
    for (const batch of this.waiting.values()) size += batch.items.length;
    return size;
  }

  private send(key: K): void {
    const batch = this.waiting.get(key);
    if (!batch) return;
    this.waiting.delete(key);
    clearTimeout(batch.timer);
    this.options.onBatch?.(batch.items.length);
    this.options.run(key, batch.items).then(
      (results) => batch.settle.forEach((s, i) => s.resolve(results[i]!)),
      (error: unknown) => batch.settle.forEach((s) => s.reject(error)),
    );
  }
}

interface Batch<T, R> {
  items: T[];
  settle: Array<{ resolve(value: R): void; reject(error: unknown): void }>;
  timer?: NodeJS.Timeout;
}
