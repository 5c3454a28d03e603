import { createServer, IncomingMessage, Server } from 'node:http';
import { once } from 'node:events';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../fixtures/web';
import { ApiClient, Platform } from '../support/platform';
import { waitFor } from '@trawl/testing';

interface CollectedSpan {
  service: string;
  name: string;
  traceId: string;
}

/** A stand-in OpenTelemetry collector: keeps the spans the services export over OTLP/HTTP (JSON). */
async function startSpanCollector(): Promise<{ url: string; spans: CollectedSpan[]; server: Server }> {
  const spans: CollectedSpan[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      keep(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const keep = (raw: Buffer) => {
    try {
      const body = JSON.parse(raw.toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = (resourceSpans.resource?.attributes ?? []).find((a: any) => a.key === 'service.name')?.value?.stringValue;
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) spans.push({ service, name: span.name, traceId: span.traceId });
        }
      }
    } catch {
      // not JSON: ignored
    }
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, server };
}

const SITE_PAGES = 2_000;

/**
 * Several fetch workers and coordinators share the work as in a cluster: the limits stay exact,
 * concurrent crawls stay apart, and one crawl can be followed through every service by its trace.
 */
describe('Crawls with many workers and coordinators (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let collector: Awaited<ReturnType<typeof startSpanCollector>>;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: SITE_PAGES });
    collector = await startSpanCollector();
    platform = new Platform('crawl-scale', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'crawl-coordinator', 'fetch-worker'],
      replicas: { 'crawl-coordinator': 2, 'fetch-worker': 3 },
      env: {
        all: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
        'crawl-coordinator': { RESULT_BATCH: '32', DISPATCH_PER_CRAWL: '16' },
        'fetch-worker': { WORKER_CONCURRENCY: '8' },
      },
    });
    await platform.start();
    api = platform.client((await platform.createTenant({ max_active_jobs: 10 })).api_key);
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
    collector?.server.close();
  }, 60_000);

  it('keeps max_items and max_pages exact across replicas, for crawls running side by side', async () => {
    const starts = await Promise.all([
      api.startCrawl({ url: web.url('big.test', '/'), max_items: 777, max_pages: 5_000 }),
      api.startCrawl({ url: web.url('big.test', '/'), max_items: 10_000, max_pages: 333 }),
      api.startCrawl({ url: web.url('rules.test', '/'), max_items: 1_000, max_pages: 1_000 }),
    ]);
    const [items, pages, rules] = await Promise.all(starts.map((s) => api.waitUntilEnded(s.body.crawl_id, 120_000)));
    expect(items).toMatchObject({ status: 'completed', stop_reason: 'max_items', coverage: { items_found: 777 } });
    expect(await api.readAllResults(items.crawl_id)).toHaveLength(777);
    expect(pages).toMatchObject({ status: 'completed', stop_reason: 'max_pages', coverage: { pages_fetched: 333 } });
    const pageResults = await api.readAllResults(pages.crawl_id);
    expect(pageResults).toHaveLength(pages.coverage.items_found);
    expect(rules).toMatchObject({ status: 'completed' });
    expect((await api.readAllResults(rules.crawl_id)).every((r) => r.url.includes('rules.test'))).toBe(true);
  }, 180_000);

  it('carries one trace from the API request through the coordinators and the workers', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const started = await api.startCrawl(
      { url: web.url('rules.test', '/'), depth: 1 },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    await api.waitUntilEnded(started.body.crawl_id);
    const services = await waitFor(
      () => {
        const seen = new Set(collector.spans.filter((s) => s.traceId === traceId).map((s) => s.service));
        return ['gateway', 'crawl-coordinator', 'fetch-worker'].every((s) => seen.has(s)) ? seen : undefined;
      },
      { timeoutMs: 15_000, what: 'spans of the crawl from every service' },
    );
    expect([...services].sort()).toEqual(['crawl-coordinator', 'fetch-worker', 'gateway']);
    const names = collector.spans.filter((s) => s.traceId === traceId).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['crawl.dispatch', 'crawl.page.fetch']));
  }, 60_000);
});
