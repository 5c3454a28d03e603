import type { WebhookDeliveryStatus } from '@trawl/contracts';
import { columnNames } from './columns';

/**
 * A `webhook_deliveries` row (migration 1764000000010-webhooks): the webhook dispatcher writes and
 * sends it, the gateway shows it in a job's delivery log.
 */
export interface WebhookDeliveriesRow {
  id: string;
  event_id: string;
  tenant_id: string;
  job_id: string;
  run_id: string;
  event_type: string;
  url: string;
  signed: boolean;
  body: string;
  status: WebhookDeliveryStatus;
  /** Attempts started (the next one's number minus one). */
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
}

/** Every column of `webhook_deliveries`. */
export const WEBHOOK_DELIVERIES_COLUMNS = columnNames<WebhookDeliveriesRow>({
  id: true,
  event_id: true,
  tenant_id: true,
  job_id: true,
  run_id: true,
  event_type: true,
  url: true,
  signed: true,
  body: true,
  status: true,
  attempts: true,
  next_attempt_at: true,
  created_at: true,
  finished_at: true,
});
