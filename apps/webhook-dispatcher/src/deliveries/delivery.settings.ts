import type { MessagingTopology } from '@trawl/contracts';
import type { StopDeadlines } from '@trawl/service-kit';
import type { RetrySchedule, SecretBox } from '@trawl/webhooks';

export const DELIVERY_SETTINGS = Symbol('DELIVERY_SETTINGS');

/** Tunables of webhook delivery (from config), with units. */
export interface DeliverySettings {
  topology: MessagingTopology;
  /** Opens signing secrets (`SECRETS_KEY`); `undefined` when not configured: signed deliveries cannot be made. */
  box: SecretBox | undefined;
  schedule: RetrySchedule;
  /** Deadline of one attempt, in ms; the claim lease is this plus a margin. */
  attemptTimeoutMs: number;
  /** Attempts running at once in this replica. */
  concurrency: number;
  /** How often an idle poller looks for due deliveries, in ms; a delivery taken in looks at once. */
  pollIntervalMs: number;
  /** Shares of `SHUTDOWN_TIMEOUT_MS` the intake and the attempts under way stop within. */
  stopDeadlines: StopDeadlines;
  /** Default `() => new Date()`. */
  clock?: () => Date;
  /** Jitter source of the retry schedule. Default `Math.random`. */
  random?: () => number;
}
