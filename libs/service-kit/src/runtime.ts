import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';

/**
 * What runs between boot and shutdown: loops, consumers, timers. `start()` and `stop()` are safe to
 * call twice; `stop()` finishes or hands back (naks) what the loops hold, within their deadlines.
 * A `stop()` before `start()` stops what there is; a `start()` after `stop()` does nothing.
 */
export interface Runtime {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The one runtime of a service (`<service>.runtime.ts`): Nest starts it once the app is built
 * (`onApplicationBootstrap`) and stops it on SIGTERM before the HTTP server closes
 * (`beforeApplicationShutdown`); the connections close after that (`connectService`'s closer, in
 * `onApplicationShutdown`), so nothing the loops still do finds them closed. A subclass says what
 * starting and stopping mean; this class makes both safe to call twice and in either order.
 */
export abstract class ServiceRuntime implements Runtime, OnApplicationBootstrap, BeforeApplicationShutdown {
  private starting?: Promise<void>;
  private stopping?: Promise<void>;

  start(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    this.starting ??= this.startLoops();
    return this.starting;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      // A start under way finishes first, so that what it started is stopped too.
      await this.starting?.catch(() => undefined);
      await this.stopLoops();
    })();
    return this.stopping;
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  /** Starts every loop of the service; called once. */
  protected abstract startLoops(): Promise<void>;

  /** Stops every loop, handing back what it holds, and releases what only the loops used; called once. */
  protected abstract stopLoops(): Promise<void>;
}
