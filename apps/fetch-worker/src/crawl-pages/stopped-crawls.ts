import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import { crawlStoppedV1 } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { WORKER_LOGGER } from '../worker.logger';
import { WORKER_MESSAGING } from '../worker.messaging';

/** Token of the core NATS subject stop notices arrive on (`topology.subjects.crawlStopped`). */
export const CRAWL_STOPPED_SUBJECT = Symbol('CRAWL_STOPPED_SUBJECT');

/** How long a stop notice is remembered: longer than the post-stop window (10 min). */
export const STOPPED_CRAWL_MEMORY_MS = 15 * 60_000;

/**
 * Crawls stopped recently, as told by core NATS notices (from the gateway at the stop, repeated by
 * coordinators while the crawl still has pages in flight). Tasks of these crawls that have not
 * started are answered `skipped` instead of fetched: after a stop no new page is fetched (spec §3).
 */
@Injectable()
export class StoppedCrawls implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly stopped = new Map<string, number>();
  private subscription?: Subscription;

  constructor(
    @Inject(WORKER_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(CRAWL_STOPPED_SUBJECT) private readonly subject: string,
    @Inject(WORKER_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription ??= this.messaging.nc.subscribe(this.subject, {
      callback: (error, msg) => {
        if (error) return;
        const notice = crawlStoppedV1.safeParse(safeJson(msg.string()));
        if (notice.success) this.remember(notice.data.crawl_id);
        else this.logger.warn({ subject: msg.subject }, 'malformed crawl stop notice ignored');
      },
    });
  }

  beforeApplicationShutdown(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  remember(crawlId: string, now = Date.now()): void {
    this.stopped.set(crawlId, now + STOPPED_CRAWL_MEMORY_MS);
    for (const [id, until] of this.stopped) if (until < now) this.stopped.delete(id);
  }

  isStopped(crawlId: string, now = Date.now()): boolean {
    const until = this.stopped.get(crawlId);
    return until !== undefined && until >= now;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
