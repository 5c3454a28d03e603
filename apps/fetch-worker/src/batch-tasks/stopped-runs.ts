import { Inject, Injectable } from '@nestjs/common';
import { batchRunStoppedV1 } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { StopNotices } from '../stop-notices/stop-notices';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';

/** Token of the core NATS subject run-end notices arrive on (`topology.subjects.batchRunStopped`). */
export const BATCH_RUN_STOPPED_SUBJECT = Symbol('BATCH_RUN_STOPPED_SUBJECT');

/**
 * How long a notice is remembered, in ms: longer than a claim's lease (`BATCH_TASK_LEASE_MS`, 10 min),
 * after which a queued task is skipped as stale anyway. Schedulers repeat the notice while the run
 * still has claims out, so a worker that started after the stop learns it too.
 */
export const STOPPED_RUN_MEMORY_MS = 15 * 60_000;

/**
 * Batch runs that ended recently (stopped by the tenant, or failed). Their tasks not started are
 * handed back unfetched, so nothing is fetched or billed after a stop.
 */
@Injectable()
export class StoppedRuns extends StopNotices {
  constructor(
    @Inject(SERVICE_MESSAGING) messaging: MessagingConnection,
    @Inject(BATCH_RUN_STOPPED_SUBJECT) subject: string,
    @Inject(SERVICE_LOGGER) logger: Logger,
  ) {
    super(
      messaging,
      {
        subject,
        idOf: (payload) => {
          const notice = batchRunStoppedV1.safeParse(payload);
          return notice.success ? notice.data.run_id : undefined;
        },
        memoryMs: STOPPED_RUN_MEMORY_MS,
        name: 'batch run stop',
      },
      logger,
    );
  }
}
