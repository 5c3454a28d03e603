import type { Logger } from '@trawl/observability';
import type { DeliveryService } from './delivery.service';

export interface DeliveryPollerOptions {
  /** Attempts running at once in this replica. */
  concurrency: number;
  /** How often an idle poller looks for due deliveries, in ms; `notify()` looks at once. */
  pollIntervalMs: number;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * Runs due delivery attempts, up to `concurrency` at a time. Postgres holds the schedule: the
 * poller claims only as many deliveries as it has free slots, so due work waits in the table, where
 * any replica can take it.
 */
export class DeliveryPoller {
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private notified = false;

  constructor(
    private readonly service: DeliveryService,
    private readonly options: DeliveryPollerOptions,
    private readonly logger: Logger,
  ) {}

  /** Safe to call twice. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming and waits for the attempts under way (each bounded by its own deadline). Safe to call twice. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.allSettled(this.inFlight);
  }

  /** Look for due deliveries now (a delivery was just added). */
  notify(): void {
    this.notified = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.notified = false;
      // While outcomes wait for the database, their lapsed claims must not be taken again here.
      const free = this.service.heldOutcomes > 0 ? 0 : this.options.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const claims = await this.service.claim(free);
          claimed = claims.length;
          for (const claim of claims) this.track(this.service.attempt(claim));
          failures = 0;
        } catch (error) {
          failures++;
          this.logger.error({ err: error, failures }, 'claiming due webhook deliveries failed');
        }
      }
      if (!this.running) break;
      if (failures === 0 && free > 0 && (claimed === free || this.notified)) continue;
      const pauseMs = failures === 0 ? this.options.pollIntervalMs : Math.min(MAX_BACKOFF_MS, this.options.pollIntervalMs * 2 ** failures);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pauseMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
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
        this.wake?.();
      });
    this.inFlight.add(tracked);
  }
}
