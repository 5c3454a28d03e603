import type { FetchEngine, TargetPage, TargetRequest } from '../../src/target-fetch/fetch-engine';

/** What the fake answers for a URL: a response, or an error to throw. */
export type FakePage = (Partial<Omit<TargetPage, 'tier'>> & { status: number }) | { error: unknown };

/**
 * A `FetchEngine` serving canned pages, for tests of the services above the engines. Like the
 * HTTP engine it leaves the body out when the request's `acceptBody` does not want it.
 */
export class FakeEngine implements FetchEngine {
  readonly requests: TargetRequest[] = [];

  constructor(private readonly pages: Record<string, FakePage>) {}

  async fetch(request: TargetRequest): Promise<TargetPage> {
    this.requests.push(request);
    if (request.signal.aborted) throw request.signal.reason;
    const page = this.pages[request.url];
    if (page === undefined) throw new Error(`FakeEngine has no page ${request.url}`);
    if ('error' in page) throw page.error;
    const wanted = request.acceptBody?.(page.contentType) ?? true;
    return {
      tier: request.tier,
      finalUrl: request.url,
      headers: {},
      ...page,
      body: wanted ? (page.body ?? Buffer.alloc(0)) : Buffer.alloc(0),
    };
  }
}

/** An HTML response for the fake engine. */
export const htmlPage = (html: string, extra: Partial<Omit<TargetPage, 'tier'>> = {}): FakePage => ({
  status: 200,
  contentType: 'text/html; charset=utf-8',
  body: Buffer.from(html),
  ...extra,
});
