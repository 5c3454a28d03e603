import { Tier } from '@trawl/billing';
import { Registry } from 'prom-client';
import type { FetchEngine, TargetPage, TargetRequest } from '../target-fetch/fetch-engine';
import type { HostEntry, HostGate } from './host-gate';
import type { LoadOutcome } from './host-state';
import { PoliteFetchEngine } from './polite-fetch-engine';
import { PolitenessError } from './politeness.errors';
import { PolitenessMetrics } from './politeness.metrics';

/** A gate that records what it was told and refuses entries after `refuseAfter` of them. */
class RecordingGate implements HostGate {
  readonly entries: { host: string; entry: HostEntry }[] = [];
  readonly outcomes: LoadOutcome[] = [];
  constructor(private readonly refuseAfter = Infinity) {}
  enter(host: string, entry: HostEntry) {
    this.entries.push({ host, entry });
    if (this.entries.length > this.refuseAfter) return Promise.reject(new PolitenessError(host, 'backoff', 30_000));
    const release = (outcome: LoadOutcome): Promise<void> => {
      this.outcomes.push(outcome);
      return Promise.resolve();
    };
    return Promise.resolve({ release });
  }
}

const answer = (status: number, headers: Record<string, string> = {}): TargetPage => ({
  tier: Tier.Basic,
  status,
  finalUrl: 'https://shop.example/a',
  headers,
  body: Buffer.alloc(0),
});

function engineAnswering(...pages: TargetPage[]): FetchEngine & { calls: number } {
  const engine = {
    calls: 0,
    fetch: () => Promise.resolve(pages[Math.min(engine.calls++, pages.length - 1)]),
  };
  return engine;
}

const request = (method: TargetRequest['method'] = 'GET') =>
  ({ url: 'https://Shop.Example/a?b=1', method, timeoutMs: 10_000, signal: new AbortController().signal }) as TargetRequest;

describe(PoliteFetchEngine.name, () => {
  const metrics = () => new PolitenessMetrics(new Registry());

  it("enters the URL's host, gives the load at most half its time to wait, and reports the answer", async () => {
    const gate = new RecordingGate();
    const page = await new PoliteFetchEngine(engineAnswering(answer(200)), gate, { retryAfterPause: true }, metrics()).fetch(request());
    expect(page.status).toBe(200);
    expect(gate.entries).toHaveLength(1);
    expect(gate.entries[0].host).toBe('shop.example');
    const waitMs = gate.entries[0].entry.latestStart - Date.now();
    expect(waitMs).toBeGreaterThan(4_000);
    expect(waitMs).toBeLessThanOrEqual(5_000);
    expect(gate.outcomes).toEqual([{ status: 200, retryAfterMs: undefined }]);
  });

  it('sends a GET answered 429 once more after the pause, and stops there', async () => {
    const gate = new RecordingGate();
    const engine = engineAnswering(answer(429, { 'retry-after': '2' }), answer(429, { 'retry-after': '2' }));
    const page = await new PoliteFetchEngine(engine, gate, { retryAfterPause: true }, metrics()).fetch(request());
    expect(page.status).toBe(429);
    expect(engine.calls).toBe(2);
    expect(gate.outcomes).toEqual([
      { status: 429, retryAfterMs: 2_000 },
      { status: 429, retryAfterMs: 2_000 },
    ]);
  });

  it("answers the host's 429 when the pause outlasts the load's time, and never resends a POST", async () => {
    const refusing = new RecordingGate(1);
    const page = await new PoliteFetchEngine(
      engineAnswering(answer(429), answer(200)),
      refusing,
      { retryAfterPause: true },
      metrics(),
    ).fetch(request());
    expect(page.status).toBe(429);
    const post = engineAnswering(answer(429), answer(200));
    expect(
      (await new PoliteFetchEngine(post, new RecordingGate(), { retryAfterPause: true }, metrics()).fetch(request('POST'))).status,
    ).toBe(429);
    expect(post.calls).toBe(1);
  });

  it('does not take a bare 503 (an outage, a challenge) as a request to slow down', async () => {
    const engine = engineAnswering(answer(503), answer(200));
    const page = await new PoliteFetchEngine(engine, new RecordingGate(), { retryAfterPause: true }, metrics()).fetch(request());
    expect(page.status).toBe(503);
    expect(engine.calls).toBe(1);
  });
});
