import type { MessagingTopology } from '@trawl/contracts';
import type { StopDeadlines } from '@trawl/service-kit';

export const COORDINATOR_SETTINGS = Symbol('COORDINATOR_SETTINGS');

/** Tunables of the crawl coordinator (from config), with units. */
export interface CoordinatorSettings {
  topology: MessagingTopology;
  /** Most pages in flight (dispatched, unanswered) across all crawls. */
  dispatchWindow: number;
  /** Most pages one crawl gets per dispatch round, so crawls share the window. */
  dispatchPerCrawl: number;
  /** Most pages of one crawl per task message (1: each page alone). */
  pagesPerTaskMessage: number;
  /** How long a claim stays valid before the reconciler hands the page out again, ms. */
  leaseMs: number;
  /** Claims per page before it counts as failed. */
  maxAttempts: number;
  /** After a stop, how long pages already in flight still add their links, ms (spec: 10 minutes). */
  stopWindowMs: number;
  reconcileIntervalMs: number;
  /** Idle dispatcher poll interval when nothing woke it, ms. */
  dispatchPollMs: number;
  /** Most result messages applied in one transaction. */
  resultBatch: number;
  /** How long the first result of a batch waits for more before the batch is applied, ms. */
  resultWaitMs: number;
  /** Idle sitemap seeder poll interval when nothing woke it, ms. */
  sitemapPollMs: number;
  /** Time a worker has to read one crawl's sitemaps, ms. */
  sitemapTimeoutMs: number;
  /** Shares of `SHUTDOWN_TIMEOUT_MS` the loops and the result intake stop within. */
  stopDeadlines: StopDeadlines;
}
