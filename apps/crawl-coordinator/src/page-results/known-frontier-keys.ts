/**
 * Frontier keys the coordinator knows its crawls' frontiers hold, so that a link met again — most
 * links of a site are met many times — is told a duplicate here instead of by an index probe in
 * Postgres (a third of Postgres's CPU per page on 30,000 pages of 21 links each; bench/README.md).
 *
 * Sound because a crawl's frontier rows are never deleted, and a key is remembered only once the
 * transaction that inserted it (or found it) committed: a key known here is in the crawl's frontier.
 * What is not known here is asked of Postgres as before. Each replica knows what it saw; bounded
 * to `capacity` keys in all, the oldest forgotten first (about 90 bytes of heap each).
 */
export class KnownFrontierKeys {
  private readonly keys = new Set<string>();

  /** @param capacity Keys kept across all crawls; 0 remembers nothing. */
  constructor(private readonly capacity: number) {}

  /** The candidates whose key is not known to be in the crawl's frontier, in their order. */
  unknown<T extends { key: Buffer }>(crawlId: string, candidates: T[]): T[] {
    if (this.keys.size === 0) return candidates;
    return candidates.filter((candidate) => !this.keys.has(entry(crawlId, candidate.key)));
  }

  /** Call only after the transaction that proved these keys are in the crawl's frontier committed. */
  remember(crawlId: string, keys: readonly Buffer[]): void {
    if (this.capacity === 0) return;
    for (const key of keys) this.keys.add(entry(crawlId, key));
    if (this.keys.size <= this.capacity) return;
    let excess = this.keys.size - this.capacity;
    for (const oldest of this.keys) {
      this.keys.delete(oldest);
      if (--excess === 0) break;
    }
  }

  get size(): number {
    return this.keys.size;
  }
}

// A crawl id is a fixed-length UUID, and a key 16 bytes (one character each in latin1).
function entry(crawlId: string, key: Buffer): string {
  return crawlId + key.toString('latin1');
}
