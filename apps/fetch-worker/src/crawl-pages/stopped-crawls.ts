import { Inject, Injectable } from '@nestjs/common';
import { crawlStoppedV1 } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { StopNotices } from '../stop-notices/stop-notices';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';

/** Token of the core NATS subject stop notices arrive on (`topology.subjects.crawlStopped`). */
export const CRAWL_STOPPED_SUBJECT = Symbol('CRAWL_STOPPED_SUBJECT');

/** How long a stop notice is remembered: longer than the post-stop window (10 min). */
export const STOPPED_CRAWL_MEMORY_MS = 15 * 60_000;

/**
 * Crawls stopped recently (from the gateway at the stop, repeated by coordinators while the crawl
 * still has pages in flight). Their tasks not started are answered `skipped` instead of fetched:
 * after a stop no new page is fetched (spec §3).
 */
@Injectable()
export class StoppedCrawls extends StopNotices {
  constructor(
    @Inject(SERVICE_MESSAGING) messaging: MessagingConnection,
    @Inject(CRAWL_STOPPED_SUBJECT) subject: string,
    @Inject(SERVICE_LOGGER) logger: Logger,
  ) {
    super(
      messaging,
      {
        subject,
        idOf: (payload) => {
          const notice = crawlStoppedV1.safeParse(payload);
          return notice.success ? notice.data.crawl_id : undefined;
        },
        memoryMs: STOPPED_CRAWL_MEMORY_MS,
        name: 'crawl stop',
      },
      logger,
    );
  }
}
