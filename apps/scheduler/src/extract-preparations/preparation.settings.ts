import type { MessagingTopology } from '@trawl/contracts';
import type { StopDeadlines } from '@trawl/service-kit';

/** How a scheduler replica prepares Extract domains (from `PREPARE_*`, config.ts). */
export interface PreparationSettings {
  topology: MessagingTopology;
  concurrency: number;
  maxPages: number;
  fetchIntervalMs: number;
  maxFetchingMs: number;
  pageTimeoutMs: number;
  leaseMs: number;
  maxDeliveries: number;
  sweepIntervalMs: number;
  maxBodyBytes: number;
  /** Shares of `SHUTDOWN_TIMEOUT_MS` the sweeps and the consumer stop within. */
  stopDeadlines: StopDeadlines;
}

export const PREPARATION_SETTINGS = Symbol('PREPARATION_SETTINGS');

/** A robots.txt `Crawl-delay` is honoured up to this, in ms: a site asking for more gets fewer pages in the time a preparation has. */
export const MAX_CRAWL_DELAY_MS = 10_000;
/** Sitemaps a preparation reads (an index's children included). */
export const MAX_SITEMAPS = 4;
/** The user agent token a preparation looks for in robots.txt groups. */
export const PREPARATION_AGENT_TOKEN = 'TrawlBot';
