import { z } from 'zod';
import { baseConfigSchema, envInt } from '@trawl/config';
import { MAX_PAGES_PER_TASK_MESSAGE } from '@trawl/contracts';

export const crawlCoordinatorConfigSchema = baseConfigSchema.extend({
  PORT: envInt(8081, 0, 65535),
  DB_POOL_SIZE: envInt(10, 1, 200),
  DISPATCH_WINDOW: envInt(1024, 1, 100_000),
  DISPATCH_PER_CRAWL: envInt(256, 1, 100_000),
  /**
   * Most pages of one crawl a task message carries (default 8; 1 sends every page alone, as
   * coordinators before 2026-12 did): JetStream's cost per message is paid once for them all.
   */
  CRAWL_TASK_GROUP_SIZE: envInt(8, 1, MAX_PAGES_PER_TASK_MESSAGE),
  LEASE_MS: envInt(300_000, 1_000),
  MAX_ATTEMPTS: envInt(3, 1, 20),
  STOP_WINDOW_MS: envInt(600_000, 0),
  RECONCILE_INTERVAL_MS: envInt(5_000, 50),
  DISPATCH_POLL_MS: envInt(250, 10),
  RESULT_BATCH: envInt(256, 1, 4096),
  /**
   * How long the first page result of a batch waits for company before the batch is applied, ms
   * (default 50). Results that arrived while the last batch was applied have waited already.
   */
  RESULT_WAIT_MS: envInt(50, 0, 1_000),
  /**
   * Frontier keys a replica remembers its crawls hold, so links met again are duplicates without
   * a Postgres probe (default 200,000, about 18 MB of heap; 0 remembers none).
   */
  KNOWN_FRONTIER_KEYS: envInt(200_000, 0, 10_000_000),
  /** Idle poll of the sitemap seeder, ms (a new crawl wakes it at once). */
  SITEMAP_POLL_MS: envInt(1_000, 10),
  /** Time a worker has to read one crawl's sitemaps (robots.txt, indexes, every sitemap), ms. */
  SITEMAP_TIMEOUT_MS: envInt(60_000, 1_000, 120_000),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
});
export type CrawlCoordinatorConfig = z.infer<typeof crawlCoordinatorConfigSchema>;
