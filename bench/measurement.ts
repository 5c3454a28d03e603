/** Resident memory of the measured processes at one point of a crawl's progress. */
export interface ProgressMemory {
  /** Share of the expected pages fetched, in percent (25, 50, 75, 100). */
  percent: number;
  /** VmRSS by process role (`coordinator`, `worker`, `crawlee`), in bytes. */
  rssBytes: Record<string, number>;
}

/** What one crawler did on the measured crawl; both crawlers report this shape. */
export interface CrawlerMeasurement {
  crawler: 'Trawl' | 'Crawlee';
  /** Pages fetched successfully. */
  pages: number;
  /** Pages that failed for good. */
  failedPages: number;
  /** Wall-clock seconds from the start request to the end of the crawl. */
  seconds: number;
  pagesPerSecond: number;
  /**
   * Peak resident memory (VmHWM, boot and warm-up included) in bytes by role. Crawlee is one process
   * that is both coordinator and worker; it is reported as `worker`.
   */
  peakRssBytes: { coordinator?: number; worker: number };
  progressMemory: ProgressMemory[];
  /** CPU seconds used during the measured crawl, by process (or process group, e.g. `postgres`). */
  cpuSeconds: Record<string, number>;
  /** Crawler-specific facts worth keeping (settings, metrics deltas, RSS samples). */
  details: Record<string, unknown>;
}

/** Thrown when a crawl did not fetch the site it was given: the comparison would be meaningless. */
export class WrongCrawlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WrongCrawlError';
  }
}
