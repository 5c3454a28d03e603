import { Inject, Injectable } from '@nestjs/common';
import { messagingTopology } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';

/**
 * Core NATS notices about crawls. `kick`: tells the coordinators that a crawl has work now (core NATS, `{crawl_id}` as JSON). Best effort:
 * the coordinators also poll Postgres, so a lost kick only delays a crawl's start.
 */
@Injectable()
export class CrawlKicks {
  private readonly subject: string;
  private readonly stoppedSubject: string;

  constructor(
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    const topology = messagingTopology(config.NATS_PREFIX);
    this.subject = topology.subjects.crawlKick;
    this.stoppedSubject = topology.subjects.crawlStopped;
  }

  /**
   * Tells fetch workers a crawl was stopped, so tasks already queued for it are not fetched.
   * Best effort: coordinators repeat the notice while the crawl still has pages in flight.
   */
  stopped(crawlId: string): void {
    try {
      this.messaging.nc.publish(this.stoppedSubject, JSON.stringify({ crawl_id: crawlId }));
    } catch (error) {
      this.logger.warn({ err: error, crawl_id: crawlId }, 'crawl stop notice not published; coordinators repeat it');
    }
  }

  kick(crawlId: string): void {
    try {
      this.messaging.nc.publish(this.subject, JSON.stringify({ crawl_id: crawlId }));
    } catch (error) {
      this.logger.warn({ err: error, crawl_id: crawlId }, 'crawl kick not published; the coordinator poll will start it');
    }
  }
}
