/**
 * How a service spends `SHUTDOWN_TIMEOUT_MS`, the time SIGTERM gets before the process exits
 * anyway (`runService`), so that one setting of the operator's governs every part of a shutdown:
 *
 * - work in flight (a loop's pass, a page, an attempt) may finish for the first half;
 * - by three quarters, every message the service holds is settled, what did not finish handed
 *   back (nak'ed) so that another replica takes it at once rather than after its ack wait;
 * - the last quarter closes the HTTP server and the connections (NATS drains, the pool ends).
 *
 * Parts stopped one after another share these marks, counted from the start of the shutdown
 * (`StopCountdown`), so their sum never passes them.
 */
const DRAIN_SHARE = 0.5;
/** See {@link DRAIN_SHARE}. */
const SETTLE_SHARE = 0.75;

/** Marks of a shutdown, in ms from its start (SIGTERM). */
export interface StopDeadlines {
  /** By when work in flight must have finished, or be left to be cut off: half of `SHUTDOWN_TIMEOUT_MS`. */
  drainMs: number;
  /** By when every message held is settled: three quarters of `SHUTDOWN_TIMEOUT_MS`. */
  settleMs: number;
}

/** The marks of a service whose `SHUTDOWN_TIMEOUT_MS` is `shutdownTimeoutMs`. */
export function stopDeadlinesOf(shutdownTimeoutMs: number): StopDeadlines {
  return { drainMs: Math.floor(shutdownTimeoutMs * DRAIN_SHARE), settleMs: Math.floor(shutdownTimeoutMs * SETTLE_SHARE) };
}

/**
 * Waits for `work`, at most `ms`: answers `true` when it ended in time, `false` when it was left
 * to end on its own. The timer does not keep the process alive.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
    timer.unref();
  });
  try {
    const ended = work.then(
      () => true,
      () => true,
    );
    return await Promise.race([ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A shutdown under way: what is left, in ms, until each of its marks (never below 0). */
export class StopCountdown {
  private readonly startedAt = Date.now();

  private constructor(private readonly deadlines: StopDeadlines) {}

  /** Starts counting now, at the start of a `stop()`. */
  static start(deadlines: StopDeadlines): StopCountdown {
    return new StopCountdown(deadlines);
  }

  /** Time left for work in flight to finish. */
  drainLeftMs(): number {
    return this.left(this.deadlines.drainMs);
  }

  /** Time left until every message held must be settled. */
  settleLeftMs(): number {
    return this.left(this.deadlines.settleMs);
  }

  private left(markMs: number): number {
    return Math.max(0, this.startedAt + markMs - Date.now());
  }
}
