import { createServer } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { Tier } from '@trawl/billing';
import { FetchOptionsV1, FetchReplyV1, fetchReplyV1, FetchRequestV1, messagingTopology } from '@trawl/contracts';
import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { MessagingConnection, StreamedRpcClient } from '@trawl/messaging';
import { uniqueSuffix, waitFor } from '@trawl/testing';
import { FAKE_SOLVER_HOST, FAKE_SOLVER_KEY, FakeCaptchaSolver, startFakeCaptchaSolver } from '../../../test/fixtures/captcha-solver/server';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../../../test/fixtures/web';
import { CAPTCHA_PROTECTED_TEXT, CAPTCHA_SITEKEYS } from '../../../test/fixtures/web/sites/captcha';
import { CHARSET_TEXTS } from '../../../test/fixtures/web/sites/charset';
import { ECHO_COMPRESSED_TEXT, ECHO_HTML, EchoedRequest } from '../../../test/fixtures/web/sites/echo';
import { CaptchaPass } from '../src/captcha/captcha-pass';
import { CaptchaSolverClient } from '../src/captcha/captcha-solver.client';
import { FetchRequestMetrics } from '../src/fetch-requests/fetch-request.metrics';
import { FetchRequestServer } from '../src/fetch-requests/fetch-request.server';
import { FetchAnswer, FetchRequestService } from '../src/fetch-requests/fetch-request.service';
import { HttpFetchEngine } from '../src/target-fetch/http-fetch-engine';
import { TargetFetcher } from '../src/target-fetch/target-fetcher';
import { PageTransforms } from '../src/fetch-requests/page-transforms';
import { HttpEngine } from '../src/page-fetch/http-engine';
import { NAVIGATION_ACCEPT } from '../src/identity';
import { testIdentities } from '../src/identity/identity.test-support';

const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Transforms are the extraction library's business; these tests only see that the service calls them. */
const markTransforms: PageTransforms = {
  toMarkdown: (html) => `markdown of ${html.length} chars`,
  toPlainText: (html) => `text of ${html.length} chars`,
  applyCssExtractor: (_html, extractor) => ({ names: Object.keys(extractor) }),
  extractOutputs: (_html, names) => ({ outputs: names }),
  applyRecipe: () => ({}),
};

const BASE_OPTIONS: FetchOptionsV1 = { js_render: false, premium_proxy: false, json_response: false, original_status: false };

/**
 * The Fetch API on a worker against real things: the fixture web on loopback (through the egress
 * policy and EGRESS_HOST_MAP), the fake CAPTCHA solver, and NATS for the streamed request/reply.
 */
describe(FetchRequestService.name, () => {
  let web: FixtureWeb;
  let solver: FakeCaptchaSolver;
  let http: HttpEngine;
  let service: FetchRequestService;
  let metrics: FetchRequestMetrics;
  let closedPort: number;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    solver = await startFakeCaptchaSolver();
    const policy = new EgressPolicy({ hostMap: parseHostMap(`${fixtureHostMap()},${FAKE_SOLVER_HOST}=127.0.0.1`) });
    const agent = createEgressAgent(policy);
    http = new HttpEngine({ policy, agent });
    metrics = new FetchRequestMetrics(new Registry());
    const captcha = new CaptchaPass(new CaptchaSolverClient({ policy, agent, pollIntervalMs: 20 }));
    service = new FetchRequestService(
      new TargetFetcher({ engines: { http: new HttpFetchEngine(http) }, identities: testIdentities, captcha }),
      markTransforms,
      { maxBodyBytes: 10 * 1024 * 1024 },
      metrics,
      pino({ level: 'silent' }),
    );
    closedPort = await unusedPort();
  });

  afterAll(async () => {
    await http?.close();
    await web?.close();
    await solver?.close();
  });

  function fetchRequest(url: string, overrides: Partial<FetchRequestV1> = {}, options: Partial<FetchOptionsV1> = {}): FetchRequestV1 {
    return {
      v: 1,
      request_id: `req-${uniqueSuffix()}`,
      tenant_id: TENANT_ID,
      url,
      method: 'GET',
      headers: {},
      options: { ...BASE_OPTIONS, ...options },
      deadline_at: Date.now() + 20_000,
      max_body_bytes: 1024 * 1024,
      ...overrides,
    };
  }

  async function send(request: FetchRequestV1, signal = new AbortController().signal): Promise<FetchAnswer> {
    const answer = await service.handle(request, signal);
    // Every head the worker sends must be one the gateway accepts.
    expect(fetchReplyV1.parse(answer.head)).toEqual(answer.head);
    expect(answer.head.body_bytes).toBe(answer.body.length);
    return answer;
  }

  const json = (answer: FetchAnswer) => JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;

  function expectProblem(answer: FetchAnswer, status: number, code: string, billed: Tier | null): void {
    expect(answer.head).toMatchObject({ status, content_type: 'application/problem+json', billed_tier: billed, error: { code } });
    expect(json(answer)).toEqual({
      type: `https://docs.trawl.dev/errors/${code}`,
      title: expect.any(String),
      status,
      detail: answer.head.error?.detail,
      code,
      instance: `urn:trawl:request:${answer.head.request_id}`,
    });
  }

  describe('a page that answers', () => {
    it('answers the HTML as UTF-8 with Zr- headers, billed at basic', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/html')));
      expect(answer.head).toMatchObject({
        status: 200,
        content_type: 'text/html; charset=utf-8',
        billed_tier: 'basic',
        target_status: 200,
      });
      expect(answer.body.toString('utf8')).toContain(ECHO_HTML.heading);
      expect(answer.head.headers).toMatchObject({
        'Zr-Final-Url': web.url('echo.test', '/html'),
        'Zr-Content-Type': 'text/html; charset=utf-8',
      });
      expect(answer.head.headers).not.toHaveProperty('Zr-Content-Length');
      expect(answer.head.headers).not.toHaveProperty('Zr-Connection');
    });

    it('passes cookies as Zr-Cookies and other target headers prefixed', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/headers')));
      expect(answer.head.headers).toMatchObject({
        'Zr-Cookies': 'session=abc123; theme=dark',
        'Zr-X-Powered-By': 'fixture-echo',
        'Zr-Content-Language': 'en',
      });
      expect(answer.head.headers).not.toHaveProperty('Zr-Set-Cookie');
    });

    it('follows redirects and names the final URL', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/redirect')));
      expect(answer.head.headers['Zr-Final-Url']).toBe(web.url('echo.test', '/html'));
      expect(answer.body.toString('utf8')).toContain(ECHO_HTML.paragraph);
    });

    it.each(['/gzip', '/br'])('undoes the compression of %s', async (path) => {
      const answer = await send(fetchRequest(web.url('echo.test', path)));
      expect(answer.body.toString('utf8')).toContain(ECHO_COMPRESSED_TEXT);
      expect(answer.head.headers).not.toHaveProperty('Zr-Content-Encoding');
    });

    it('decodes a latin-1 page and serves it as UTF-8', async () => {
      const answer = await send(fetchRequest(web.url('charset.test', '/latin1')));
      expect(answer.head.content_type).toBe('text/html; charset=utf-8');
      expect(answer.body.toString('utf8')).toContain(CHARSET_TEXTS.latin1);
    });

    it('answers other content as the target sent it', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/pixel.png')));
      expect(answer.head.content_type).toBe('image/png');
      expect(answer.body.subarray(1, 4).toString('latin1')).toBe('PNG');
    });
  });

  describe('what is sent to the target', () => {
    it("sends the request's identity: its Chrome's headers in Chrome's order, no client hints over http", async () => {
      const echoed = json(await send(fetchRequest(web.url('echo.test', '/echo')))) as unknown as EchoedRequest;
      const identity = testIdentities.identityFor({ tenantId: TENANT_ID, domain: 'echo.test', device: 'desktop' });
      expect(echoed.method).toBe('GET');
      expect(echoed.raw_headers).toEqual([
        ['host', expect.stringMatching(/^echo\.test:\d+$/)],
        ['connection', 'keep-alive'],
        ['Upgrade-Insecure-Requests', '1'],
        ['User-Agent', identity.userAgent],
        ['Accept', NAVIGATION_ACCEPT],
        ['Accept-Encoding', 'gzip, deflate'],
        ['Accept-Language', 'en-US,en;q=0.9'],
      ]);
    });

    it('presents one identity per session, whatever the site, and another for another session', async () => {
      const agentOf = async (url: string, session: number) =>
        (json(await send(fetchRequest(url, {}, { session_id: session }))) as unknown as EchoedRequest).headers['user-agent'];
      const first = await agentOf(web.url('echo.test', '/echo'), 1);
      expect(await agentOf(web.url('echo.test', '/echo/other'), 1)).toBe(first);
      expect(first).toBe(testIdentities.identityFor({ tenantId: TENANT_ID, sessionId: 1, domain: 'any', device: 'desktop' }).userAgent);
      const sessions = await Promise.all([2, 3, 4, 5].map((session) => agentOf(web.url('echo.test', '/echo'), session)));
      expect(new Set([first, ...sessions]).size).toBeGreaterThan(1);
    });

    it('sends a phone’s user agent for device=mobile', async () => {
      const echoed = json(await send(fetchRequest(web.url('echo.test', '/echo'), {}, { device: 'mobile' }))) as unknown as EchoedRequest;
      expect(echoed.headers['user-agent']).toMatch(/Android .* Chrome\/156\.0\.0\.0 Mobile Safari\//);
      expect(echoed.headers).not.toHaveProperty('sec-ch-ua-mobile');
    });

    it('forwards a POST body, its content type and the caller’s headers over the browser’s', async () => {
      const request = fetchRequest(web.url('echo.test', '/echo'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'my-bot/1.0', 'X-Custom': 'yes', Connection: 'close' },
        body_base64: Buffer.from('{"q":"bread"}').toString('base64'),
      });
      const echoed = json(await send(request)) as unknown as EchoedRequest;
      expect(echoed).toMatchObject({ method: 'POST', body: '{"q":"bread"}' });
      expect(echoed.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'my-bot/1.0', 'x-custom': 'yes' });
      expect(echoed.headers.connection).not.toBe('close');
    });

    it('sends a PUT body without a content type as a form', async () => {
      const request = fetchRequest(web.url('echo.test', '/echo'), {
        method: 'PUT',
        body_base64: Buffer.from('a=1&b=2').toString('base64'),
      });
      const echoed = json(await send(request)) as unknown as EchoedRequest;
      expect(echoed).toMatchObject({ method: 'PUT', body: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    });
  });

  describe('output options', () => {
    it.each<[Partial<FetchOptionsV1>, string, string]>([
      [{ response_type: 'markdown' }, 'text/markdown; charset=utf-8', 'markdown of'],
      [{ response_type: 'plaintext' }, 'text/plain; charset=utf-8', 'text of'],
      [{ css_extractor: { title: 'h1' } }, 'application/json; charset=utf-8', '{"names":["title"]}'],
      [{ outputs: ['emails'] }, 'application/json; charset=utf-8', '{"outputs":["emails"]}'],
    ])('%j answers %s', async (options, contentType, start) => {
      const answer = await send(fetchRequest(web.url('echo.test', '/html'), {}, options));
      expect(answer.head).toMatchObject({ status: 200, content_type: contentType, billed_tier: 'basic' });
      expect(answer.body.toString('utf8').startsWith(start)).toBe(true);
    });

    it('answers json_response as {html, xhr}', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/html'), {}, { json_response: true }));
      expect(json(answer)).toEqual({ html: expect.stringContaining(ECHO_HTML.heading), xhr: [] });
    });
  });

  describe('target statuses', () => {
    it('answers a 404 as RESP002, billed, with the target’s headers', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/status/404')));
      expectProblem(answer, 404, 'RESP002', Tier.Basic);
      expect(answer.head.target_status).toBe(404);
      expect(answer.head.headers['Zr-Final-Url']).toBe(web.url('echo.test', '/status/404'));
    });

    it('answers a 410 as RESP002, billed', async () => {
      expectProblem(await send(fetchRequest(web.url('echo.test', '/status/410'))), 404, 'RESP002', Tier.Basic);
    });

    it('answers a 500 as RESP001, free', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/status/500')));
      expectProblem(answer, 422, 'RESP001', null);
      expect(answer.head.target_status).toBe(500);
    });

    it('passes the 500 and its body through with original_status, billed', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/status/500'), {}, { original_status: true }));
      expect(answer.head).toMatchObject({ status: 500, billed_tier: 'basic', content_type: 'text/html; charset=utf-8' });
      expect(answer.head.error).toBeUndefined();
      expect(answer.body.toString('utf8')).toContain('This page answers 500.');
    });

    it('passes a status listed in allowed_status_codes through, billed', async () => {
      const answer = await send(fetchRequest(web.url('echo.test', '/status/503'), {}, { allowed_status_codes: [503] }));
      expect(answer.head).toMatchObject({ status: 503, billed_tier: 'basic' });
      expect(answer.body.toString('utf8')).toContain('This page answers 503.');
    });
  });

  describe('failures', () => {
    it('answers RESP005 for a page over max_body_bytes', async () => {
      expectProblem(await send(fetchRequest(web.url('echo.test', '/big?kib=200'), { max_body_bytes: 100 * 1024 })), 413, 'RESP005', null);
    });

    it('counts the whole JSON of json_response against max_body_bytes', async () => {
      // The page fits (64 KiB) but {html, xhr} around it, escaped, does not fit in the same bytes.
      const page = await send(fetchRequest(web.url('echo.test', '/big?kib=64'), { max_body_bytes: 64 * 1024 + 100 }));
      expect(page.head.status).toBe(200);
      const wrapped = await send(
        fetchRequest(web.url('echo.test', '/big?kib=64'), { max_body_bytes: 64 * 1024 + 100 }, { json_response: true }),
      );
      expectProblem(wrapped, 413, 'RESP005', null);
    });

    it('answers RESP007, billed, for a domain that does not resolve', async () => {
      expectProblem(await send(fetchRequest('http://no-such-host.invalid/')), 404, 'RESP007', Tier.Basic);
    });

    it('answers RESP001, free, for an address the egress policy refuses, without naming it', async () => {
      const answer = await send(fetchRequest(`http://127.0.0.1:${web.port}/`));
      expectProblem(answer, 422, 'RESP001', null);
      expect(web.hits('127.0.0.1')).toBe(0);
    });

    it('answers RESP001 for a redirect to a refused address', async () => {
      expectProblem(await send(fetchRequest(web.url('redirect.test', '/to-loopback'))), 422, 'RESP001', null);
      expect(web.hits('127.0.0.1', '/secret')).toBe(0);
    });

    it('answers RESP001 when the connection is refused', async () => {
      expectProblem(await send(fetchRequest(`http://echo.test:${closedPort}/`)), 422, 'RESP001', null);
    });

    it('answers RESP008 for an untrusted certificate', async () => {
      expectProblem(await send(fetchRequest(web.httpsUrl('badtls.test', '/echo'))), 400, 'RESP008', null);
    });

    it('answers CTX0002 just before the deadline when the target hangs', async () => {
      const started = Date.now();
      const answer = await send(fetchRequest(web.url('echo.test', '/hang'), { deadline_at: started + 1_500 }));
      expectProblem(answer, 504, 'CTX0002', null);
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('answers CTX0001, free, as soon as the caller cancels', async () => {
      web.resetHits();
      const caller = new AbortController();
      const answering = send(fetchRequest(web.url('echo.test', '/hang')), caller.signal);
      await waitFor(() => web.hits('echo.test', '/hang') === 1, { what: 'the target to be asked' });
      caller.abort(new Error('client went away'));
      expectProblem(await answering, 500, 'CTX0001', null);
    });
  });

  describe('CAPTCHA', () => {
    const solverConfig = () => ({ endpoint: solver.endpoint, key: FAKE_SOLVER_KEY });

    it.each(['/recaptcha', '/hcaptcha', '/turnstile'])(
      'solves %s with the tenant’s solver and answers the page behind it',
      async (path) => {
        const answer = await send(fetchRequest(web.url('captcha.test', path), { captcha_solver: solverConfig() }));
        expect(answer.head).toMatchObject({ status: 200, billed_tier: 'basic' });
        expect(answer.body.toString('utf8')).toContain(CAPTCHA_PROTECTED_TEXT);
        expect(solver.tasks().at(-1)).toMatchObject({ pageurl: web.url('captcha.test', path) });
      },
    );

    it('answers REQS006 when the solver refuses the key', async () => {
      const answer = await send(
        fetchRequest(web.url('captcha.test', '/'), { captcha_solver: { endpoint: solver.endpoint, key: 'wrong-key' } }),
      );
      expectProblem(answer, 400, 'REQS006', null);
      expect(answer.body.toString('utf8')).not.toContain('wrong-key');
    });

    it('answers RESP006 when the solver cannot solve it', async () => {
      const answer = await send(fetchRequest(web.url('captcha.test', '/unsolvable'), { captcha_solver: solverConfig() }));
      expectProblem(answer, 424, 'RESP006', null);
      expect(solver.tasks().at(-1)).toMatchObject({ sitekey: CAPTCHA_SITEKEYS.unsolvable });
    });

    it('answers RESP006 when the solver is unreachable', async () => {
      const answer = await send(
        fetchRequest(web.url('captcha.test', '/'), {
          captcha_solver: { endpoint: `http://${FAKE_SOLVER_HOST}:${closedPort}`, key: FAKE_SOLVER_KEY },
        }),
      );
      expectProblem(answer, 424, 'RESP006', null);
    });

    it('answers REQS002, free, for a challenge it cannot pass without a solver', async () => {
      const before = solver.requestCount();
      const answer = await send(fetchRequest(web.url('captcha.test', '/')));
      expectProblem(answer, 400, 'REQS002', null);
      expect(solver.requestCount()).toBe(before);
    });
  });

  it('counts answers by code and tier', async () => {
    await send(fetchRequest(web.url('echo.test', '/status/404')));
    const counts = await metrics.requests.get();
    expect(counts.values).toContainEqual(expect.objectContaining({ labels: { code: 'RESP002', tier: 'basic' } }));
  });

  describe('over NATS', () => {
    let messaging: MessagingConnection;
    let server: FetchRequestServer;

    beforeAll(async () => {
      messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'fetch-request-int' });
      server = new FetchRequestServer(
        service,
        messaging,
        { topology: messagingTopology(`fetchint${uniqueSuffix()}`), capacity: 4, drainMs: 1_000, stopDeadlineMs: 2_000 },
        pino({ level: 'silent' }),
      );
      server.start();
    });

    afterAll(async () => {
      await server?.stop();
      await messaging?.close();
    });

    it('answers a FetchRequestV1 with a FetchReplyV1 head and the body', async () => {
      const client = new StreamedRpcClient(messaging.nc);
      const request = fetchRequest(web.url('echo.test', '/html'));
      const topology = (server as unknown as { settings: { topology: ReturnType<typeof messagingTopology> } }).settings.topology;
      const reply = await client.call(topology.subjects.fetchRequest, Buffer.from(JSON.stringify(request)));
      const head = fetchReplyV1.parse(JSON.parse(Buffer.from(reply.head).toString('utf8'))) as FetchReplyV1;
      expect(head).toMatchObject({ request_id: request.request_id, status: 200, billed_tier: 'basic', body_bytes: reply.body.length });
      expect(reply.body.toString('utf8')).toContain(ECHO_HTML.heading);
    });

    it('answers ERR0001 to a payload that is not a FetchRequestV1', async () => {
      const client = new StreamedRpcClient(messaging.nc);
      const topology = (server as unknown as { settings: { topology: ReturnType<typeof messagingTopology> } }).settings.topology;
      const reply = await client.call(topology.subjects.fetchRequest, Buffer.from('{"v":1,"request_id":"r-1"}'));
      expect(JSON.parse(Buffer.from(reply.head).toString('utf8'))).toMatchObject({
        request_id: 'r-1',
        status: 500,
        error: { code: 'ERR0001' },
      });
    });

    it('on stop, lets requests in flight finish, cancels those still running after drainMs with ERR0001, and takes no more', async () => {
      const topology = messagingTopology(`fetchstop${uniqueSuffix()}`);
      const stopping = new FetchRequestServer(
        service,
        messaging,
        { topology, capacity: 4, drainMs: 500, stopDeadlineMs: 3_000 },
        pino({ level: 'silent' }),
      );
      stopping.start();
      const client = new StreamedRpcClient(messaging.nc);
      const call = (url: string) => client.call(topology.subjects.fetchRequest, Buffer.from(JSON.stringify(fetchRequest(url))));
      web.resetHits();
      const hanging = call(web.url('echo.test', '/hang'));
      const slow = call(web.url('slow.test', '/slow/1?ms=200'));
      await waitFor(() => web.hits('echo.test', '/hang') === 1 && web.hits('slow.test', '/slow/1?ms=200') === 1, {
        what: 'both requests to reach the targets',
      });
      expect(stopping.inFlight()).toBe(2);
      const started = Date.now();
      const stopped = stopping.stop();
      const finished = await slow;
      expect(JSON.parse(Buffer.from(finished.head).toString('utf8'))).toMatchObject({ status: 200, billed_tier: 'basic' });
      const reply = await hanging;
      expect(JSON.parse(Buffer.from(reply.head).toString('utf8'))).toMatchObject({
        status: 500,
        billed_tier: null,
        error: { code: 'ERR0001' },
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      await stopped;
      expect(stopping.inFlight()).toBe(0);
      await expect(call(web.url('echo.test', '/html'))).rejects.toMatchObject({ code: 'rpc_no_responders' });
      await stopping.stop();
    });
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
