import { createLogger } from '@trawl/observability';
import { Registry } from 'prom-client';
import { NatsHostRecords, PolitenessError, PolitenessMetrics, SharedHostGate, type HostGate } from '../src/politeness';
import type { HostLimits } from '../src/politeness';
import { twoWorkers } from './support/two-workers';

const BACKOFF = { enabled: true, baseMs: 1_000, maxMs: 60_000 };
const logger = createLogger('host-gate-test', 'silent');

/** Two worker replicas' gates on one bucket: what one admits, the other sees. */
describe(SharedHostGate.name, () => {
  const workers = twoWorkers('host-gate');

  async function gates(limits: HostLimits): Promise<[HostGate, HostGate]> {
    const bucket = workers.bucket('host_politeness');
    const gateOf = async (js: typeof workers.a.js) =>
      new SharedHostGate(
        await NatsHostRecords.open(js, bucket),
        { limits, backoff: BACKOFF },
        new PolitenessMetrics(new Registry()),
        logger,
      );
    return [await gateOf(workers.a.js), await gateOf(workers.b.js)];
  }

  const entry = (waitMs = 10_000, runMs = 5_000) => ({ latestStart: Date.now() + waitMs, runMs, signal: new AbortController().signal });

  it('holds a host to its concurrency limit across both workers, and lets every load through in the end', async () => {
    const [a, b] = await gates({ concurrency: 2, ratePerSecond: 0 });
    let inFlight = 0;
    let most = 0;
    const load = async (gate: HostGate) => {
      const permit = await gate.enter('busy.example', entry());
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 60));
      inFlight--;
      await permit.release({ status: 200 });
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => load(i % 2 === 0 ? a : b)));
    expect(most).toBe(2);
    // Another host is not held back by this one.
    const other = await a.enter('other.example', entry(0));
    await other.release({ status: 200 });
  });

  it('spaces the starts on a host by its rate limit across both workers', async () => {
    const [a, b] = await gates({ concurrency: 0, ratePerSecond: 10 });
    const begun = Date.now();
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const permit = await (i % 2 === 0 ? a : b).enter('rate.example', entry());
        starts.push(Date.now());
        await permit.release({ status: 200 });
      }),
    );
    starts.sort((x, y) => x - y);
    // The k-th start comes no sooner than k × 100 ms after the first entry. Measured from before the
    // first entry, not between neighbours: a busy event loop only ever makes a start look later, so
    // this bound holds on a loaded machine while a gate that let two through together still fails it.
    starts.forEach((at, k) => expect(at - begun).toBeGreaterThanOrEqual(k * 100 - 2));
  });

  it('pauses a host for both workers when it answers 429, for its Retry-After', async () => {
    const [a, b] = await gates({ concurrency: 0, ratePerSecond: 0 });
    const first = await a.enter('slow-down.example', entry());
    const answeredAt = Date.now();
    await first.release({ status: 429, retryAfterMs: 1_500 });
    // B never saw this host: it reads the record and waits out the pause.
    const next = await b.enter('slow-down.example', entry());
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(1_450);
    await next.release({ status: 200 });
  });

  it('refuses a load that cannot wait for the pause, saying how long it lasts', async () => {
    const [a, b] = await gates({ concurrency: 1, ratePerSecond: 0 });
    await (await a.enter('paused.example', entry())).release({ status: 429, retryAfterMs: 20_000 });
    const refused = await b.enter('paused.example', entry(2_000)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PolitenessError);
    expect(refused).toMatchObject({ reason: 'backoff', host: 'paused.example' });
    expect((refused as PolitenessError).retryAfterMs).toBeGreaterThan(15_000);
  });

  it("frees a dead worker's slot once its load's time and margin have passed", async () => {
    const [a, b] = await gates({ concurrency: 1, ratePerSecond: 0 });
    // Worker A takes the only slot for a 200 ms load and never releases it (it died).
    await a.enter('orphan.example', entry(1_000, 200));
    const started = Date.now();
    await expect(b.enter('orphan.example', entry(500))).rejects.toMatchObject({ reason: 'concurrency' });
    const permit = await b.enter('orphan.example', entry(15_000));
    // The lapse: the load's 200 ms and a 5 s margin.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    await permit.release({ status: 200 });
  });
});
