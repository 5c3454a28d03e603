import type { FetchEngine, TargetPage, TargetRequest } from '../target-fetch/fetch-engine';
import type { HostGate } from './host-gate';
import { asksToSlowDown, retryAfterMs, type LoadOutcome } from './host-state';
import { PolitenessError } from './politeness.errors';
import type { PolitenessMetrics } from './politeness.metrics';

/** Whether a GET that was answered 429/503 is sent once more after its host's pause. */
export interface PoliteLoadSettings {
  retryAfterPause: boolean;
}

/**
 * An engine whose loads pass the per-host gate: each waits for its host (at most half its time; the
 * rest is for the load), tells the gate what the host answered, and a GET answered 429 or 503 is sent
 * once more when the pause it caused ends in time. The host is the URL's; redirects to other hosts
 * and a rendered page's sub-resources are not counted (the document's host is the one a crawl loads).
 */
export class PoliteFetchEngine implements FetchEngine {
  constructor(
    private readonly inner: FetchEngine,
    private readonly gate: HostGate,
    private readonly settings: PoliteLoadSettings,
    private readonly metrics: PolitenessMetrics,
  ) {}

  async fetch(request: TargetRequest): Promise<TargetPage> {
    const host = hostOf(request.url);
    if (host === undefined) return this.inner.fetch(request);
    const deadline = Date.now() + request.timeoutMs;
    const first = await this.load(host, request, deadline);
    if (!this.retriable(request, first.outcome)) return first.page;
    try {
      const second = await this.load(host, request, deadline);
      this.metrics.retried.inc();
      return second.page;
    } catch (error) {
      // The pause outlasts this load's time: the host's own answer stands.
      if (error instanceof PolitenessError) return first.page;
      throw error;
    }
  }

  private async load(host: string, request: TargetRequest, deadline: number): Promise<{ page: TargetPage; outcome: LoadOutcome }> {
    const now = Date.now();
    const permit = await this.gate.enter(host, { latestStart: now + (deadline - now) / 2, runMs: deadline - now, signal: request.signal });
    let page: TargetPage;
    try {
      page = await this.inner.fetch({ ...request, timeoutMs: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      await permit.release({});
      throw error;
    }
    const outcome = outcomeOf(page);
    await permit.release(outcome);
    return { page, outcome };
  }

  private retriable(request: TargetRequest, outcome: LoadOutcome): boolean {
    return this.settings.retryAfterPause && request.method === 'GET' && asksToSlowDown(outcome);
  }
}

function outcomeOf(page: TargetPage): LoadOutcome {
  return { status: page.status, retryAfterMs: retryAfterMs(page.headers['retry-after'], Date.now()) };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}
