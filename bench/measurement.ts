/** When a crawl reached a point of its progress, and the resident memory of its processes then. */
export interface ProgressMark {
  /** Share of the expected pages fetched, in percent (25, 50, 75, 100). */
  percent: number;
  /** Seconds since the crawl started. */
  atSeconds: number;
  /**
   * Memory by process role (`coordinator`, `worker`, `gateway`, `crawlee`, `limit`: VmRSS;
   * `postgres`: PSS of every Postgres process, the server being shared), in bytes.
   */
  rssBytes: Record<string, number>;
}

/** What one crawler did on the measured crawl; both crawlers report this shape. */
export interface CrawlerMeasurement {
  crawler: 'Trawl' | 'Trawl (variant)' | 'Crawlee' | 'one-process limit';
  /** Pages fetched successfully. */
  pages: number;
  /** Pages that failed for good. */
  failedPages: number;
  /** Wall-clock seconds from the start request to the end of the crawl. */
  seconds: number;
  pagesPerSecond: number;
  /**
   * Peak resident memory (VmHWM, boot and warm-up included) in bytes by role. Crawlee and the
   * one-process limit are one process each, both coordinator and worker; reported as `worker`.
   */
  peakRssBytes: { coordinator?: number; worker: number };
  progress: ProgressMark[];
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
