import { columnNames, nullableColumnNames } from './columns';

/**
 * A `webhook_delivery_attempts` row: one attempt of a webhook delivery and how it went. The webhook
 * dispatcher writes it after each attempt; the gateway shows the attempts in a job's delivery log.
 * Migration 1764000000010-webhooks.
 */
export interface WebhookDeliveryAttemptsRow {
  delivery_id: string;
  /** The attempt's number, from 1 (`webhook_deliveries.attempts` when it was made). */
  attempt: number;
  at: Date;
  /** The receiver's HTTP status; `null` when no answer came. */
  status_code: number | null;
  /** What went wrong, as the dispatcher recorded it. */
  error: string | null;
  elapsed_ms: number;
}

/** Every column of `webhook_delivery_attempts`. */
export const WEBHOOK_DELIVERY_ATTEMPTS_COLUMNS = columnNames<WebhookDeliveryAttemptsRow>({
  delivery_id: true,
  attempt: true,
  at: true,
  status_code: true,
  error: true,
  elapsed_ms: true,
});

/** The columns of `webhook_delivery_attempts` that may be `NULL`. */
export const WEBHOOK_DELIVERY_ATTEMPTS_NULLABLE_COLUMNS = nullableColumnNames<WebhookDeliveryAttemptsRow>({
  status_code: true,
  error: true,
});
