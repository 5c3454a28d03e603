import { MessagingTopology } from './messaging-topology';

/** Plain data matching `StreamSpec` of @trawl/messaging (kept here so every service provisions the same). */
export interface StreamDefinition {
  name: string;
  subjects: string[];
  retention: 'workqueue' | 'limits';
  maxAgeMs?: number;
  duplicateWindowMs?: number;
  /** Copies across a NATS cluster (`topology.replicas`); consumers inherit it. */
  replicas: number;
}

/** Plain data matching `ConsumerSpec` of @trawl/messaging. */
export interface ConsumerDefinition {
  stream: string;
  durable: string;
  filterSubject?: string;
  ackWaitMs: number;
  maxDeliver: number;
  maxAckPending: number;
}

export interface CrawlMessagingSettings {
  /** Un-acked page tasks across all fetch workers; back-pressure for the dispatcher (default 1024). */
  workMaxAckPending?: number;
  /** Un-acked page results across all coordinators (default 4096). */
  resultsMaxAckPending?: number;
}

/**
 * Streams and consumers of the crawl flow. Workers heartbeat (`working()`) during long fetches, so a
 * 30 s ack wait only fires for a worker that died. Postgres leases, not JetStream, are what finally
 * guarantee a page is fetched: these limits only bound how long redelivery takes.
 */
export function crawlMessagingDefinitions(
  topology: MessagingTopology,
  settings: CrawlMessagingSettings = {},
): { streams: StreamDefinition[]; consumers: ConsumerDefinition[] } {
  return {
    streams: [
      {
        name: topology.streams.crawlWork,
        subjects: [topology.subjects.crawlPageTask],
        retention: 'workqueue',
        maxAgeMs: 24 * 3600_000,
        duplicateWindowMs: 120_000,
        replicas: topology.replicas,
      },
      {
        name: topology.streams.crawlResults,
        subjects: [topology.subjects.crawlPageResults],
        retention: 'workqueue',
        maxAgeMs: 24 * 3600_000,
        duplicateWindowMs: 120_000,
        replicas: topology.replicas,
      },
      {
        // Kept pages' HTML too large for a result message: limits retention, purged per page once
        // its result is committed; a day's max age removes what nobody purged.
        name: topology.streams.crawlBodies,
        subjects: [`${topology.subjects.crawlBodyPrefix}.>`],
        retention: 'limits',
        maxAgeMs: 24 * 3600_000,
        duplicateWindowMs: 120_000,
        replicas: topology.replicas,
      },
      {
        name: topology.streams.events,
        subjects: [topology.subjects.eventsWildcard],
        retention: 'limits',
        maxAgeMs: 7 * 24 * 3600_000,
        duplicateWindowMs: 600_000,
        replicas: topology.replicas,
      },
    ],
    consumers: [
      {
        stream: topology.streams.crawlWork,
        durable: topology.consumers.fetchWorkers,
        ackWaitMs: 30_000,
        maxDeliver: 5,
        maxAckPending: settings.workMaxAckPending ?? 1024,
      },
      {
        stream: topology.streams.crawlResults,
        durable: topology.consumers.crawlCoordinators,
        ackWaitMs: 60_000,
        maxDeliver: 20,
        maxAckPending: settings.resultsMaxAckPending ?? 4096,
      },
    ],
  };
}
