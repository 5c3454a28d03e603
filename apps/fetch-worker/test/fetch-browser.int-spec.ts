import pino from 'pino';
import { Registry } from 'prom-client';
import { FetchOptionsV1, fetchReplyV1, FetchRequestV1 } from '@trawl/contracts';
import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { deleteStreams, MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix } from '@trawl/testing';
import { FAKE_SOLVER_HOST, FAKE_SOLVER_KEY, FakeCaptchaSolver, startFakeCaptchaSolver } from '../../../test/fixtures/captcha-solver/server';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../../../test/fixtures/web';
import { CAPTCHA_PROTECTED_TEXT } from '../../../test/fixtures/web/sites/captcha';
import { EchoedRequest } from '../../../test/fixtures/web/sites/echo';
import { STEALTH_TEXTS } from '../../../test/fixtures/web/sites/stealth';
import { BrowserPool } from '../src/browser';
import { CaptchaPass } from '../src/captcha/captcha-pass';
import { CaptchaSolverClient } from '../src/captcha/captcha-solver.client';
import { EgressProxy } from '../src/egress-proxy';
import { BrowserFetchEngine } from '../src/target-fetch/browser-fetch-engine';
import { extractionTransforms } from '../src/fetch-requests/extraction-transforms';
import { FetchRequestMetrics } from '../src/fetch-requests/fetch-request.metrics';
import { FetchAnswer, FetchRequestService } from '../src/fetch-requests/fetch-request.service';
import { HttpFetchEngine } from '../src/target-fetch/http-fetch-engine';
import { TargetFetcher } from '../src/target-fetch/target-fetcher';
import { HttpEngine } from '../src/page-fetch/http-engine';
import { AdaptiveFetcher, NatsDomainTierMemory } from '../src/stealth';
import { testIdentities } from '../src/identity/identity.test-support';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';
const RENDER: FetchOptionsV1 = { js_render: true, premium_proxy: false, json_response: false, original_status: false };

/**
 * The rendering tiers of the Fetch API with real Chromium (Debian's), through the worker's egress
 * proxy, against the fixture web.
 */
describe('Fetch API rendering tiers (browser engine)', () => {
  let web: FixtureWeb;
  let solver: FakeCaptchaSolver;
  let messaging: MessagingConnection;
  let http: HttpEngine;
  let proxy: EgressProxy;
  let pool: BrowserPool;
  let service: FetchRequestService;
  const bucket = `fetchbrowser${uniqueSuffix()}_tiers`;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    solver = await startFakeCaptchaSolver();
    messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'fetch-browser-int' });
    const policy = new EgressPolicy({ hostMap: parseHostMap(`${fixtureHostMap()},${FAKE_SOLVER_HOST}=127.0.0.1`) });
    const agent = createEgressAgent(policy);
    http = new HttpEngine({ policy, agent });
    proxy = new EgressProxy({ policy, connectTimeoutMs: 2_000 });
    pool = new BrowserPool({ proxy, browsers: 1, pagesPerBrowser: 4 });
    const stealth = new AdaptiveFetcher({ memory: await NatsDomainTierMemory.open(messaging.js, bucket, 60_000) });
    service = new FetchRequestService(
      new TargetFetcher({
        engines: { http: new HttpFetchEngine(http), browser: new BrowserFetchEngine(pool, { loadGraceMs: 3_000, stepTimeoutMs: 3_000 }) },
        identities: testIdentities,
        captcha: new CaptchaPass(new CaptchaSolverClient({ policy, agent, pollIntervalMs: 20 })),
        stealth,
      }),
      extractionTransforms,
      { maxBodyBytes: 5 * 1024 * 1024 },
      new FetchRequestMetrics(new Registry()),
      pino({ level: 'silent' }),
    );
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    await http?.close();
    await web?.close();
    await solver?.close();
    if (messaging) {
      await deleteStreams(messaging.jsm, [`KV_${bucket}`]);
      await messaging.close();
    }
  }, 60_000);

  function fetchRequest(url: string, options: Partial<FetchOptionsV1> = {}, extra: Partial<FetchRequestV1> = {}): FetchRequestV1 {
    return {
      v: 1,
      request_id: `req-${uniqueSuffix()}`,
      tenant_id: TENANT_ID,
      url,
      method: 'GET',
      headers: {},
      options: { ...RENDER, ...options },
      deadline_at: Date.now() + 30_000,
      max_body_bytes: 5 * 1024 * 1024,
      ...extra,
    };
  }

  async function send(request: FetchRequestV1): Promise<FetchAnswer> {
    const answer = await service.handle(request, new AbortController().signal);
    expect(fetchReplyV1.parse(answer.head)).toEqual(answer.head);
    return answer;
  }
  const text = (answer: FetchAnswer) => answer.body.toString('utf8');

  it('answers the DOM after scripts ran, billed js_render, with the cookies in Zr-Cookies', async () => {
    const page = await send(fetchRequest(web.url('js.test', '/')));
    expect(page.head).toMatchObject({ status: 200, billed_tier: 'js_render', content_type: 'text/html; charset=utf-8' });
    expect(text(page)).toContain('Rendered by JavaScript');
    const cookie = await send(fetchRequest(web.url('js.test', '/redirect')));
    expect(cookie.head.headers).toMatchObject({
      'Zr-Final-Url': web.url('js.test', '/cookie'),
      'Zr-Cookies': expect.stringContaining('session=abc123'),
    });
  }, 60_000);

  it('sends a POST body and the caller’s headers with the first navigation', async () => {
    const answer = await send(
      fetchRequest(
        web.url('echo.test', '/echo'),
        {},
        { method: 'POST', headers: { 'x-caller': 'kept' }, body_base64: Buffer.from('a=1').toString('base64') },
      ),
    );
    // A JSON document keeps its bytes in the browser too.
    const echoed = JSON.parse(text(answer)) as EchoedRequest;
    expect(echoed).toMatchObject({
      method: 'POST',
      body: 'a=1',
      headers: { 'x-caller': 'kept', 'content-type': 'application/x-www-form-urlencoded' },
    });
  }, 60_000);

  it('answers json_response with the XHR calls and the instructions report', async () => {
    const answer = await send(
      fetchRequest(web.url('js.test', '/xhr'), { json_response: true, js_instructions: [{ wait: 300 }, { click: '#does-not-exist' }] }),
    );
    const json = JSON.parse(text(answer)) as {
      html: string;
      xhr: { url: string }[];
      js_instructions_report: { instructions_executed: number; instructions_failed: number };
    };
    expect(json.xhr.map((call) => new URL(call.url).pathname)).toEqual(expect.arrayContaining(['/api/items', '/api/echo']));
    expect(json.js_instructions_report).toMatchObject({ instructions_executed: 2, instructions_failed: 1 });
  }, 60_000);

  it('answers a screenshot as a PNG and response_type=pdf as a PDF', async () => {
    const shot = await send(fetchRequest(web.url('js.test', '/'), { screenshot: { fullpage: false, format: 'png' } }));
    expect(shot.head.content_type).toBe('image/png');
    expect(shot.body.subarray(1, 4).toString('latin1')).toBe('PNG');
    const pdf = await send(fetchRequest(web.url('js.test', '/'), { response_type: 'pdf' }));
    expect(pdf.head.content_type).toBe('application/pdf');
    expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 60_000);

  it('answers RESP008 for an untrusted certificate and RESP007, billed, for a name that does not resolve', async () => {
    expect((await send(fetchRequest(web.httpsUrl('badtls.test', '/echo')))).head).toMatchObject({
      status: 400,
      error: { code: 'RESP008' },
    });
    expect((await send(fetchRequest('http://no-such-host.invalid/'))).head).toMatchObject({
      status: 404,
      billed_tier: 'js_render',
      error: { code: 'RESP007' },
    });
  }, 60_000);

  it('with mode=auto, escalates a page that is empty without JavaScript to js_render and bills only that', async () => {
    const answer = await send(fetchRequest(web.url('needs-js.test', '/'), { js_render: false, mode: 'auto' }));
    expect(answer.head).toMatchObject({ status: 200, billed_tier: 'js_render' });
    expect(text(answer)).toContain(STEALTH_TEXTS.needsJs);
  }, 60_000);

  it('solves a CAPTCHA in the browser by posting the token the way the form would', async () => {
    const answer = await send(
      fetchRequest(web.url('captcha.test', '/turnstile'), {}, { captcha_solver: { endpoint: solver.endpoint, key: FAKE_SOLVER_KEY } }),
    );
    expect(answer.head).toMatchObject({ status: 200, billed_tier: 'js_render' });
    expect(text(answer)).toContain(CAPTCHA_PROTECTED_TEXT);
  }, 60_000);
});
