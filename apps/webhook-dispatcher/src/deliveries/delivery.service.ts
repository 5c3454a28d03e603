import { Inject, Injectable } from '@nestjs/common';
import type { RunWebhookEventV1 } from '@trawl/contracts';
import { Database, retryWhileDatabaseDown } from '@trawl/persistence';
import {
  AttemptResult,
  nextAttemptAt,
  runEventBody,
  SigningKey,
  signingKeyContext,
  SigningKeysRepository,
  WebhookDeliveryClient,
} from '@trawl/webhooks';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { DispatcherMetrics } from '../dispatcher.metrics';
import { AttemptVerdict, ClaimedDelivery, DeliveryRepository } from './delivery.repository';
import { DELIVERY_SETTINGS, type DeliverySettings } from './delivery.settings';

/** Room past the attempt's own deadline before its claim lapses and another replica may retry it. */
const LEASE_MARGIN_MS = 5_000;
/**
 * Error text of an attempt that could not be signed: no active key, no SECRETS_KEY here, or an active
 * key that does not open with this SECRETS_KEY (a rotated key, a corrupt row).
 */
export const SIGNING_KEY_UNAVAILABLE = 'signing_key_unavailable';
/** Error text of an attempt that failed inside the dispatcher, or whose own record was refused; details are in the logs. */
export const INTERNAL_ERROR = 'internal_error';
/**
 * Longest an attempt's outcome is held in memory and written again while Postgres is unreachable,
 * in ms. An outcome not written lets the claim lapse and the webhook be sent again: a receiver
 * that answered 2xx would get the event twice.
 */
const RECORD_HOLD_MS = 120_000;
/** Largest value of `webhook_delivery_attempts.elapsed_ms` (a Postgres integer). */
const MAX_ELAPSED_MS = 2_147_483_647;

/**
 * Webhook delivery: takes run events in (one delivery row each, the body fixed once so every attempt
 * sends the same bytes and event id), and makes attempts on claimed deliveries, recording each and
 * scheduling the next with backoff until a 2xx or the end of the retry window.
 */
@Injectable()
export class DeliveryService {
  private readonly clock: () => Date;
  private readonly random: () => number;
  private held = 0;

  constructor(
    private readonly db: Database,
    private readonly deliveries: DeliveryRepository,
    private readonly keys: SigningKeysRepository,
    private readonly client: WebhookDeliveryClient,
    private readonly metrics: DispatcherMetrics,
    @Inject(DELIVERY_SETTINGS)
    private readonly settings: Pick<DeliverySettings, 'box' | 'schedule' | 'attemptTimeoutMs' | 'clock' | 'random'>,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.clock = settings.clock ?? (() => new Date());
    this.random = settings.random ?? Math.random;
    metrics.measureBacklogWith(() => this.backlog());
  }

  /**
   * Records the event's delivery (idempotent per event id). Returns true when a delivery was added.
   * Retried while the database is unreachable, for up to `holdMs` (default 0); `onHold` is called
   * before each retry.
   */
  async accept(event: RunWebhookEventV1, hold: { holdMs: number; onHold?: () => void } = { holdMs: 0 }): Promise<boolean> {
    const webhook = event.webhook;
    if (!webhook) return false;
    return retryWhileDatabaseDown(() => this.insert(event, webhook), { holdMs: hold.holdMs, onRetry: () => hold.onHold?.() });
  }

  private insert(event: RunWebhookEventV1, webhook: NonNullable<RunWebhookEventV1['webhook']>): Promise<boolean> {
    return this.deliveries.insert(
      this.db,
      {
        eventId: event.event_id,
        tenantId: event.tenant_id,
        jobId: event.job_id,
        runId: event.run_id,
        eventType: event.event_type,
        url: webhook.url,
        signed: webhook.signature,
        body: JSON.stringify(runEventBody(event)),
      },
      this.clock(),
    );
  }

  /** Claims up to `limit` due deliveries for this replica. */
  claim(limit: number): Promise<ClaimedDelivery[]> {
    return this.deliveries.claimDue(this.db, limit, this.clock(), this.settings.attemptTimeoutMs + LEASE_MARGIN_MS);
  }

  /**
   * One attempt of a claimed delivery, recorded with what follows it. Throws only when even a bare
   * `internal_error` attempt cannot be written (the database is unreachable): the claim's lease then
   * brings the delivery back.
   */
  async attempt(claim: ClaimedDelivery): Promise<void> {
    const at = this.clock();
    const { result, verdict, applied } = await this.record(claim, at, await this.send(claim, at));
    this.metrics.attemptSeconds.observe({ result: result.delivered ? 'delivered' : 'failed' }, result.elapsedMs / 1000);
    this.metrics.attempts.inc({ outcome: verdict.status === 'pending' ? 'retry_scheduled' : verdict.status });
    const log = {
      event_id: claim.eventId,
      tenant_id: claim.tenantId,
      attempt: claim.attempt,
      status_code: result.statusCode,
      error: result.error,
    };
    if (!applied) this.logger.warn(log, 'webhook attempt finished after its claim lapsed; another replica owns the delivery');
    else if (verdict.status === 'failed') this.logger.warn(log, 'webhook delivery given up after its retry window');
    else this.logger.info({ ...log, outcome: verdict.status }, 'webhook attempt made');
  }

  /**
   * Attempts made whose outcome waits for the database to come back. The poller claims nothing
   * meanwhile: their claims may have lapsed, and claiming one again would send it twice.
   */
  get heldOutcomes(): number {
    return this.held;
  }

  /** Deliveries due and not yet claimed. */
  backlog(): Promise<number> {
    return this.deliveries.countDue(this.db, this.clock());
  }

  /**
   * Signs and sends. What throws here becomes a failed attempt: left to the poller, it would be
   * recorded nowhere and the claim's lease would bring the delivery back every few seconds for ever,
   * past the retry window.
   */
  private async send(claim: ClaimedDelivery, at: Date): Promise<AttemptResult> {
    try {
      const signingKey = claim.signed ? await this.signingKey(claim) : undefined;
      if (claim.signed && !signingKey) return { delivered: false, statusCode: null, elapsedMs: 0, error: SIGNING_KEY_UNAVAILABLE };
      return await this.client.send({ url: claim.url, eventId: claim.eventId, body: claim.body, signingKey });
    } catch (error) {
      this.logger.error(
        { err: error, event_id: claim.eventId, tenant_id: claim.tenantId, attempt: claim.attempt },
        'webhook attempt failed inside the dispatcher',
      );
      return { delivered: false, statusCode: null, elapsedMs: Math.max(0, this.clock().getTime() - at.getTime()), error: INTERNAL_ERROR };
    }
  }

  /**
   * Writes the attempt and its verdict. A write refused for what the attempt carries would be refused
   * again on every retry, so it is replaced by a bare `internal_error` attempt (a 2xx then counts as
   * failed and is sent again: delivery is at least once, spec-batch-api §6).
   */
  private async record(
    claim: ClaimedDelivery,
    at: Date,
    sent: AttemptResult,
  ): Promise<{ result: AttemptResult; verdict: AttemptVerdict; applied: boolean }> {
    const write = async (result: AttemptResult) => {
      const verdict = this.verdict(claim, result);
      let holding = false;
      try {
        const applied = await retryWhileDatabaseDown(
          () =>
            this.db.transaction((sql) =>
              this.deliveries.recordAttempt(
                sql,
                claim,
                { at, statusCode: result.statusCode, error: result.error ?? null, elapsedMs: result.elapsedMs },
                verdict,
              ),
            ),
          {
            holdMs: RECORD_HOLD_MS,
            onRetry: (error) => {
              if (holding) return;
              holding = true;
              this.held++;
              this.logger.warn(
                { err: error, event_id: claim.eventId, attempt: claim.attempt },
                'database unreachable; holding the webhook attempt until it is back',
              );
            },
          },
        );
        return { result, verdict, applied };
      } finally {
        if (holding) this.held--;
      }
    };
    try {
      return await write(sent);
    } catch (error) {
      this.logger.error(
        {
          err: error,
          event_id: claim.eventId,
          tenant_id: claim.tenantId,
          attempt: claim.attempt,
          status_code: sent.statusCode,
          error_text: sent.error,
        },
        'webhook attempt could not be recorded; recording it as internal_error',
      );
      const elapsedMs = Number.isInteger(sent.elapsedMs) && sent.elapsedMs >= 0 && sent.elapsedMs <= MAX_ELAPSED_MS ? sent.elapsedMs : 0;
      return write({ delivered: false, statusCode: null, elapsedMs, error: INTERNAL_ERROR });
    }
  }

  private verdict(claim: ClaimedDelivery, result: AttemptResult): AttemptVerdict {
    if (result.delivered) return { status: 'delivered' };
    const next = nextAttemptAt(this.settings.schedule, claim.attempt, claim.createdAt, this.clock(), this.random);
    return next ? { status: 'pending', nextAttemptAt: next } : { status: 'failed' };
  }

  /** The tenant's active key at the time of the attempt: a finalized rotation signs with the new key. */
  private async signingKey(claim: ClaimedDelivery): Promise<SigningKey | undefined> {
    const { box } = this.settings;
    if (!box) return undefined;
    const row = await this.keys.findByStatus(this.db, claim.tenantId, 'active');
    if (!row) return undefined;
    try {
      return { kid: row.kid, secret: box.open(row.secretSealed, signingKeyContext(claim.tenantId, row.kid)).toString('utf8') };
    } catch (error) {
      // Not the tenant's doing and not fixed by retrying soon: SECRETS_KEY differs from the one that
      // sealed the key, or the row is corrupt. Operators need this line; the tenant sees the attempt.
      this.logger.error(
        { err: error, event_id: claim.eventId, tenant_id: claim.tenantId, kid: row.kid },
        'active webhook signing key cannot be opened with this SECRETS_KEY',
      );
      return undefined;
    }
  }
}
