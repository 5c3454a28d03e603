import { RobotsCache } from '../site-map/robots-cache';
import type { HttpEngine } from '../page-fetch/http-engine';
import pino from 'pino';
import { Registry } from 'prom-client';
import { CrawlPageTaskV1 } from '@trawl/contracts';
import { EgressError, EgressErrorCode } from '@trawl/egress';
import { FakeEngine, FakePage, htmlPage } from '../../test/support/fake-engine';
import type { CaptchaPass } from '../captcha/captcha-pass';
import { TargetFetcher } from '../target-fetch/target-fetcher';
import { WorkerMetrics } from '../worker.metrics';
import { CrawlPageFetcher } from './crawl-page-fetcher';
import { CrawlPageService } from './crawl-page.service';
import { testIdentities } from '../identity/identity.test-support';

const CRAWL_ID = '6f1c1f4e-6a51-4f55-9a52-3f3c1a9e0b01';
const START = 'https://example.com/';

const task = (overrides: Partial<CrawlPageTaskV1> = {}): CrawlPageTaskV1 => ({
  v: 1,
  crawl_id: CRAWL_ID,
  tenant_id: '0b7f6a53-3a43-4f0e-8f39-2d7a3c0f5e11',
  frontier_id: 42,
  attempt: 2,
  url: START,
  depth: 0,
  wants_links: true,
  wants_content: false,
  scope_domain: 'example.com',
  ...overrides,
});

const noCaptcha = { pass: async () => undefined } as unknown as CaptchaPass;

function serviceFor(pages: Record<string, FakePage>, maxResultBytes?: number, engine = new FakeEngine(pages)) {
  const target = new TargetFetcher({ engines: { http: engine }, identities: testIdentities, captcha: noCaptcha });
  const fetcher = new CrawlPageFetcher({
    target,
    pageTimeoutMs: 30_000,
    maxBodyBytes: 10 * 1024 * 1024,
    metrics: new WorkerMetrics(new Registry()),
  });
  // No task here obeys robots.txt: the cache is never asked.
  const robots = new RobotsCache({ http: {} as HttpEngine, identities: testIdentities });
  return new CrawlPageService(fetcher, robots, { maxResultBytes }, pino({ level: 'silent' }));
}

const HOME =
  '<a href="/a">a</a><a href="https://www.example.com/a/">dup</a><a href="https://other.com/">x</a><a href="https://blog.example.com/">b</a>';

describe(CrawlPageService.name, () => {
  describe('fetchPage', () => {
    it('answers a fetched page with its in-scope links, billed, and echoes the claim', async () => {
      const result = (await serviceFor({ [START]: htmlPage(HOME) }).fetchPage(task())).result;
      expect(result).toEqual({
        v: 1,
        crawl_id: CRAWL_ID,
        frontier_id: 42,
        attempt: 2,
        outcome: 'fetched',
        status_code: 200,
        final_url: START,
        credits: 1,
        tier: 'basic',
        opened: true,
        wanted_links: true,
        links: ['https://example.com/a', 'https://blog.example.com/'],
        duplicate_links: 1,
        content_type: 'text/html; charset=utf-8',
      });
    });

    it('returns no links when the crawl does not open the page', async () => {
      const result = (await serviceFor({ [START]: htmlPage(HOME) }).fetchPage(task({ wants_links: false, wants_content: true }))).result;
      expect(result).toMatchObject({ opened: false, links: [], duplicate_links: 0, content: HOME });
    });

    it('returns the page HTML only when the crawl keeps content', async () => {
      const service = serviceFor({ [START]: htmlPage(HOME) });
      expect((await service.fetchPage(task({ wants_content: true }))).result.content).toBe(HOME);
      expect((await service.fetchPage(task({ wants_content: false }))).result.content).toBeUndefined();
    });

    it('hands HTML too large for one message apart to be spilled, keeping links and outcome', async () => {
      const big = `<a href="/a">a</a>${'x'.repeat(20_000)}`;
      const answer = await serviceFor({ [START]: htmlPage(big) }, 10_000).fetchPage(task({ wants_content: true }));
      expect(answer.result.content).toBeUndefined();
      expect(answer.spill).toBe(big);
      expect(answer.result).toMatchObject({ outcome: 'fetched', credits: 1, links: ['https://example.com/a'] });
    });

    it('does not open a page that is not HTML, nor download its body, but bills it', async () => {
      const pdf: FakePage = { status: 200, contentType: 'application/pdf', body: Buffer.from('%PDF-1.7 <a href="/x">') };
      const engine = new FakeEngine({ [START]: pdf });
      const result = (await serviceFor({}, undefined, engine).fetchPage(task({ wants_content: true }))).result;
      expect(engine.requests[0].acceptBody?.('application/pdf')).toBe(false);
      expect(engine.requests[0].acceptBody?.('text/html; charset=utf-8')).toBe(true);
      expect(result).toMatchObject({ outcome: 'fetched', credits: 1, opened: false, links: [], content_type: 'application/pdf' });
      expect(result.content).toBeUndefined();
    });

    it('does not open a page that redirected off the crawl site, but bills it', async () => {
      const moved = htmlPage('<a href="https://elsewhere.net/x">x</a><a href="https://example.com/y">y</a>', {
        finalUrl: 'https://elsewhere.net/',
      });
      const result = (await serviceFor({ [START]: moved }).fetchPage(task())).result;
      expect(result).toMatchObject({ outcome: 'fetched', credits: 1, opened: false, links: [], final_url: 'https://elsewhere.net/' });
    });

    it('opens a page that redirected to a subdomain of the crawl site', async () => {
      const moved = htmlPage('<a href="/y">y</a>', { finalUrl: 'https://www.example.com/home' });
      const result = (await serviceFor({ [START]: moved }).fetchPage(task())).result;
      expect(result).toMatchObject({ opened: true, links: ['https://www.example.com/y'] });
    });

    it('bills a 404 as failed_billed without links or content', async () => {
      const result = (await serviceFor({ [START]: htmlPage(HOME, { status: 404 }) }).fetchPage(task({ wants_content: true }))).result;
      expect(result).toMatchObject({ outcome: 'failed_billed', credits: 1, status_code: 404, error: 'http_404', opened: false, links: [] });
      expect(result.content).toBeUndefined();
    });

    it('answers a 500 as failed and free', async () => {
      const result = (await serviceFor({ [START]: htmlPage(HOME, { status: 500 }) }).fetchPage(task())).result;
      expect(result).toMatchObject({ outcome: 'failed', credits: 0, status_code: 500, error: 'http_500', opened: false });
    });

    it('answers a refused page as failed and free, with only the reason', async () => {
      const refused: FakePage = { error: new EgressError(EgressErrorCode.DnsFailure, 'nope') };
      const result = (await serviceFor({ [START]: refused }).fetchPage(task())).result;
      expect(result).toEqual({
        v: 1,
        crawl_id: CRAWL_ID,
        frontier_id: 42,
        attempt: 2,
        outcome: 'failed',
        error: 'dns_failure',
        credits: 0,
        tier: 'basic',
        opened: false,
        wanted_links: true,
        links: [],
        duplicate_links: 0,
      });
    });
  });

  describe('skipped', () => {
    it('answers a task of a stopped crawl without fetching or billing it', async () => {
      const service = serviceFor({});
      expect(service.skipped(task())).toEqual({
        v: 1,
        crawl_id: CRAWL_ID,
        frontier_id: 42,
        attempt: 2,
        outcome: 'skipped',
        credits: 0,
        tier: 'basic',
        opened: false,
        wanted_links: true,
        links: [],
        duplicate_links: 0,
      });
    });
  });
});
