import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { loadConfig } from '@trawl/config';
import {
  crawlMessagingDefinitions,
  crawlPageResultBatchV1,
  CrawlPageResultBatchV1,
  CrawlPageResultV1,
  CrawlPageTaskV1,
  messagingTopology,
  PAGES_HEADER,
} from '@trawl/contracts';
import { deleteStreams, ensureConsumer, ensureStream, MessageConsumer, MessagingConnection, publishJson } from '@trawl/messaging';
import { startTracing, stopTracing } from '@trawl/observability';
import { uniqueSuffix, waitFor } from '@trawl/testing';
import { fetchWorkerConfigSchema } from '../src/config';
import { CrawlPageConsumer } from '../src/crawl-pages/crawl-page.consumer';
import { FetchWorkerModule } from '../src/fetch-worker.module';
import { WorkerMetrics } from '../src/worker.metrics';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const CRAWL_ID = '5d0c2c8e-2b1f-4c55-8a0e-6f7d1b2c3d4e';
const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';

/** A tiny web site on loopback, reached as `site.test` (and `other.test`) through EGRESS_HOST_MAP. */
class FixtureSite {
  readonly requests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  private readonly server: Server;
  port = 0;

  constructor() {
    this.server = createServer((req, res) => {
      this.requests.push({ path: req.url ?? '', headers: req.headers });
      const html = (body: string, status = 200, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
        res.end(body);
      };
      switch (req.url) {
        case '/':
          return html(
            [
              '<html><head><title>Home</title></head><body>',
              '<a href="/a">A</a> <a href="b.html">B</a> <a href="/a/">A again</a>',
              `<a href="http://www.site.test:${this.port}/a">A by www</a>`,
              '<a href="https://elsewhere.example/">elsewhere</a> <a href="mailto:x@site.test">mail</a>',
              '<a href="#top">top</a> <a href="/c?utm_source=newsletter">C</a>',
              '</body></html>',
            ].join(''),
          );
        case '/latin1':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end(Buffer.from('<meta charset="windows-1252"><p>Caf\xe9 cr\xe8me</p><a href="/menu">menu</a>', 'latin1'));
        case '/gzipped':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
          return res.end(gzipSync('<a href="/from-gzip">z</a>'));
        case '/report.pdf':
          res.writeHead(200, { 'content-type': 'application/pdf' });
          return res.end('%PDF-1.7 <a href="/not-a-link">');
        case '/missing':
          return html('<p>not here</p><a href="/x">x</a>', 404);
        case '/broken':
          return html('<p>oops</p>', 500);
        case '/to-loopback':
          res.writeHead(302, { location: `http://127.0.0.1:${this.port}/secret` });
          return res.end();
        case '/to-other-site':
          res.writeHead(301, { location: `http://other.test:${this.port}/landing` });
          return res.end();
        case '/landing':
          return html('<a href="/deeper">deeper</a>');
        case '/secret':
          return html('<p>internal admin</p>');
        case '/slow':
          setTimeout(() => html('<a href="/after-wait">w</a>'), 300);
          return;
        case '/hang':
          // Answers nothing, so the page timeout decides.
          return;
        default:
          return html('<p>not found</p>', 404);
      }
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string, host = 'site.test'): string {
    return `http://${host}:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/**
 * One worker (the real module, in-process) on its own NATS prefix, plus a stand-in for the crawl
 * coordinator that reads page results from the results stream.
 */
class WorkerHarness {
  readonly prefix = `fw${uniqueSuffix()}`;
  readonly topology = messagingTopology(this.prefix);
  readonly results: CrawlPageResultV1[] = [];
  /** Trace id each result message carried, by frontier id. */
  readonly resultTraceIds = new Map<number, string | undefined>();
  messaging!: MessagingConnection;
  app?: INestApplicationContext;
  private coordinator?: MessageConsumer<CrawlPageResultBatchV1>;
  private nextFrontierId = 1;

  constructor(
    private readonly site: FixtureSite,
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    this.messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'fetch-worker-test' });
    const definitions = crawlMessagingDefinitions(this.topology);
    for (const stream of definitions.streams) await ensureStream(this.messaging.jsm, stream);
    for (const consumer of definitions.consumers) await ensureConsumer(this.messaging.jsm, consumer);
    const config = loadConfig(fetchWorkerConfigSchema, {
      NATS_URL,
      NATS_PREFIX: this.prefix,
      EGRESS_HOST_MAP: 'site.test=127.0.0.1,other.test=127.0.0.1',
      LOG_LEVEL: 'silent',
      ...this.env,
    });
    const logger = pino({ level: 'silent' });
    this.app = await NestFactory.createApplicationContext(await FetchWorkerModule.forRoot(config, logger), { logger: false });
    this.coordinator = new MessageConsumer<CrawlPageResultBatchV1>({
      js: this.messaging.js,
      stream: this.topology.streams.crawlResults,
      durable: this.topology.consumers.crawlCoordinators,
      schema: crawlPageResultBatchV1,
      logger,
      concurrency: 16,
      handler: async (message) => {
        for (const result of message.data.results) {
          this.resultTraceIds.set(result.frontier_id, trace.getSpanContext(message.traceContext())?.traceId);
          this.results.push(result);
        }
        return { kind: 'ack' };
      },
    });
    await this.coordinator.start();
  }

  async stop(): Promise<void> {
    await this.app?.close();
    await this.coordinator?.stop(2_000);
    if (this.messaging) {
      await deleteStreams(this.messaging.jsm, Object.values(this.topology.streams));
      await this.messaging.close();
    }
  }

  task(path: string, overrides: Partial<CrawlPageTaskV1> = {}): CrawlPageTaskV1 {
    return {
      v: 1,
      crawl_id: CRAWL_ID,
      tenant_id: TENANT_ID,
      frontier_id: this.nextFrontierId++,
      attempt: 1,
      url: this.site.url(path),
      depth: 0,
      wants_links: true,
      wants_content: false,
      scope_domain: 'site.test',
      ...overrides,
    };
  }

  /** Publishes a task as the coordinator would; `copy` tells apart deliberate duplicates. */
  async dispatch(page: CrawlPageTaskV1, copy = 1, headers?: Record<string, string>): Promise<void> {
    await publishJson(this.messaging.js, this.topology.subjects.crawlPageTask, page, {
      msgId: `task:${page.frontier_id}:${page.attempt}:${copy}`,
      headers,
    });
  }

  /** Publishes several tasks in one message, as the coordinator sends a crawl's claimed pages. */
  async dispatchTogether(pages: CrawlPageTaskV1[]): Promise<void> {
    await publishJson(
      this.messaging.js,
      this.topology.subjects.crawlPageTask,
      { v: 1, tasks: pages },
      { msgId: `tasks:${pages.map((page) => page.frontier_id).join(',')}`, headers: { [PAGES_HEADER]: String(pages.length) } },
    );
  }

  /** Dispatches a task and waits for its page result. */
  async crawl(page: CrawlPageTaskV1): Promise<CrawlPageResultV1> {
    await this.dispatch(page);
    return this.resultOf(page);
  }

  resultOf(page: CrawlPageTaskV1): Promise<CrawlPageResultV1> {
    return waitFor(() => this.results.find((r) => r.frontier_id === page.frontier_id), {
      timeoutMs: 10_000,
      what: `result of ${page.url}`,
    });
  }

  async workQueue(): Promise<{ messages: number; ackPending: number }> {
    const stream = await this.messaging.jsm.streams.info(this.topology.streams.crawlWork);
    const consumer = await this.messaging.jsm.consumers.info(this.topology.streams.crawlWork, this.topology.consumers.fetchWorkers);
    return { messages: stream.state.messages, ackPending: consumer.num_ack_pending };
  }
}

describe(CrawlPageConsumer.name, () => {
  const site = new FixtureSite();
  const worker = new WorkerHarness(site, { PAGE_TIMEOUT_MS: '1500', WORKER_CONCURRENCY: '8', SHUTDOWN_TIMEOUT_MS: '4000' });
  const task = worker.task.bind(worker);
  const crawl = worker.crawl.bind(worker);

  beforeAll(async () => {
    // Records spans and propagates W3C trace context, as the worker's main.ts does.
    startTracing({ serviceName: 'fetch-worker-test', exporter: new InMemorySpanExporter() });
    await site.start();
    await worker.start();
  });

  afterAll(async () => {
    await worker.stop();
    await site.stop();
    await stopTracing();
  });

  it('publishes a fetched page with its in-scope, normalised, unique links, billed one credit', async () => {
    const page = task('/');
    const result = await crawl(page);
    expect(result).toEqual({
      v: 1,
      crawl_id: CRAWL_ID,
      frontier_id: page.frontier_id,
      attempt: 1,
      outcome: 'fetched',
      status_code: 200,
      final_url: site.url('/'),
      credits: 1,
      tier: 'basic',
      opened: true,
      wanted_links: true,
      links: [site.url('/a'), site.url('/b.html'), site.url('/c')],
      duplicate_links: 2,
      content_type: 'text/html; charset=utf-8',
    });
  });

  it('fetches with a browser’s request headers', async () => {
    await crawl(task('/', { wants_links: false, wants_content: true }));
    const request = site.requests.filter((r) => r.path === '/').at(-1)!;
    expect(request.headers['user-agent']).toMatch(/Chrome\/\d+/);
    expect(request.headers.accept).toContain('text/html');
    expect(request.headers['accept-language']).toBeDefined();
    expect(request.headers['accept-encoding']).toContain('gzip');
  });

  it('returns the page HTML as UTF-8 text when the crawl keeps content', async () => {
    const result = await crawl(task('/latin1', { wants_content: true }));
    expect(result.content).toBe('<meta charset="windows-1252"><p>Café crème</p><a href="/menu">menu</a>');
    expect(result.links).toEqual([site.url('/menu')]);
  });

  it('reads compressed pages', async () => {
    expect((await crawl(task('/gzipped'))).links).toEqual([site.url('/from-gzip')]);
  });

  it('fetches and bills a page that is not HTML without opening it', async () => {
    const result = await crawl(task('/report.pdf', { wants_content: true }));
    expect(result).toMatchObject({ outcome: 'fetched', credits: 1, opened: false, links: [], content_type: 'application/pdf' });
    expect(result.content).toBeUndefined();
  });

  it('bills a 404 as failed_billed', async () => {
    const result = await crawl(task('/missing', { wants_content: true }));
    expect(result).toMatchObject({ outcome: 'failed_billed', status_code: 404, error: 'http_404', credits: 1, opened: false, links: [] });
    expect(result.content).toBeUndefined();
  });

  it('does not bill a 500', async () => {
    expect(await crawl(task('/broken'))).toMatchObject({ outcome: 'failed', status_code: 500, error: 'http_500', credits: 0 });
  });

  it('refuses a redirect into loopback, unbilled', async () => {
    const result = await crawl(task('/to-loopback'));
    expect(result).toMatchObject({ outcome: 'failed', error: 'blocked_address', credits: 0, opened: false, links: [] });
    expect(site.requests.some((r) => r.path === '/secret')).toBe(false);
  });

  it('refuses a host that is not in the host map and resolves to loopback', async () => {
    const result = await crawl(task('/', { url: `http://localhost:${site.port}/`, scope_domain: 'localhost' }));
    expect(result).toMatchObject({ outcome: 'failed', error: 'blocked_address', credits: 0 });
  });

  it('fetches but does not open a page that redirected to another site', async () => {
    const result = await crawl(task('/to-other-site'));
    expect(result).toMatchObject({
      outcome: 'fetched',
      credits: 1,
      opened: false,
      links: [],
      final_url: site.url('/landing', 'other.test'),
    });
  });

  it('fails a page that does not answer within the page timeout, unbilled', async () => {
    expect(await crawl(task('/hang'))).toMatchObject({ outcome: 'failed', error: 'timeout', credits: 0 });
  });

  it('acknowledges a task delivered twice only once a result for it is stored', async () => {
    const resultsSeq = async () => (await worker.messaging.jsm.streams.info(worker.topology.streams.crawlResults)).state.last_seq;
    const before = await resultsSeq();
    const page = task('/a', { attempt: 3 });
    await worker.dispatch(page, 1);
    await worker.dispatch(page, 2);
    // Both copies are acknowledged only after their result was stored; the coordinator applies one.
    await waitFor(
      async () => {
        const queue = await worker.workQueue();
        return queue.messages === 0 && queue.ackPending === 0;
      },
      { timeoutMs: 10_000, what: 'both copies of the task to be acknowledged' },
    );
    expect((await resultsSeq()) - before).toBeGreaterThanOrEqual(1);
    await worker.resultOf(page);
    const answers = worker.results.filter((r) => r.frontier_id === page.frontier_id);
    expect(answers.length).toBeGreaterThanOrEqual(1);
    expect(answers.every((r) => r.attempt === 3 && r.outcome === answers[0].outcome)).toBe(true);
  });

  it('fetches the pages of a message that carries several, and acknowledges it once every result is stored', async () => {
    const pages = [task('/'), task('/gzipped'), task('/missing')];
    await worker.dispatchTogether(pages);
    const results = await Promise.all(pages.map((page) => worker.resultOf(page)));
    expect(results.map((r) => [r.frontier_id, r.outcome])).toEqual([
      [pages[0].frontier_id, 'fetched'],
      [pages[1].frontier_id, 'fetched'],
      [pages[2].frontier_id, 'failed_billed'],
    ]);
    expect(results[1].links).toEqual([site.url('/from-gzip')]);
    await waitFor(
      async () => {
        const queue = await worker.workQueue();
        return queue.messages === 0 && queue.ackPending === 0;
      },
      { timeoutMs: 10_000, what: 'the message to be acknowledged' },
    );
  });

  it('sends the target no trace context, although the worker traces the page (a tell, and our ids)', async () => {
    const page = task('/a');
    await worker.dispatch(page, 1, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    await worker.resultOf(page);
    const fetched = site.requests.filter((request) => request.path === '/a');
    expect(fetched.length).toBeGreaterThan(0);
    for (const request of fetched) expect(Object.keys(request.headers).filter((name) => /traceparent|tracestate/.test(name))).toEqual([]);
  });

  it('publishes the result in the trace of the task', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const page = task('/a');
    await worker.dispatch(page, 1, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    await worker.resultOf(page);
    expect(worker.resultTraceIds.get(page.frontier_id)).toBe(traceId);
  });
});

/**
 * A worker whose pages may take 30 s but which has 1 s to stop, and a site with a page that answers
 * in 300 ms (`/slow`) and one that never does (`/hang`): once both are requested, the worker stops.
 */
function stoppingWorker(): { worker: WorkerHarness; loadBoth: (send: () => Promise<void>) => Promise<void> } {
  const site = new FixtureSite();
  const worker = new WorkerHarness(site, { PAGE_TIMEOUT_MS: '30000', SHUTDOWN_TIMEOUT_MS: '1000' });
  beforeAll(async () => {
    await site.start();
    await worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await site.stop();
  });
  const loadBoth = async (send: () => Promise<void>) => {
    await send();
    await waitFor(() => ['/slow', '/hang'].every((path) => site.requests.some((r) => r.path === path)), {
      what: 'both pages to be requested',
    });
  };
  return { worker, loadBoth };
}

describe(`${CrawlPageConsumer.name} on shutdown`, () => {
  const { worker, loadBoth } = stoppingWorker();

  it('finishes pages that load within the drain window and hands back the others', async () => {
    const slow = worker.task('/slow');
    const page = worker.task('/hang');
    await loadBoth(async () => {
      await worker.dispatch(slow);
      await worker.dispatch(page);
    });

    const started = Date.now();
    await worker.app!.close();
    expect(Date.now() - started).toBeLessThan(1_000);

    // Handed back: the next worker to pull gets it now, not after the 30 s ack wait.
    const durable = await worker.messaging.js.consumers.get(worker.topology.streams.crawlWork, worker.topology.consumers.fetchWorkers);
    const redelivered = await durable.next({ expires: 3_000 });
    expect(redelivered).not.toBeNull();
    // (Debian's nats-server 2.9 reports a NAK'd redelivery with deliveryCount 1; its consumer counts it.)
    const consumer = await worker.messaging.jsm.consumers.info(worker.topology.streams.crawlWork, worker.topology.consumers.fetchWorkers);
    expect(consumer.num_redelivered).toBe(1);
    expect(redelivered?.json()).toEqual(page);
    redelivered?.ack();
    // The slow page finished during the drain: its result was published before the worker left.
    await worker.resultOf(slow);
    expect(worker.results.map((r) => [r.frontier_id, r.outcome])).toEqual([[slow.frontier_id, 'fetched']]);
  });
});

describe(`${CrawlPageConsumer.name} on shutdown, with several pages to a message`, () => {
  const { worker, loadBoth } = stoppingWorker();

  it('answers the pages that load within the drain window and hands back the others alone, acking the message', async () => {
    const slow = worker.task('/slow');
    const page = worker.task('/hang');
    await loadBoth(() => worker.dispatchTogether([slow, page]));

    await worker.app!.close();

    // The message is gone; the page that did not load waits alone, for the next worker to pull now.
    const durable = await worker.messaging.js.consumers.get(worker.topology.streams.crawlWork, worker.topology.consumers.fetchWorkers);
    const handedBack = await durable.next({ expires: 3_000 });
    expect(handedBack?.json()).toEqual(page);
    handedBack?.ack();
    expect(await durable.next({ expires: 1_000 })).toBeNull();
    await worker.resultOf(slow);
    expect(worker.results.map((r) => [r.frontier_id, r.outcome])).toEqual([[slow.frontier_id, 'fetched']]);
    const handedBackAlone = await worker.app!.get(WorkerMetrics).pagesHandedBackAlone.get();
    expect(handedBackAlone.values.map((v) => v.value)).toEqual([1]);
  });
});
