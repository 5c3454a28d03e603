import { Tier } from '@trawl/billing';
import { EngineRequest, EngineResponse, PageEngine } from '../../src/page-fetch/page-engine';

/** What the fake answers for a URL: a response, or an error to throw. */
export type FakePage = (Partial<EngineResponse> & { status: number }) | { error: unknown };

/**
 * A `PageEngine` serving canned pages, for tests of the services above the engines. Like a real
 * engine it leaves the body out when the request does not want it.
 */
export class FakeEngine implements PageEngine {
  readonly requests: EngineRequest[] = [];
  closed = 0;

  constructor(
    private readonly pages: Record<string, FakePage>,
    readonly tier: Tier = Tier.Basic,
  ) {}

  async load(request: EngineRequest): Promise<EngineResponse> {
    this.requests.push(request);
    if (request.signal?.aborted) throw request.signal.reason;
    const page = this.pages[request.url];
    if (page === undefined) throw new Error(`FakeEngine has no page ${request.url}`);
    if ('error' in page) throw page.error;
    const contentType = page.contentType;
    const wanted = request.wantsBody(contentType?.split(';')[0].trim().toLowerCase() || undefined);
    return {
      finalUrl: request.url,
      redirectChain: [],
      ...page,
      body: wanted ? (page.body ?? Buffer.alloc(0)) : Buffer.alloc(0),
    };
  }

  async close(): Promise<void> {
    this.closed++;
  }
}

/** An HTML response for the fake engine. */
export const htmlPage = (html: string, extra: Partial<EngineResponse> = {}): FakePage => ({
  status: 200,
  contentType: 'text/html; charset=utf-8',
  body: Buffer.from(html),
  ...extra,
});
