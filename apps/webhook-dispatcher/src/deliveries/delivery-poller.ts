import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { PeriodicLoop, SERVICE_LOGGER, settledWithin } from '@trawl/service-kit';
import { DeliveryService } from './delivery.service';
import { DELIVERY_SETTINGS, type DeliverySettings } from './delivery.settings';

/** Longest wait between claims while they fail (the database is down), in ms. */
const MAX_BACKOFF_MS = 5_000;

/**
 * Runs due delivery attempts, up to `concurrency` at a time. Postgres holds the schedule: the
 * poller claims only as many deliveries as it has free slots, so due work waits in the table, where
 * any replica can take it.
 */
@Injectable()
export class DeliveryPoller {
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Claims at once while a claim filled every free slot (more may be due), else every
   * `pollIntervalMs`, or when a delivery was taken in or an attempt freed a slot.
   */
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly service: DeliveryService,
    @Inject(DELIVERY_SETTINGS) private readonly settings: Pick<DeliverySettings, 'concurrency' | 'pollIntervalMs'>,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PeriodicLoop({
      name: 'claiming due webhook deliveries',
      intervalMs: settings.pollIntervalMs,
      maxBackoffMs: MAX_BACKOFF_MS,
      pass: () => this.claim(),
      logger,
    });
  }

  /** Safe to call twice; does nothing after `stop()`. */
  start(): void {
    this.loop.start();
  }

  /**
   * Stops claiming and waits up to `deadlineMs` for the attempts under way; one cut off by the exit
   * after that is made again once its claim lapses. Safe to call twice.
   */
  async stop(deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    await this.loop.stop(deadlineMs);
    await settledWithin(Promise.allSettled(this.inFlight), deadline - Date.now());
  }

  /** Look for due deliveries now (a delivery was just added). */
  notify(): void {
    this.loop.wake();
  }

  private async claim(): Promise<{ more: boolean }> {
    // While outcomes wait for the database, their lapsed claims must not be taken again here.
    const free = this.service.heldOutcomes > 0 ? 0 : this.settings.concurrency - this.inFlight.size;
    if (free <= 0) return { more: false };
    const claims = await this.service.claim(free);
    for (const claim of claims) this.track(this.service.attempt(claim));
    return { more: claims.length === free };
  }

  private track(attempt: Promise<void>): void {
    const tracked = attempt
      .catch((error: unknown) => {
        // Only when not even a bare failed attempt could be written (the database is unreachable):
        // the claim's lease lapses and the attempt is made again, so nothing is lost.
        this.logger.error({ err: error }, 'webhook attempt could not be recorded; it will be retried after its lease');
      })
      .finally(() => {
        this.inFlight.delete(tracked);
        // A slot is free: claim more if some are due.
        this.loop.wake();
      });
    this.inFlight.add(tracked);
  }
}
