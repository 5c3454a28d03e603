import { PassOutcome, PeriodicLoop, PeriodicLoopOptions } from './periodic-loop';

/** Longest a test waits for a pass it expects; a loop that never runs it fails the test here. */
const EXPECTED_WITHIN_MS = 2_000;
/** An interval no test waits out: a pass that starts under it was started by a wake or `more`. */
const NEVER_MS = 60_000;

/**
 * Passes the test drives: each call is counted and lasts until the test ends it (`finish`,
 * `fail`), or answers at once what `answers` holds when that is set.
 */
class Passes {
  started = 0;
  private readonly running: { resolve: (outcome: PassOutcome | void) => void; reject: (error: Error) => void }[] = [];
  private readonly watchers: { count: number; resolve: () => void }[] = [];
  /** Answers of passes that end at once, one per pass, in order; when empty, passes wait for the test. */
  answers: (PassOutcome | Error)[] = [];

  readonly pass = (): Promise<PassOutcome | void> => {
    this.started++;
    for (const watcher of this.watchers.filter((w) => w.count <= this.started)) watcher.resolve();
    const answer = this.answers.shift();
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer) return Promise.resolve(answer);
    return new Promise((resolve, reject) => this.running.push({ resolve, reject }));
  };

  /** Resolves once `count` passes have started; fails after `EXPECTED_WITHIN_MS`. */
  whenStarted(count: number): Promise<void> {
    if (this.started >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`pass ${count} did not start within ${EXPECTED_WITHIN_MS} ms (${this.started} did)`)),
        EXPECTED_WITHIN_MS,
      );
      this.watchers.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  finish(outcome?: PassOutcome): void {
    this.take().resolve(outcome);
  }

  fail(error: Error): void {
    this.take().reject(error);
  }

  private take() {
    const pass = this.running.shift();
    if (!pass) throw new Error('no pass is running');
    return pass;
  }
}

class RecordingLogger {
  readonly errors: { fields: Record<string, unknown>; msg: string }[] = [];
  readonly warnings: { fields: Record<string, unknown>; msg: string }[] = [];
  error(fields: Record<string, unknown>, msg: string): void {
    this.errors.push({ fields, msg });
  }
  warn(fields: Record<string, unknown>, msg: string): void {
    this.warnings.push({ fields, msg });
  }
}

describe(PeriodicLoop.name, () => {
  let passes: Passes;
  let logger: RecordingLogger;
  let loop: PeriodicLoop;

  function loopOf(options: Partial<PeriodicLoopOptions> = {}): PeriodicLoop {
    loop = new PeriodicLoop({
      name: 'test pass',
      intervalMs: NEVER_MS,
      pass: passes.pass,
      logger: logger as unknown as PeriodicLoopOptions['logger'],
      ...options,
    });
    return loop;
  }

  beforeEach(() => {
    passes = new Passes();
    logger = new RecordingLogger();
  });

  afterEach(async () => {
    await loop?.stop(0);
    jest.useRealTimers();
  });

  describe('start', () => {
    it('runs a first pass at once, and only one when called twice', async () => {
      loopOf().start();
      loop.start();
      expect(passes.started).toBe(1);
      passes.finish();
      await loop.stop(EXPECTED_WITHIN_MS);
      expect(passes.started).toBe(1);
    });

    it('does nothing after a stop', async () => {
      await loopOf().stop(0);
      loop.start();
      loop.wake();
      expect(passes.started).toBe(0);
    });
  });

  describe('wake', () => {
    it('runs one more pass right after the pass under way when woken during it', async () => {
      loopOf().start();
      loop.wake();
      loop.wake();
      passes.finish();
      await passes.whenStarted(2);
    });

    it('is ignored after a stop', async () => {
      loopOf().start();
      passes.finish();
      await loop.stop(EXPECTED_WITHIN_MS);
      loop.wake();
      expect(passes.started).toBe(1);
    });
  });

  describe('pass', () => {
    it('runs again at once when a pass says more work is left', async () => {
      passes.answers = [{ more: true }, { more: true }];
      loopOf().start();
      await passes.whenStarted(3);
    });

    it('logs a pass that throws, and goes on', async () => {
      passes.answers = [new Error('database unreachable')];
      loopOf().start();
      loop.wake();
      await passes.whenStarted(2);
      expect(logger.errors).toEqual([
        { fields: { err: new Error('database unreachable'), loop: 'test pass', failures: 1 }, msg: 'test pass failed' },
      ]);
    });
  });

  describe('stop', () => {
    it('waits for the pass under way, then ends the wait, safe to call twice', async () => {
      loopOf().start();
      let stopped = false;
      const stopping = loop.stop(EXPECTED_WITHIN_MS).then(() => (stopped = true));
      const again = loop.stop(EXPECTED_WITHIN_MS);
      await Promise.resolve();
      expect(stopped).toBe(false);
      passes.finish({ more: true });
      await Promise.all([stopping, again]);
      expect(passes.started).toBe(1);
      expect(logger.warnings).toEqual([]);
    });

    it('returns at its deadline with a warning when the pass under way does not end', async () => {
      loopOf().start();
      await loop.stop(20);
      expect(logger.warnings).toEqual([
        { fields: { loop: 'test pass', deadline_ms: 20 }, msg: 'test pass still running at its stop deadline' },
      ]);
      passes.finish();
    });

    it('ends a wait at once', async () => {
      passes.answers = [{ more: false }];
      loopOf().start();
      await loop.stop(EXPECTED_WITHIN_MS);
      expect(logger.warnings).toEqual([]);
    });
  });

  // Timing alone, on fake timers: how long the loop waits between passes.
  describe('waiting', () => {
    beforeEach(() => jest.useFakeTimers());

    it('waits intervalMs after a pass ends before the next', async () => {
      passes.answers = [{ more: false }, { more: false }];
      loopOf({ intervalMs: 1_000 }).start();
      await jest.advanceTimersByTimeAsync(999);
      expect(passes.started).toBe(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(passes.started).toBe(2);
    });

    it('runs the first pass one interval after start when asked to', async () => {
      passes.answers = [{ more: false }];
      loopOf({ intervalMs: 1_000, firstPass: 'after-interval' }).start();
      await jest.advanceTimersByTimeAsync(999);
      expect(passes.started).toBe(0);
      await jest.advanceTimersByTimeAsync(1);
      expect(passes.started).toBe(1);
    });

    it('ends the wait at a wake', async () => {
      passes.answers = [{ more: false }, { more: false }];
      loopOf({ intervalMs: 1_000 }).start();
      await jest.advanceTimersByTimeAsync(0);
      loop.wake();
      await jest.advanceTimersByTimeAsync(0);
      expect(passes.started).toBe(2);
    });

    it('runs exactly one extra pass for wakes during a pass, then waits a whole interval', async () => {
      loopOf({ intervalMs: 1_000 }).start();
      loop.wake();
      loop.wake();
      loop.wake();
      passes.answers = [{ more: false }, { more: false }];
      passes.finish();
      await jest.advanceTimersByTimeAsync(0);
      expect(passes.started).toBe(2);
      await jest.advanceTimersByTimeAsync(999);
      expect(passes.started).toBe(2);
      await jest.advanceTimersByTimeAsync(1);
      expect(passes.started).toBe(3);
    });

    it('backs off after failed passes, doubling up to maxBackoffMs, and waits intervalMs again after a success', async () => {
      const failure = new Error('NATS unreachable');
      passes.answers = [failure, failure, failure, { more: false }, { more: false }, { more: false }];
      loopOf({ intervalMs: 100, maxBackoffMs: 300 }).start();
      const startsAt = async (ms: number) => {
        const before = passes.started;
        await jest.advanceTimersByTimeAsync(ms - 1);
        expect(passes.started).toBe(before);
        await jest.advanceTimersByTimeAsync(1);
        expect(passes.started).toBe(before + 1);
      };
      await startsAt(200);
      await startsAt(300);
      await startsAt(300);
      await startsAt(100);
    });

    it('waits intervalMs after a failed pass when there is no backoff', async () => {
      passes.answers = [new Error('lost'), { more: false }];
      loopOf({ intervalMs: 100 }).start();
      await jest.advanceTimersByTimeAsync(99);
      expect(passes.started).toBe(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(passes.started).toBe(2);
    });
  });
});
