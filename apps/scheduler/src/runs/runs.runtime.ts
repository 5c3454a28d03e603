import { Inject, Injectable } from '@nestjs/common';
import { MessagingConnection, OutboxRelay, WakeSignal } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { Database } from '@trawl/persistence';
import { Runtime, SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { RunDispatcherService } from './run-dispatcher.service';
import { RunReconcilerService } from './run-reconciler.service';
import { RunResultConsumer } from './run-result.consumer';
import { RUNS_SETTINGS, RunsSettings } from './runs.settings';

/** Freed slots that start a round at once. */
const DISPATCH_LINGER_TASKS = 16;

/**
 * Runs batch execution on every scheduler replica (run work is shared, not led): the dispatch
 * loop, result intake, the reconciler, and an outbox relay, so the run events this service writes
 * reach the webhook dispatcher even where no crawl coordinator runs (relays share the outbox with
 * `SKIP LOCKED`). `start`/`stop` are safe to call twice; `SchedulerRuntime` runs it.
 */
@Injectable()
export class RunsRuntime implements Runtime {
  private running = false;
  private dispatchLoop?: Promise<void>;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling?: Promise<unknown>;
  private readonly wakeup = new WakeSignal();
  /** Results applied since the last round; the round waits a little for more (see `onResults`). */
  private freed = 0;
  private lingerTimer?: NodeJS.Timeout;
  private relay?: OutboxRelay;
  private stopped?: Promise<void>;

  constructor(
    private readonly db: Database,
    private readonly dispatcher: RunDispatcherService,
    private readonly intake: RunResultConsumer,
    private readonly reconciler: RunReconcilerService,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    this.relay = new OutboxRelay({ pool: this.db.pool, js: this.messaging.js, logger: this.logger });
    this.relay.start();
    this.intake.onApplied = (applied) => this.onResults(applied);
    await this.intake.start();
    this.dispatchLoop = this.dispatchForever();
    this.reconcileTimer = setInterval(() => {
      if (this.reconciling) return;
      this.reconciling = this.reconciler
        .reconcileOnce()
        .then((changed) => changed > 0 && this.requestRound())
        .catch((error: unknown) => this.logger.error({ err: error }, 'batch reconciler pass failed'))
        .finally(() => (this.reconciling = undefined));
    }, this.settings.reconcileIntervalMs);
    this.logger.info('batch run execution started');
  }

  /** Finishes the work under way, then stops every loop. Connections are the caller's to close. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.running = false;
      clearInterval(this.reconcileTimer);
      clearTimeout(this.lingerTimer);
      this.wakeup.wake();
      this.dispatcher.stop();
      await this.dispatchLoop;
      await this.reconciling;
      await this.intake.stop();
      await this.relay?.stop();
    })();
    return this.stopped;
  }

  /**
   * Results free tenant slots. A round for one or two freed slots costs about as many statements as
   * one for dozens, so the round waits up to `dispatchLingerMs` for `DISPATCH_LINGER_TASKS` freed
   * slots: measured, a round per result took more CPU per task (scheduler and Postgres) than the
   * few milliseconds of idle slots it saved.
   */
  private onResults(applied: number): void {
    this.freed += applied;
    if (this.freed >= DISPATCH_LINGER_TASKS) this.requestRound();
    else if (this.settings.dispatchLingerMs === 0) this.requestRound();
    else this.lingerTimer ??= setTimeout(() => this.requestRound(), this.settings.dispatchLingerMs);
  }

  /**
   * Starts a dispatch round as soon as possible. Results applied while a round runs may come after
   * that round counted the tenant's tasks in flight: without remembering the wake, the freed slots
   * would wait a whole poll interval (measured: in-flight far below concurrency most of the time).
   */
  private requestRound(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.freed = 0;
    this.wakeup.wake();
  }

  private async dispatchForever(): Promise<void> {
    while (this.running) {
      this.wakeup.clear();
      let more = false;
      try {
        ({ more } = await this.dispatcher.dispatchRound());
      } catch (error) {
        this.logger.error({ err: error }, 'batch dispatch round failed');
      }
      if (!this.running) break;
      // A round held back by the tenants' concurrency would find no room again at once.
      if (more) continue;
      await this.wakeup.wait(this.settings.dispatchPollMs);
    }
  }
}
