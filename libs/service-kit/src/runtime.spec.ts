import { ServiceRuntime } from './runtime';

/** Counts its starts and stops; `startGate` holds a start under way until released. */
class CountingRuntime extends ServiceRuntime {
  readonly calls: string[] = [];
  startGate: Promise<void> = Promise.resolve();

  protected async startLoops(): Promise<void> {
    this.calls.push('start');
    await this.startGate;
    this.calls.push('started');
  }

  protected async stopLoops(): Promise<void> {
    this.calls.push('stop');
  }
}

describe(ServiceRuntime.name, () => {
  describe('start', () => {
    it('starts the loops once when called twice', async () => {
      const runtime = new CountingRuntime();
      await Promise.all([runtime.start(), runtime.start()]);
      await runtime.start();
      expect(runtime.calls).toEqual(['start', 'started']);
    });

    it('does nothing after a stop', async () => {
      const runtime = new CountingRuntime();
      await runtime.stop();
      await runtime.start();
      expect(runtime.calls).toEqual(['stop']);
    });

    it('is what Nest calls once the app is built', async () => {
      const runtime = new CountingRuntime();
      await runtime.onApplicationBootstrap();
      expect(runtime.calls).toEqual(['start', 'started']);
    });
  });

  describe('stop', () => {
    it('stops the loops once when called twice', async () => {
      const runtime = new CountingRuntime();
      await runtime.start();
      await Promise.all([runtime.stop(), runtime.beforeApplicationShutdown()]);
      await runtime.stop();
      expect(runtime.calls).toEqual(['start', 'started', 'stop']);
    });

    it('waits for a start under way before stopping what it started', async () => {
      const runtime = new CountingRuntime();
      let release!: () => void;
      runtime.startGate = new Promise((resolve) => (release = resolve));
      const starting = runtime.start();
      const stopping = runtime.stop();
      release();
      await Promise.all([starting, stopping]);
      expect(runtime.calls).toEqual(['start', 'started', 'stop']);
    });

    it('stops even when the start failed', async () => {
      const runtime = new CountingRuntime();
      runtime.startGate = Promise.reject(new Error('NATS refused the consumer'));
      await expect(runtime.start()).rejects.toThrow('NATS refused the consumer');
      await runtime.stop();
      expect(runtime.calls).toEqual(['start', 'stop']);
    });
  });
});
