import { Inject, Injectable } from '@nestjs/common';
import { messagingTopology } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG, LOGGER, MESSAGING } from '../gateway.tokens';

/**
 * Tells the coordinators that a crawl has work now (core NATS, `{crawl_id}` as JSON). Best effort:
 * the coordinators also poll Postgres, so a lost kick only delays a crawl's start.
 */
@Injectable()
export class CrawlKicks {
  private readonly subject: string;

  constructor(
    @Inject(MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.subject = messagingTopology(config.NATS_PREFIX).subjects.crawlKick;
  }

  kick(crawlId: string): void {
    try {
      this.messaging.nc.publish(this.subject, JSON.stringify({ crawl_id: crawlId }));
    } catch (error) {
      this.logger.warn({ err: error, crawl_id: crawlId }, 'crawl kick not published; the coordinator poll will start it');
    }
  }
}
