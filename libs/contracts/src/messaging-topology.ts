/**
 * Names of every JetStream stream, consumer and subject, derived from one prefix so that tests
 * (and several installations on one NATS) never share a stream. Subjects carry the payload version.
 */
export interface MessagingTopology {
  /**
   * Copies of every stream and KV bucket (`NATS_STREAM_REPLICAS`, 1–5, default 1); consumers inherit
   * their stream's. The same for every service, since each provisions what it uses.
   */
  replicas: number;
  streams: {
    /** Work queue of pages to fetch for crawls; consumed by fetch workers. */
    crawlWork: string;
    /** Work queue of page results; consumed by crawl coordinators. */
    crawlResults: string;
    /** Domain events relayed from the outbox (limits retention, for the webhook dispatcher). */
    events: string;
    /** Work queue of batch tasks; consumed by fetch workers. */
    batchWork: string;
    /** Work queue of batch task results; consumed by schedulers. */
    batchResults: string;
    /** Batch task bodies too large for a result message, in chunks (limits retention). */
    batchBodies: string;
    /** Crawl pages' HTML too large for a result message, in chunks (limits retention). */
    crawlBodies: string;
    /** Work queue of Extract domain preparations (`ExtractPreparationV1`); consumed by schedulers. */
    extractPreparations: string;
    /**
     * Pages kept for `max_age` (one message per tenant and request; limits retention bounded by
     * bytes and age): created by the first fetch worker that keeps one.
     */
    pageCopies: string;
    /** `change_tracking`'s last version of each URL per tenant (one message per subject, bounded by bytes and age). */
    pageVersions: string;
  };
  subjects: {
    crawlPageTask: string;
    /** Batches of page results (`CrawlPageResultBatchV1`). */
    crawlPageResults: string;
    /** Core NATS (not JetStream): a hint that a crawl has work to dispatch now. */
    crawlKick: string;
    /** Core NATS: a crawl fetches no new page (stopped, or ended); workers skip its tasks not started (spec §3). */
    crawlStopped: string;
    /** Core NATS streamed request/reply (`StreamedRpcClient`): one Fetch API request, served by a queue group of workers. */
    fetchRequest: string;
    /** Core NATS streamed request/reply: one Map API request (`MapRequestV1`), served by a queue group of workers. */
    mapRequest: string;
    /**
     * Core NATS request to every gateway replica (each answers): give back what you hold idle of a
     * tenant's limits (`{tenant_id}`), another replica is about to refuse it (`FetchLimitsReclaimV1`).
     */
    fetchLimitsReclaim: string;
    eventsWildcard: string;
    event(name: string): string;
    /** One batch task (`BatchTaskV1`). */
    batchTask: string;
    /** Batches of batch task results (`BatchTaskResultBatchV1`). */
    batchResults: string;
    /** Prefix of the chunk subjects of spilled batch bodies (`batchBodyStem`). */
    batchBodyPrefix: string;
    /** Prefix of the chunk subjects of spilled crawl page HTML (`crawlContentStem`). */
    crawlBodyPrefix: string;
    /** Core NATS: a batch run ended (stopped, failed); workers skip its queued tasks instead of fetching them (`BatchRunStoppedV1`). */
    batchRunStopped: string;
    /** One domain preparation to run or resume (`ExtractPreparationV1`). */
    extractPreparation: string;
    /** Prefix of the kept pages' subjects: `<prefix>.<tenant>.<request key>`. */
    pageCopyPrefix: string;
    /** Prefix of the page versions' subjects: `<prefix>.<tenant>.<URL digest>`. */
    pageVersionPrefix: string;
  };
  consumers: {
    fetchWorkers: string;
    crawlCoordinators: string;
    /** Queue group of the workers serving `fetchRequest`. */
    fetchRequestWorkers: string;
    /** Queue group of the workers serving `mapRequest`. */
    mapRequestWorkers: string;
    /** Fetch workers' durable on the batch work queue. */
    batchWorkers: string;
    /** Schedulers' durable on the batch results. */
    batchSchedulers: string;
    /** Schedulers' durable on the Extract preparations. */
    extractPreparers: string;
  };
  /** JetStream KV buckets shared by the fetch workers. */
  kv: {
    /** Adaptive stealth: registrable domain → tier that last worked (max_age = STEALTH_TIER_TTL_MS). */
    domainTiers: string;
    /** `<tenant>.<session_id>.<pool>` → proxy id, bound for 10 minutes from first use (max_age). */
    proxySessions: string;
    /** `<domain>/<version>` → an Extract recipe (JSON); written by the preparer, read and cached by workers. */
    extractRecipes: string;
  };
}

export interface MessagingTopologyOptions {
  /** Copies of every stream and KV bucket (`NATS_STREAM_REPLICAS`), default 1. */
  replicas?: number;
}

export function messagingTopology(prefix: string, options: MessagingTopologyOptions = {}): MessagingTopology {
  const upper = prefix.toUpperCase();
  return {
    replicas: options.replicas ?? 1,
    streams: {
      crawlWork: `${upper}_CRAWL_WORK`,
      crawlResults: `${upper}_CRAWL_RESULTS`,
      events: `${upper}_EVENTS`,
      batchWork: `${upper}_BATCH_WORK`,
      batchResults: `${upper}_BATCH_RESULTS`,
      batchBodies: `${upper}_BATCH_BODIES`,
      crawlBodies: `${upper}_CRAWL_BODIES`,
      extractPreparations: `${upper}_EXTRACT_PREPARATIONS`,
      pageCopies: `${upper}_PAGE_COPIES`,
      pageVersions: `${upper}_PAGE_VERSIONS`,
    },
    subjects: {
      crawlPageTask: `${prefix}.crawl.page.task.v1`,
      crawlPageResults: `${prefix}.crawl.page.results.v1`,
      crawlKick: `${prefix}.crawl.kick.v1`,
      crawlStopped: `${prefix}.crawl.stopped.v1`,
      fetchRequest: `${prefix}.fetch.request.v1`,
      mapRequest: `${prefix}.map.request.v1`,
      fetchLimitsReclaim: `${prefix}.fetch.limits.reclaim.v1`,
      eventsWildcard: `${prefix}.events.>`,
      event: (name: string) => `${prefix}.events.${name}`,
      batchTask: `${prefix}.batch.task.v1`,
      batchResults: `${prefix}.batch.results.v1`,
      batchBodyPrefix: `${prefix}.batch.body.v1`,
      crawlBodyPrefix: `${prefix}.crawl.body.v1`,
      batchRunStopped: `${prefix}.batch.run.stopped.v1`,
      extractPreparation: `${prefix}.extract.preparation.v1`,
      pageCopyPrefix: `${prefix}.page.copy.v1`,
      pageVersionPrefix: `${prefix}.page.version.v1`,
    },
    consumers: {
      fetchWorkers: 'fetch-workers',
      crawlCoordinators: 'crawl-coordinators',
      fetchRequestWorkers: 'fetch-request-workers',
      mapRequestWorkers: 'map-request-workers',
      batchWorkers: 'batch-workers',
      batchSchedulers: 'batch-schedulers',
      extractPreparers: 'extract-preparers',
    },
    kv: {
      domainTiers: `${upper}_DOMAIN_TIERS`,
      proxySessions: `${upper}_PROXY_SESSIONS`,
      extractRecipes: `${upper}_EXTRACT_RECIPES`,
    },
  };
}
