import { Injectable } from '@nestjs/common';
import { decodeDeliveriesCursor, encodeDeliveriesCursor } from './deliveries-cursor';
import { DeliveryRecord, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookError, WebhookErrorCode } from './webhooks.errors';

export interface DeliveriesPage {
  deliveries: DeliveryRecord[];
  /** `null` after the last page. */
  nextCursor: string | null;
}

/** The delivery log a tenant reads for one job (every event, every attempt). */
@Injectable()
export class WebhookDeliveriesService {
  constructor(private readonly deliveries: WebhookDeliveriesRepository) {}

  /** @throws WebhookError `invalid_cursor` for a cursor not issued for this job. */
  async page(tenantId: string, jobId: string, cursor: string | undefined, limit: number): Promise<DeliveriesPage> {
    const after = cursor === undefined ? undefined : decodeDeliveriesCursor(jobId, cursor);
    if (cursor !== undefined && !after) {
      throw new WebhookError(WebhookErrorCode.InvalidDeliveriesCursor, "The cursor was not issued for this job's deliveries.");
    }
    // One extra row tells whether another page exists, so the last page says so itself.
    const rows = await this.deliveries.page(tenantId, jobId, after, limit + 1);
    const deliveries = rows.slice(0, limit);
    const last = deliveries.at(-1);
    return {
      deliveries,
      nextCursor:
        rows.length > limit && last ? encodeDeliveriesCursor(jobId, { createdAtMicros: last.createdAtMicros, id: last.id }) : null,
    };
  }
}
