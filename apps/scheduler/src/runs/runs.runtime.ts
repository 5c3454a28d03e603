import { Inject, Injectable } from '@nestjs/common';
import { MessagingConnection, OutboxRelay } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { Database } from '@trawl/persistence';
import { outboxRelayLoop, PeriodicLoop, Runtime, SERVICE_LOGGER, SERVICE_MESSAGING, StopCountdown } from '@trawl/service-kit';
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
  private started = false;
  /**
   * Dispatch rounds: one after another while a round says more can be claimed at once, else every
   * `dispatchPollMs` or when results free slots (`requestRound`).
   */
  private readonly dispatching: PeriodicLoop;
  /** A reconcile pass every `reconcileIntervalMs`, the first one interval after start. */
  private readonly reconciling: PeriodicLoop;
  private readonly relay: PeriodicLoop;
  /** Results applied since the last round; the round waits a little for more (see `onResults`). */
  private freed = 0;
  private lingerTimer?: NodeJS.Timeout;
  private stopped?: Promise<void>;

  constructor(
    db: Database,
    private readonly dispatcher: RunDispatcherService,
    private readonly intake: RunResultConsumer,
    reconciler: RunReconcilerService,
    @Inject(SERVICE_MESSAGING) messaging: MessagingConnection,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.dispatching = new PeriodicLoop({
      name: 'batch dispatch round',
      intervalMs: settings.dispatchPollMs,
      // A round held back by the tenants' concurrency says no more: it would find no room again at once.
      pass: () => dispatcher.dispatchRound(),
      logger,
    });
    this.reconciling = new PeriodicLoop({
      name: 'batch reconciler pass',
      intervalMs: settings.reconcileIntervalMs,
      firstPass: 'after-interval',
      pass: async () => {
        if ((await reconciler.reconcileOnce()) > 0) this.requestRound();
      },
      logger,
    });
    this.relay = outboxRelayLoop(new OutboxRelay({ pool: db.pool, js: messaging.js, logger }), logger);
  }

  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    this.relay.start();
    this.intake.onApplied = (applied) => this.onResults(applied);
    await this.intake.start();
    this.dispatching.start();
    this.reconciling.start();
    this.logger.info('batch run execution started');
  }

  /** Finishes the work under way, then stops every loop. Connections are the caller's to close. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      const countdown = StopCountdown.start(this.settings.stopDeadlines);
      clearTimeout(this.lingerTimer);
      this.dispatcher.stop();
      await Promise.all([this.dispatching.stop(countdown.drainLeftMs()), this.reconciling.stop(countdown.drainLeftMs())]);
      await this.intake.stop(countdown.settleLeftMs());
      await this.relay.stop(countdown.settleLeftMs());
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
   * that round counted the tenant's tasks in flight: the loop keeps that wake and runs one more
   * round right after (without it, the freed slots would wait a whole poll interval; measured:
   * in-flight far below concurrency most of the time).
   */
  private requestRound(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.freed = 0;
    this.dispatching.wake();
  }
}
