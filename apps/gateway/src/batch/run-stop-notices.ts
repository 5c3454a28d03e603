import { Inject, Injectable } from '@nestjs/common';
import { BatchRunStoppedV1, messagingTopology } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';

/**
 * Tells fetch workers a batch run was stopped (core NATS, `batchRunStopped`), so its tasks already
 * in the work queue are handed back unfetched and unbilled. Best effort: schedulers repeat the
 * notice while the run still has claims out.
 */
@Injectable()
export class RunStopNotices {
  private readonly subject: string;

  constructor(
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.subject = messagingTopology(config.NATS_PREFIX).subjects.batchRunStopped;
  }

  stopped(runId: string): void {
    const notice: BatchRunStoppedV1 = { run_id: runId };
    try {
      this.messaging.nc.publish(this.subject, JSON.stringify(notice));
    } catch (error) {
      this.logger.warn({ err: error, run_id: runId }, 'batch run stop notice not published; schedulers repeat it');
    }
  }
}
