import type { Logger } from '@trawl/observability';
import { settledWithin } from './stop-deadlines';

/** What a pass may answer: `more: true` when it left work it could do at once (a full batch). */
export interface PassOutcome {
  more: boolean;
}

export interface PeriodicLoopOptions {
  /** Names the loop in its logs: a pass that throws is logged at error as `<name> failed`. */
  name: string;
  /**
   * One pass. A pass that answers `{ more: true }` is followed by the next at once; any other
   * answer waits `intervalMs`. A pass that throws is logged and the loop goes on.
   */
  pass: () => Promise<PassOutcome | void>;
  /** Wait after a pass before the next, in ms, counted from the pass's end; `wake()` cuts it short. */
  intervalMs: number;
  logger: Pick<Logger, 'error' | 'warn'>;
  /** `now` (default): the first pass runs at `start()`; `after-interval`: one interval later (or at a wake). */
  firstPass?: 'now' | 'after-interval';
  /**
   * After failed passes, the wait doubles per consecutive failure (`intervalMs × 2^failures`) up to
   * this, in ms, so a loop whose database or NATS is down does not hammer it. Default: no backoff
   * (a failed pass waits `intervalMs` like any other).
   */
  maxBackoffMs?: number;
}

/**
 * A background loop of passes: a pass at start (or after one interval), then one every
 * `intervalMs`, never two at once. `wake()` runs a pass now; a wake that comes during a pass is
 * kept, so exactly one more pass runs right after it (the pass under way may have read the state
 * before the news). A pass that answers `{ more: true }` runs again at once.
 *
 * `start()` is safe to call twice and does nothing after `stop()`; `stop()` is safe to call twice.
 * The wait's timer does not keep the process alive.
 */
export class PeriodicLoop {
  private started = false;
  private stopped = false;
  /** A wake since the last pass began: the next wait ends at once. */
  private woken = false;
  private interrupt?: () => void;
  private loop?: Promise<void>;
  private stopping?: Promise<void>;

  constructor(private readonly options: PeriodicLoopOptions) {}

  /** Starts the loop in the background. Safe to call twice; does nothing after `stop()`. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.loop = this.run();
  }

  /** Runs a pass now, or, when one is under way, once more right after it. Ignored after `stop()`. */
  wake(): void {
    if (this.stopped) return;
    this.woken = true;
    this.interrupt?.();
  }

  /**
   * Ends the wait and starts no more passes; resolves when the pass under way has ended, or after
   * `deadlineMs` with a warning if it has not (it is left to end on its own). Safe to call twice:
   * the second call waits for the first.
   */
  stop(deadlineMs: number): Promise<void> {
    this.stopping ??= this.close(deadlineMs);
    return this.stopping;
  }

  private async close(deadlineMs: number): Promise<void> {
    this.stopped = true;
    this.interrupt?.();
    if (!this.loop || (await settledWithin(this.loop, deadlineMs))) return;
    this.options.logger.warn(
      { loop: this.options.name, deadline_ms: deadlineMs },
      `${this.options.name} still running at its stop deadline`,
    );
  }

  private async run(): Promise<void> {
    let failures = 0;
    if (this.options.firstPass === 'after-interval') await this.wait(this.options.intervalMs);
    while (!this.stopped) {
      this.woken = false;
      let more = false;
      try {
        more = (await this.options.pass())?.more === true;
        failures = 0;
      } catch (error) {
        failures++;
        this.options.logger.error({ err: error, loop: this.options.name, failures }, `${this.options.name} failed`);
      }
      if (this.stopped) break;
      if (more) continue;
      // Returns at once when woken during the pass: the one extra pass that wake asked for.
      await this.wait(this.waitAfter(failures));
    }
  }

  private waitAfter(failures: number): number {
    const { intervalMs, maxBackoffMs } = this.options;
    if (failures === 0 || maxBackoffMs === undefined) return intervalMs;
    return Math.min(maxBackoffMs, intervalMs * 2 ** failures);
  }

  /** Waits `ms`, less if woken or stopped meanwhile. */
  private async wait(ms: number): Promise<void> {
    if (this.stopped || this.woken) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.interrupt = done;
    });
    this.interrupt = undefined;
  }
}
