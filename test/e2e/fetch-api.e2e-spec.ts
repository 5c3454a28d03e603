import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { FAKE_SOLVER_HOST, FAKE_SOLVER_KEY, FakeCaptchaSolver, startFakeCaptchaSolver } from '../fixtures/captcha-solver/server';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { CAPTCHA_PROTECTED_TEXT } from '../fixtures/web/sites/captcha';
import { CHARSET_TEXTS } from '../fixtures/web/sites/charset';
import { ECHO_COMPRESSED_TEXT, ECHO_HTML, EchoedRequest } from '../fixtures/web/sites/echo';
import { OUTPUTS_PAGE } from '../fixtures/web/sites/outputs';
import { Platform } from '../support/platform';
import { checkedFetch } from '../support/api-document';
import { waitFor } from '@trawl/testing';
import { OUTPUT_NAMES } from '@trawl/contracts';

/** Largest answer in this suite (the gateway's FETCH_MAX_BODY_BYTES), so RESP005 needs no huge page. */
const MAX_BODY_BYTES = 256 * 1024;
/** The gateway's FETCH_DEADLINE_MS here: CTX0002 in seconds, not minutes. */
const DEADLINE_MS = 4_000;

interface FetchAnswer {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
  json<T = Record<string, unknown>>(): T;
}

/**
 * The Fetch API end to end, worker side: the gateway and a fetch worker as processes, the fixture
 * web and the fake CAPTCHA solver on loopback, and only the public API (plus the credit ledger,
 * which has no endpoint).
 */
describe('Fetch API (e2e)', () => {
  let web: FixtureWeb;
  let solver: FakeCaptchaSolver;
  let platform: Platform;
  let apiKey: string;
  let tenantId: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    solver = await startFakeCaptchaSolver();
    platform = new Platform('fetch-api', {
      hostMap: `${fixtureHostMap()},${FAKE_SOLVER_HOST}=127.0.0.1`,
      services: ['gateway', 'fetch-worker'],
      env: {
        // Proxy mode has suites of its own; its fixed port would clash with suites running beside.
        // Tenants' CAPTCHA solver keys are sealed with it.
        gateway: {
          SECRETS_KEY: randomBytes(32).toString('base64'),
          FETCH_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
          FETCH_DEADLINE_MS: String(DEADLINE_MS),
          PROXY_MODE_ENABLED: 'false',
        },
        'fetch-worker': { CAPTCHA_POLL_INTERVAL_MS: '50' },
      },
    });
    await platform.start();
    const tenant = await platform.createTenant();
    apiKey = tenant.api_key;
    tenantId = tenant.tenant_id;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
    await solver?.close();
  }, 60_000);

  /** One Fetch API call: `params` become the query (with `apikey`), as the SDKs send them. */
  async function fetchApi(params: Record<string, string>, init: RequestInit = {}, key = apiKey): Promise<FetchAnswer> {
    const query = new URLSearchParams({ apikey: key, ...params });
    const res = await checkedFetch(`${platform.gatewayUrl}/v1/?${query.toString()}`, init);
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    return { status: res.status, headers: res.headers, text, bytes, json: <T>() => JSON.parse(text) as T };
  }

  function expectProblem(answer: FetchAnswer, status: number, code: string): void {
    expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({
      status,
      type: expect.stringMatching(/^application\/problem\+json/),
    });
    expect(answer.json()).toMatchObject({
      type: expect.stringContaining(code),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code,
      instance: expect.any(String),
    });
  }

  function credits(answer: FetchAnswer): number {
    return Number(answer.headers.get('x-request-credits'));
  }

  describe('a basic fetch', () => {
    it('answers the page with Zr- headers, usage headers and 1 credit', async () => {
      const answer = await fetchApi({ url: web.url('echo.test', '/headers') });
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('Headers and cookies');
      expect(answer.headers.get('zr-final-url')).toBe(web.url('echo.test', '/headers'));
      expect(answer.headers.get('zr-content-type')).toBe('text/html; charset=utf-8');
      expect(answer.headers.get('zr-cookies')).toBe('session=abc123; theme=dark');
      expect(answer.headers.get('zr-x-powered-by')).toBe('fixture-echo');
      expect(answer.headers.get('concurrency-limit')).toMatch(/^\d+$/);
      expect(answer.headers.get('concurrency-remaining')).toMatch(/^\d+$/);
      expect(answer.headers.get('x-request-cost')).toEqual(expect.any(String));
      expect(credits(answer)).toBe(1);
    });

    it('undoes compression and serves other charsets as UTF-8', async () => {
      expect((await fetchApi({ url: web.url('echo.test', '/br') })).text).toContain(ECHO_COMPRESSED_TEXT);
      expect((await fetchApi({ url: web.url('echo.test', '/gzip') })).text).toContain(ECHO_COMPRESSED_TEXT);
      const latin1 = await fetchApi({ url: web.url('charset.test', '/latin1') });
      expect(latin1.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(latin1.text).toContain(CHARSET_TEXTS.latin1);
    });

    it('follows redirects and names the final URL', async () => {
      const answer = await fetchApi({ url: web.url('echo.test', '/redirect') });
      expect(answer.headers.get('zr-final-url')).toBe(web.url('echo.test', '/html'));
    });
  });

  describe('what reaches the target', () => {
    it('forwards a POST body and its content type', async () => {
      const answer = await fetchApi(
        { url: web.url('echo.test', '/echo') },
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":"bread"}' },
      );
      expect(answer.json<EchoedRequest>()).toMatchObject({
        method: 'POST',
        body: '{"q":"bread"}',
        headers: { 'content-type': 'application/json' },
      });
    });

    it('forwards a PUT body, as a form when it has no type', async () => {
      const answer = await fetchApi({ url: web.url('echo.test', '/echo') }, { method: 'PUT', body: Buffer.from('a=1&b=2') });
      expect(answer.json<EchoedRequest>()).toMatchObject({
        method: 'PUT',
        body: 'a=1&b=2',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    });

    it('sends browser headers, and the caller’s own only with custom_headers=true', async () => {
      const headers = { 'x-custom': 'yes', 'user-agent': 'my-bot/1.0' };
      const without = (await fetchApi({ url: web.url('echo.test', '/echo') }, { headers })).json<EchoedRequest>();
      expect(without.headers['x-custom']).toBeUndefined();
      expect(without.headers['user-agent']).toMatch(/Chrome\/\d+/);
      // Chrome sends client hints only to secure origins; the fixture web is plain HTTP.
      expect(without.headers['sec-ch-ua']).toBeUndefined();
      expect(without.headers['accept-language']).toBe('en-US,en;q=0.9');
      const withCustom = (
        await fetchApi({ url: web.url('echo.test', '/echo'), custom_headers: 'true' }, { headers })
      ).json<EchoedRequest>();
      expect(withCustom.headers).toMatchObject({ 'x-custom': 'yes', 'user-agent': 'my-bot/1.0' });
      expect(withCustom.headers['x-api-key']).toBeUndefined();
    });
  });

  describe('outputs', () => {
    it('answers markdown and plain text', async () => {
      const markdown = await fetchApi({ url: web.url('echo.test', '/html'), response_type: 'markdown' });
      expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/);
      expect(markdown.text).toContain(`# ${ECHO_HTML.heading}`);
      const plain = await fetchApi({ url: web.url('echo.test', '/html'), response_type: 'plaintext' });
      expect(plain.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(plain.text).toContain(ECHO_HTML.paragraph);
      expect(plain.text).not.toContain('<');
    });

    it('answers css_extractor as JSON, attributes included', async () => {
      const answer = await fetchApi({
        url: web.url('outputs.test', '/'),
        css_extractor: JSON.stringify({ names: '.product .name', more: 'a.more @href' }),
      });
      expect(answer.status).toBe(200);
      expect(answer.json()).toMatchObject({ names: [...OUTPUTS_PAGE.productNames] });
      expect(JSON.stringify(answer.json().more)).toContain(OUTPUTS_PAGE.moreHref);
    });

    it('answers outputs as JSON keyed by output name', async () => {
      const answer = await fetchApi({ url: web.url('outputs.test', '/'), outputs: 'emails,phone_numbers,headings,tables' });
      expect(answer.status).toBe(200);
      const outputs = answer.json();
      expect(Object.keys(outputs).sort()).toEqual(['emails', 'headings', 'phone_numbers', 'tables']);
      expect(outputs.emails).toEqual(expect.arrayContaining([...OUTPUTS_PAGE.emails]));
      expect(JSON.stringify(outputs.tables)).toContain('Teapot');
    });

    it('answers every output with outputs=*, each found on the page', async () => {
      const answer = await fetchApi({ url: web.url('outputs.test', '/'), outputs: '*' });
      expect(answer.status).toBe(200);
      const outputs = answer.json();
      expect(Object.keys(outputs).sort()).toEqual([...OUTPUT_NAMES].sort());
      const found = (name: string) => JSON.stringify(outputs[name]);
      // Numbers come back in E.164 form.
      expect(outputs.phone_numbers).toEqual(expect.arrayContaining(OUTPUTS_PAGE.phoneNumbers.map((n) => n.replace(/ /g, ''))));
      expect(found('headings')).toContain(OUTPUTS_PAGE.headings.h2[1]);
      for (const image of OUTPUTS_PAGE.images) expect(found('images')).toContain(web.url('outputs.test', image));
      expect(found('audios')).toContain(web.url('outputs.test', OUTPUTS_PAGE.audios[0]));
      expect(found('videos')).toContain(web.url('outputs.test', OUTPUTS_PAGE.videos[0]));
      expect(found('links')).toContain(web.url('outputs.test', OUTPUTS_PAGE.moreHref));
      for (const item of OUTPUTS_PAGE.menu) expect(found('menus')).toContain(item);
      for (const tag of OUTPUTS_PAGE.hashtags) expect(found('hashtags')).toContain(tag);
      expect(found('metadata')).toContain(OUTPUTS_PAGE.description);
      expect(found('favicon')).toContain(web.url('outputs.test', OUTPUTS_PAGE.favicon));
      expect(found('tables')).toContain(OUTPUTS_PAGE.table.rows[1][1]);
    });

    it('answers json_response as {html, xhr}', async () => {
      const answer = await fetchApi({ url: web.url('echo.test', '/html'), json_response: 'true' });
      expect(answer.json()).toMatchObject({ html: expect.stringContaining(ECHO_HTML.heading), xhr: [] });
    });

    it('answers RESP004 for a css_extractor selector that cannot be applied', async () => {
      expectProblem(await fetchApi({ url: web.url('outputs.test', '/'), css_extractor: JSON.stringify({ bad: 'a[[' }) }), 400, 'RESP004');
    });
  });

  describe('target statuses and errors', () => {
    it('answers a target 404 with RESP002, billed', async () => {
      const answer = await fetchApi({ url: web.url('echo.test', '/status/404') });
      expectProblem(answer, 404, 'RESP002');
      expect(credits(answer)).toBe(1);
    });

    it('answers a target 500 with RESP001, free; with original_status or allowed_status_codes as the target did, billed', async () => {
      const plain = await fetchApi({ url: web.url('echo.test', '/status/500') });
      expectProblem(plain, 422, 'RESP001');
      expect(credits(plain)).toBe(0);
      const original = await fetchApi({ url: web.url('echo.test', '/status/500'), original_status: 'true' });
      expect(original.status).toBe(500);
      expect(original.text).toContain('This page answers 500.');
      expect(credits(original)).toBe(1);
      const allowed = await fetchApi({ url: web.url('echo.test', '/status/503'), allowed_status_codes: '503,429' });
      expect(allowed.status).toBe(503);
      expect(credits(allowed)).toBe(1);
    });

    it('answers RESP005 for a page over the maximum size', async () => {
      const answer = await fetchApi({ url: web.url('echo.test', `/big?kib=${(MAX_BODY_BYTES / 1024) * 2}`) });
      expectProblem(answer, 413, 'RESP005');
      expect(credits(answer)).toBe(0);
    });

    it('answers RESP007, billed, for a domain that does not resolve', async () => {
      const answer = await fetchApi({ url: 'http://no-such-host.invalid/' });
      expectProblem(answer, 404, 'RESP007');
      expect(credits(answer)).toBe(1);
    });

    it('answers RESP001, free, for an address the egress policy refuses', async () => {
      const answer = await fetchApi({ url: web.url('redirect.test', '/to-loopback') });
      expectProblem(answer, 422, 'RESP001');
      expect(web.hits('127.0.0.1', '/secret')).toBe(0);
    });

    it('answers RESP008 for a certificate no one trusts', async () => {
      expectProblem(await fetchApi({ url: web.httpsUrl('badtls.test', '/echo') }), 400, 'RESP008');
    });

    it('answers CTX0002 at the deadline when the target hangs, free', async () => {
      const started = Date.now();
      const answer = await fetchApi({ url: web.url('echo.test', '/hang') });
      expectProblem(answer, 504, 'CTX0002');
      expect(credits(answer)).toBe(0);
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS + 3_000);
    }, 20_000);
  });

  describe('client cancellation (CTX0001)', () => {
    async function inUse(): Promise<number> {
      const res = await checkedFetch(`${platform.gatewayUrl}/v1/subscriptions/self/details`, { headers: { 'x-api-key': apiKey } });
      return ((await res.json()) as { concurrency_in_use: number }).concurrency_in_use;
    }

    it('holds the slot while the worker works, frees it as soon as the worker stopped, and bills nothing', async () => {
      const db = new Client({ connectionString: platform.databaseUrl });
      await db.connect();
      try {
        const ledger = async () =>
          (await db.query(`SELECT count(*)::int AS n FROM credit_ledger WHERE tenant_id = $1`, [tenantId])).rows[0].n as number;
        const rowsBefore = await ledger();
        const hitsBefore = web.hits('echo.test', '/hang');
        const client = new AbortController();
        const abandoned = fetchApi({ url: web.url('echo.test', '/hang') }, { signal: client.signal }).catch(() => undefined);
        await waitFor(() => web.hits('echo.test', '/hang') > hitsBefore, { what: 'the worker to ask the target' });
        expect(await inUse()).toBe(1);
        const abortedAt = Date.now();
        client.abort();
        await abandoned;
        await waitFor(async () => (await inUse()) === 0, { timeoutMs: DEADLINE_MS, intervalMs: 50, what: 'the slot to be freed' });
        // Freed by the worker stopping on the cancel, not by the request running into its deadline.
        expect(Date.now() - abortedAt).toBeLessThan(DEADLINE_MS - 1_000);
        // Charges reach the ledger in batches (FETCH_LEDGER_FLUSH_MS), in the order they were made:
        // once a later billed request's row is there, a row for the abandoned one would be too.
        expect(credits(await fetchApi({ url: web.url('echo.test', '/html') }))).toBe(1);
        await waitFor(async () => (await ledger()) > rowsBefore, { what: 'the marker request to be billed' });
        expect(await ledger()).toBe(rowsBefore + 1);
      } finally {
        await db.end();
      }
    }, 20_000);
  });

  describe('CAPTCHA', () => {
    async function tenantWithSolver(key: string): Promise<string> {
      return (await platform.createTenant({ captcha_solver: { endpoint: solver.endpoint, key } })).api_key;
    }

    it('solves a challenge with the tenant’s solver and answers the page behind it', async () => {
      const answer = await fetchApi({ url: web.url('captcha.test', '/') }, {}, await tenantWithSolver(FAKE_SOLVER_KEY));
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(CAPTCHA_PROTECTED_TEXT);
    });

    it('answers REQS006 when the solver refuses the key and RESP006 when it fails', async () => {
      expectProblem(await fetchApi({ url: web.url('captcha.test', '/') }, {}, await tenantWithSolver('not-a-valid-key')), 400, 'REQS006');
      expectProblem(
        await fetchApi({ url: web.url('captcha.test', '/unsolvable') }, {}, await tenantWithSolver(FAKE_SOLVER_KEY)),
        424,
        'RESP006',
      );
    });
  });

  it('writes one ledger row per billed request, at the tier that served', async () => {
    const db = new Client({ connectionString: platform.databaseUrl });
    await db.connect();
    try {
      const count = async () =>
        (await db.query(`SELECT count(*)::int AS n FROM credit_ledger WHERE tenant_id = $1`, [tenantId])).rows[0].n as number;
      const before = await count();
      // The free one first: charges reach the ledger in batches, in order, so once the billed one's
      // row is there, a row for the free one would be too.
      const free = await fetchApi({ url: web.url('echo.test', '/status/500') });
      const billed = await fetchApi({ url: web.url('echo.test', '/html') });
      expect([credits(billed), credits(free)]).toEqual([1, 0]);
      await waitFor(async () => (await count()) > before, { what: 'the billed request to reach the ledger' });
      expect((await count()) - before).toBe(1);
      const last = await db.query(`SELECT credits, tier FROM credit_ledger WHERE tenant_id = $1 ORDER BY id DESC LIMIT 1`, [tenantId]);
      expect(last.rows[0]).toEqual({ credits: 1, tier: 'basic' });
    } finally {
      await db.end();
    }
  });
});
