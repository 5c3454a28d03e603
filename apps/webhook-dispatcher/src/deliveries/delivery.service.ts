import type { RunWebhookEventV1 } from '@trawl/contracts';
import type { Database } from '@trawl/persistence';
import {
  AttemptResult,
  nextAttemptAt,
  RetrySchedule,
  runEventBody,
  SecretBox,
  SigningKey,
  signingKeyContext,
  SigningKeysRepository,
  WebhookDeliveryClient,
} from '@trawl/webhooks';
import type { Logger } from '@trawl/observability';
import type { DispatcherMetrics } from '../dispatcher.metrics';
import { AttemptVerdict, ClaimedDelivery, DeliveryRepository } from './delivery.repository';

export interface DeliveryServiceOptions {
  db: Database;
  deliveries: DeliveryRepository;
  keys: SigningKeysRepository;
  /** `undefined` when `SECRETS_KEY` is not configured: signed deliveries cannot be made. */
  box: SecretBox | undefined;
  client: WebhookDeliveryClient;
  schedule: RetrySchedule;
  /** Deadline of one attempt, in ms; the claim lease is this plus a margin. */
  attemptTimeoutMs: number;
  metrics: DispatcherMetrics;
  logger: Logger;
  /** Default `() => new Date()`. */
  clock?: () => Date;
  /** Jitter source of the retry schedule. Default `Math.random`. */
  random?: () => number;
}

/** Room past the attempt's own deadline before its claim lapses and another replica may retry it. */
const LEASE_MARGIN_MS = 5_000;
/** Error text of an attempt that could not be signed (no active key, or no SECRETS_KEY here). */
export const SIGNING_KEY_UNAVAILABLE = 'signing_key_unavailable';

/**
 * Webhook delivery: takes run events in (one delivery row each, the body fixed once so every attempt
 * sends the same bytes and event id), and makes attempts on claimed deliveries, recording each and
 * scheduling the next with backoff until a 2xx or the end of the retry window.
 */
export class DeliveryService {
  private readonly clock: () => Date;
  private readonly random: () => number;

  constructor(private readonly options: DeliveryServiceOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.random = options.random ?? Math.random;
  }

  /** Records the event's delivery (idempotent per event id). Returns true when a delivery was added. */
  async accept(event: RunWebhookEventV1): Promise<boolean> {
    if (!event.webhook) return false;
    return this.options.deliveries.insert(
      this.options.db,
      {
        eventId: event.event_id,
        tenantId: event.tenant_id,
        jobId: event.job_id,
        runId: event.run_id,
        eventType: event.event_type,
        url: event.webhook.url,
        signed: event.webhook.signature,
        body: JSON.stringify(runEventBody(event)),
      },
      this.clock(),
    );
  }

  /** Claims up to `limit` due deliveries for this replica. */
  claim(limit: number): Promise<ClaimedDelivery[]> {
    return this.options.deliveries.claimDue(this.options.db, limit, this.clock(), this.options.attemptTimeoutMs + LEASE_MARGIN_MS);
  }

  /** One attempt of a claimed delivery, recorded with what follows it. Never throws for the receiver's failures. */
  async attempt(claim: ClaimedDelivery): Promise<void> {
    const at = this.clock();
    const signingKey = claim.signed ? await this.signingKey(claim.tenantId) : undefined;
    const result: AttemptResult =
      claim.signed && !signingKey
        ? { delivered: false, statusCode: null, elapsedMs: 0, error: SIGNING_KEY_UNAVAILABLE }
        : await this.options.client.send({ url: claim.url, eventId: claim.eventId, body: claim.body, signingKey });
    const verdict = this.verdict(claim, result);
    const applied = await this.options.db.transaction((sql) =>
      this.options.deliveries.recordAttempt(
        sql,
        claim,
        { at, statusCode: result.statusCode, error: result.error ?? null, elapsedMs: result.elapsedMs },
        verdict,
      ),
    );
    this.options.metrics.attemptSeconds.observe({ result: result.delivered ? 'delivered' : 'failed' }, result.elapsedMs / 1000);
    this.options.metrics.attempts.inc({ outcome: verdict.status === 'pending' ? 'retry_scheduled' : verdict.status });
    const log = { event_id: claim.eventId, tenant_id: claim.tenantId, attempt: claim.attempt, status_code: result.statusCode, error: result.error };
    if (!applied) this.options.logger.warn(log, 'webhook attempt finished after its claim lapsed; another replica owns the delivery');
    else if (verdict.status === 'failed') this.options.logger.warn(log, 'webhook delivery given up after its retry window');
    else this.options.logger.info({ ...log, outcome: verdict.status }, 'webhook attempt made');
  }

  /** Deliveries due and not yet claimed. */
  backlog(): Promise<number> {
    return this.options.deliveries.countDue(this.options.db, this.clock());
  }

  private verdict(claim: ClaimedDelivery, result: AttemptResult): AttemptVerdict {
    if (result.delivered) return { status: 'delivered' };
    const next = nextAttemptAt(this.options.schedule, claim.attempt, claim.createdAt, this.clock(), this.random);
    return next ? { status: 'pending', nextAttemptAt: next } : { status: 'failed' };
  }

  /** The tenant's active key at the time of the attempt: a finalized rotation signs with the new key. */
  private async signingKey(tenantId: string): Promise<SigningKey | undefined> {
    const { box, keys, db } = this.options;
    if (!box) return undefined;
    const row = await keys.findByStatus(db, tenantId, 'active');
    if (!row) return undefined;
    return { kid: row.kid, secret: box.open(row.secretSealed, signingKeyContext(tenantId, row.kid)).toString('utf8') };
  }
}
