import { Registry } from 'prom-client';
import { Tier } from '@trawl/billing';
import { EgressError, EgressErrorCode } from '@trawl/egress';
import { FakeEngine, htmlPage } from '../../test/support/fake-engine';
import { WorkerMetrics } from '../worker.metrics';
import { PageFetchError, PageFetchErrorCode } from './page-fetch.errors';
import { PageFetchService } from './page-fetch.service';

const URL_A = 'https://example.com/a';

function serviceWith(engine: FakeEngine, pageTimeoutMs = 30_000) {
  const registry = new Registry();
  const service = new PageFetchService([engine], { pageTimeoutMs }, new WorkerMetrics(registry));
  return { service, registry };
}

describe(PageFetchService.name, () => {
  describe('fetchPage', () => {
    it('answers a 200 HTML page as fetched, billed one basic credit, with its decoded HTML', async () => {
      const body = Buffer.from('<meta charset="windows-1252"><p>caf\xe9</p>', 'latin1');
      const engine = new FakeEngine({ [URL_A]: htmlPage('', { body, contentType: 'text/html', finalUrl: 'https://example.com/b', redirectChain: [URL_A] }) });
      const page = await serviceWith(engine).service.fetchPage({ url: URL_A });
      expect(page).toMatchObject({
        outcome: 'fetched',
        credits: 1,
        tier: Tier.Basic,
        statusCode: 200,
        finalUrl: 'https://example.com/b',
        redirectChain: [URL_A],
        contentType: 'text/html',
        html: '<meta charset="windows-1252"><p>café</p>',
      });
      expect(page.error).toBeUndefined();
    });

    it('passes the configured page timeout to the engine', async () => {
      const engine = new FakeEngine({ [URL_A]: htmlPage('<p>x</p>') });
      await serviceWith(engine, 12_345).service.fetchPage({ url: URL_A });
      expect(engine.requests[0].timeoutMs).toBe(12_345);
    });

    it('reads only HTML bodies for a crawl', async () => {
      const engine = new FakeEngine({ [URL_A]: { status: 200, contentType: 'application/pdf', body: Buffer.from('%PDF') } });
      const page = await serviceWith(engine).service.fetchPage({ url: URL_A, read: 'html' });
      expect(engine.requests[0].wantsBody('application/pdf')).toBe(false);
      expect(engine.requests[0].wantsBody('text/html')).toBe(true);
      expect(page).toMatchObject({ outcome: 'fetched', credits: 1, contentType: 'application/pdf' });
      expect(page.html).toBeUndefined();
      expect(page.body).toBeUndefined();
    });

    it('reads any body when asked to', async () => {
      const engine = new FakeEngine({ [URL_A]: { status: 200, contentType: 'application/json', body: Buffer.from('{"a":1}') } });
      const page = await serviceWith(engine).service.fetchPage({ url: URL_A, read: 'any' });
      expect(page.body?.toString()).toBe('{"a":1}');
      expect(page.html).toBeUndefined();
    });

    it('reads no body when asked for none', async () => {
      const engine = new FakeEngine({ [URL_A]: htmlPage('<p>x</p>') });
      const page = await serviceWith(engine).service.fetchPage({ url: URL_A, read: 'none' });
      expect(engine.requests[0].wantsBody('text/html')).toBe(false);
      expect(page.html).toBeUndefined();
    });

    it('takes an untyped body for HTML only when it looks like HTML', async () => {
      const engine = new FakeEngine({
        'https://example.com/html': { status: 200, body: Buffer.from('<!doctype html><a href="/x">x</a>') },
        'https://example.com/text': { status: 200, body: Buffer.from('just text') },
      });
      const { service } = serviceWith(engine);
      expect((await service.fetchPage({ url: 'https://example.com/html' })).html).toContain('<a href');
      expect((await service.fetchPage({ url: 'https://example.com/text' })).html).toBeUndefined();
    });

    it('answers 404 and 410 as failed but billed, without HTML', async () => {
      const engine = new FakeEngine({
        'https://example.com/404': htmlPage('<p>not found</p>', { status: 404 }),
        'https://example.com/410': htmlPage('<p>gone</p>', { status: 410 }),
      });
      const { service } = serviceWith(engine);
      for (const status of [404, 410]) {
        const page = await service.fetchPage({ url: `https://example.com/${status}` });
        expect(page).toMatchObject({ outcome: 'failed_billed', credits: 1, statusCode: status, error: `http_${status}` });
        expect(page.html).toBeUndefined();
      }
    });

    it('answers a 503 as failed and free', async () => {
      const engine = new FakeEngine({ [URL_A]: htmlPage('<p>busy</p>', { status: 503 }) });
      const page = await serviceWith(engine).service.fetchPage({ url: URL_A });
      expect(page).toMatchObject({ outcome: 'failed', credits: 0, statusCode: 503, error: 'http_503' });
    });

    it('answers an egress refusal as failed and free, named by its code', async () => {
      const engine = new FakeEngine({ [URL_A]: { error: new EgressError(EgressErrorCode.BlockedAddress, 'no') } });
      const page = await serviceWith(engine).service.fetchPage({ url: URL_A });
      expect(page).toMatchObject({ outcome: 'failed', credits: 0, error: 'blocked_address', redirectChain: [] });
      expect(page.statusCode).toBeUndefined();
    });

    it('throws Aborted instead of a verdict when the caller aborts', async () => {
      const engine = new FakeEngine({ [URL_A]: htmlPage('<p>x</p>') });
      const abort = new AbortController();
      abort.abort(new Error('shutting down'));
      const fetching = serviceWith(engine).service.fetchPage({ url: URL_A, signal: abort.signal });
      await expect(fetching).rejects.toBeInstanceOf(PageFetchError);
      await expect(fetching).rejects.toMatchObject({ code: PageFetchErrorCode.Aborted });
    });

    it('throws TierUnavailable for a tier no engine serves', async () => {
      const engine = new FakeEngine({});
      await expect(serviceWith(engine).service.fetchPage({ url: URL_A, tier: Tier.JsRender })).rejects.toMatchObject({
        code: PageFetchErrorCode.TierUnavailable,
      });
    });

    it('records the fetch time by tier and outcome', async () => {
      const engine = new FakeEngine({ [URL_A]: htmlPage('<p>x</p>', { status: 503 }) });
      const { service, registry } = serviceWith(engine);
      await service.fetchPage({ url: URL_A });
      expect(await registry.metrics()).toContain('trawl_worker_fetch_seconds_count{tier="basic",outcome="failed"} 1');
    });
  });

  describe('onApplicationShutdown', () => {
    it('closes its engines', async () => {
      const engine = new FakeEngine({});
      await serviceWith(engine).service.onApplicationShutdown();
      expect(engine.closed).toBe(1);
    });
  });
});
