import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import type { JsInstructionV1 } from '@trawl/contracts';
import { waitFor } from '@trawl/testing';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { EgressProxy, type UpstreamChooser } from '../src/egress-proxy';
import { BrowserErrorCode } from '../src/browser/browser.errors';
import { BrowserPool } from '../src/browser/browser-pool';
import { renderPage, type RenderInput, type RenderOptions } from '../src/browser/render-page';
import { testIdentity } from '../src/identity/identity.test-support';

jest.setTimeout(60_000);

const NO_OPTIONS: RenderOptions = { json_response: false };

describe(renderPage.name, () => {
  let web: FixtureWeb;
  let proxy: EgressProxy;
  let pool: BrowserPool;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }), connectTimeoutMs: 2_000 });
    pool = new BrowserPool({ proxy, browsers: 1, pagesPerBrowser: 4 });
    await pool.start();
  });
  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    await web?.close();
  });
  beforeEach(() => web.resetHits());

  function render(
    url: string,
    options: Partial<RenderOptions> = {},
    rest: Partial<RenderInput> = {},
    upstream?: UpstreamChooser,
    { reuseKey, loadGraceMs = 3_000 }: { reuseKey?: string; loadGraceMs?: number } = {},
  ) {
    const deadlineAt = Date.now() + 30_000;
    return pool.withPage({ deadlineAt, upstream, reuseKey }, (lease) =>
      renderPage(
        lease,
        { url, method: 'GET', headers: {}, options: { ...NO_OPTIONS, ...options }, deadlineAt, identity: testIdentity(), ...rest },
        { stepTimeoutMs: 2_000, loadGraceMs },
      ),
    );
  }

  it('answers the DOM after JavaScript ran, with status and final URL', async () => {
    const page = await render(web.url('js.test', '/'));
    expect(page.html).toContain('<h2 id="rendered">Rendered by JavaScript</h2>');
    expect(page).toMatchObject({
      status: 200,
      finalUrl: web.url('js.test', '/'),
      redirectChain: [],
      contentType: 'text/html; charset=utf-8',
    });
    expect(page.egress.bytesReceived).toBeGreaterThan(0);
  });

  describe('the load event', () => {
    // Twice with one key: the second render runs in the first one's parked page, whose old
    // document must not pass for the new one. What the load event wrote is there after the grace
    // too, so a render that saw the event is told apart by its time: well under a long grace, with
    // room for a busy machine (the image that holds the event up answers after 400 ms).
    const waitsForLoad = { reuseKey: 'load-tests', loadGraceMs: 15_000 };
    const seenWithin = 7_500;

    it('waits for it: what the page wrote on load, after a slow image, is in the DOM', async () => {
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        const page = await render(web.url('js.test', '/onload'), {}, {}, undefined, waitsForLoad);
        expect(page.html).toContain('<p id="loaded">loaded</p>');
        expect(Date.now() - started).toBeLessThan(seenWithin);
        await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
      }
      expect(pool.stats().reused).toBeGreaterThan(0);
    });

    it('loads a new document when the URL differs from the last one by a #fragment only', async () => {
      for (const fragment of ['#top', '#top', '#other']) {
        const started = Date.now();
        const page = await render(web.url('js.test', `/onload${fragment}`), {}, {}, undefined, waitsForLoad);
        expect(page.html).toContain('<p id="loaded">loaded</p>');
        expect(Date.now() - started).toBeLessThan(seenWithin);
        await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
      }
    });

    it('waits for the document a script replaced this one with', async () => {
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        const page = await render(web.url('js.test', '/script-redirect'), {}, {}, undefined, waitsForLoad);
        expect(page.finalUrl).toBe(web.url('js.test', '/onload'));
        expect(page.html).toContain('<p id="loaded">loaded</p>');
        expect(Date.now() - started).toBeLessThan(seenWithin);
        await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
      }
    });

    it('takes the DOM as it is when the page never loads, once the grace (3 s) is over', async () => {
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        const page = await render(web.url('js.test', '/never-loads'), {}, {}, undefined, { reuseKey: waitsForLoad.reuseKey });
        expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
        expect(page.html).toContain('<p id="ready">DOM ready</p>');
        expect(page.html).not.toContain('id="loaded"');
        await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
      }
    });
  });

  it('keeps the bytes of a document that is not HTML', async () => {
    const page = await render(web.url('js.test', '/api/items'));
    expect(page.contentType).toBe('application/json');
    expect(page.body?.toString('utf8')).toBe('{"items":["a","b"]}');
    expect((await render(web.url('js.test', '/'))).body).toBeUndefined();
  });

  it('follows redirects and reports the chain, the final headers and the cookies', async () => {
    const page = await render(web.url('js.test', '/redirect'));
    expect(page.finalUrl).toBe(web.url('js.test', '/cookie'));
    expect(page.redirectChain).toEqual([web.url('js.test', '/redirect'), web.url('js.test', '/redirect/2')]);
    expect(page.headers['x-custom']).toBe('yes');
    expect(page.cookies).toEqual([expect.objectContaining({ name: 'session', value: 'abc123', httpOnly: true })]);
  });

  it('sends the first navigation as a POST with the body and the caller headers', async () => {
    const page = await render(
      web.url('echo.test', '/echo'),
      {},
      {
        method: 'POST',
        body: Buffer.from('a=1&b=two'),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-caller': 'kept', host: 'evil.test' },
      },
    );
    const echoed = JSON.parse(/\{.*\}/s.exec(page.html.replace(/&amp;/g, '&').replace(/&quot;/g, '"'))![0]);
    expect(echoed).toMatchObject({
      method: 'POST',
      body: 'a=1&b=two',
      headers: { 'x-caller': 'kept', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(echoed.headers.host).toBe(`echo.test:${web.port}`);
  });

  it('sends a POST body that is not UTF-8 byte for byte', async () => {
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x00, 0xff, 0x80]);
    const page = await render(
      web.url('echo.test', '/echo'),
      {},
      { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } },
    );
    const echoed = JSON.parse(/\{.*\}/s.exec(page.html.replace(/&amp;/g, '&').replace(/&quot;/g, '"'))![0]);
    expect(Buffer.from(echoed.body_base64, 'base64')).toEqual(bytes);
  });

  it('waits for a selector and for a time', async () => {
    const page = await render(web.url('js.test', '/late'), { wait_for: '#late' });
    expect(page.waitForFound).toBe(true);
    expect(page.html).toContain('Arrived late');
    const missing = await render(web.url('js.test', '/late'), { wait_for: '#never' });
    expect(missing.waitForFound).toBe(false);
    const started = Date.now();
    const waited = await render(web.url('js.test', '/late'), { wait: 800 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    expect(waited.html).toContain('Arrived late');
  });

  it('runs js_instructions in order, in the page and in an iframe, reporting a failed step and going on', async () => {
    const instructions: JsInstructionV1[] = [
      { fill: ['#name', 'Ada'] },
      { check: '#agree' },
      { uncheck: '#news' },
      { select_option: ['#color', 'green'] },
      { click: '#nope' },
      { click: '//button[@id="go"]' },
      { wait_for: '//p[@id="out" and text()]' },
      { frame_fill: ['#inner', '#fname', 'inside'] },
      { frame_check: ['#inner', '#fbox'] },
      { frame_select_option: ['#inner', '#fsel', 'b'] },
      { frame_click: ['#inner', '#fgo'] },
      { frame_wait_for: ['#inner', '#fout:not(:empty)'] },
      // frame_click scrolled the iframe into view: start from the top so the scroll is measurable.
      { evaluate: 'window.scrollTo(0, 0)' },
      { scroll_y: 500 },
      { scroll_x: 40 },
      { wait: 50 },
      { wait_event: 'networkidle' },
      { evaluate: "document.body.dataset.frame = document.getElementById('inner').contentDocument.getElementById('fout').textContent" },
      { evaluate: 'document.body.dataset.scroll = window.scrollX + "," + window.scrollY' },
      { frame_evaluate: ['#inner', "parent.document.body.dataset.fromFrame = 'yes'"] },
    ];
    const page = await render(web.url('js.test', '/form'), { js_instructions: instructions });
    expect(page.html).toContain('<p id="out">Ada|true|false|green</p>');
    expect(page.html).toContain('data-frame="inside|true|b"');
    expect(page.html).toContain('data-scroll="40,500"');
    expect(page.html).toContain('data-from-frame="yes"');
    const report = page.instructionsReport!;
    expect(report).toMatchObject({
      instructions_executed: instructions.length,
      instructions_succeeded: instructions.length - 1,
      instructions_failed: 1,
    });
    expect(report.instructions.map((step) => step.success)).toEqual(instructions.map((_, i) => i !== 4));
    expect(report.instructions[4]).toMatchObject({ instruction: 'click', params: '#nope', success: false });
    expect(report.instructions[4].duration).toBeGreaterThanOrEqual(1_900);
  });

  it('waits a js_instructions wait out in full, past the step timeout (2 s here)', async () => {
    const page = await render(web.url('js.test', '/'), { js_instructions: [{ wait: 2_600 }] });
    const [step] = page.instructionsReport!.instructions;
    expect(step).toMatchObject({ instruction: 'wait', success: true });
    expect(step.duration).toBeGreaterThanOrEqual(2_500);
  });

  it('fails at once a wait that would not leave time to take the page, and goes on', async () => {
    // 30 s to the deadline, of which the capture keeps a DevTools call's time (10 s).
    const page = await render(web.url('js.test', '/'), { js_instructions: [{ wait: 25_000 }, { wait: 100 }] });
    const [long, short] = page.instructionsReport!.instructions;
    expect(long).toMatchObject({ instruction: 'wait', success: false });
    expect(long.duration).toBeLessThan(1_000);
    expect(short).toMatchObject({ instruction: 'wait', success: true });
    expect(page.status).toBe(200);
  });

  it('captures XHR and fetch calls for json_response', async () => {
    const page = await render(web.url('js.test', '/xhr'), { json_response: true, js_instructions: [{ wait_for: '//li[2]' }] });
    const items = page.xhr!.find((call) => call.url.endsWith('/api/items?page=1'));
    expect(items).toMatchObject({ method: 'GET', status_code: 200, body: '{"items":["a","b"]}', headers: { 'x-api': 'items' } });
    expect(items!.request_headers['x-probe']).toBe('xhr');
    const echo = page.xhr!.find((call) => call.url.endsWith('/api/echo'));
    expect(echo).toMatchObject({ method: 'POST', status_code: 200, body: '{"ok":true}' });
    expect(page.xhr).toHaveLength(2);
  });

  it('reports every call for json_response when one never finishes loading, without waiting it out', async () => {
    const started = Date.now();
    const page = await render(web.url('js.test', '/xhr-poll'), { json_response: true, js_instructions: [{ wait_for: '#calls li' }] });
    expect(page.xhr!.find((call) => call.url.endsWith('/api/items?page=2'))).toMatchObject({
      status_code: 200,
      body: '{"items":["a","b"]}',
    });
    // The poll's headers are known; its body never ends, so it is reported empty.
    expect(page.xhr!.find((call) => call.url.endsWith('/api/poll'))).toMatchObject({
      status_code: 200,
      body: '',
      headers: { 'content-type': 'text/event-stream' },
    });
    // Not the 10 s a DevTools call may take: the poll had a second's grace, no more.
    expect(Date.now() - started).toBeLessThan(9_000);
  });

  it('blocks the resource types of block_resources and loads them otherwise', async () => {
    const assets = ['/assets/pixel.png', '/assets/style.css', '/assets/app.js'];
    const loaded = await render(web.url('js.test', '/assets'));
    expect(assets.map((path) => web.hits('js.test', path))).toEqual([1, 1, 1]);
    expect(loaded.html).toContain('<title>Assets (script ran)</title>');
    web.resetHits();
    const blocked = await render(web.url('js.test', '/assets'), { block_resources: ['image', 'stylesheet', 'script', 'font'] });
    expect(assets.map((path) => web.hits('js.test', path))).toEqual([0, 0, 0]);
    expect(web.hits('js.test', '/assets/font.woff2')).toBe(0);
    expect(blocked.html).toContain('<title>Assets</title>');
  });

  it('refuses sub-resources on loopback and private addresses through the egress proxy', async () => {
    const page = await render(web.url('js.test', '/egress'), { wait_for: '//title[text()="Egress refused"]' });
    expect(page.status).toBe(200);
    expect(page.waitForFound).toBe(true);
    expect(web.hits('localhost') + web.hits('127.0.0.1')).toBe(0);
    const refused = page.egress.failures.map((failure) => `${failure.host} ${failure.code}`);
    expect(refused).toEqual(expect.arrayContaining(['localhost blocked_address', '10.0.0.1 blocked_address', '127.0.0.1 blocked_address']));
  });

  it('fails with typed errors when the page itself is refused or does not resolve', async () => {
    await expect(render(`http://localhost:${web.port}/secret`)).rejects.toMatchObject({ code: BrowserErrorCode.EgressRefused });
    await expect(render('https://10.0.0.1/')).rejects.toMatchObject({ code: BrowserErrorCode.EgressRefused });
    await expect(render('http://no-such-host.invalid/')).rejects.toMatchObject({ code: BrowserErrorCode.DnsFailure });
    expect(web.hits('localhost')).toBe(0);
  });

  it('takes viewport, full-page and element screenshots, and PDFs', async () => {
    const url = web.url('js.test', '/form');
    const viewport = await render(url, { screenshot: { fullpage: false, format: 'png' }, window_width: 800, window_height: 600 });
    expect(viewport.screenshot).toMatchObject({ type: 'png', width: 800, height: 600 });
    const full = await render(url, { screenshot: { fullpage: true, format: 'jpeg', quality: 40 }, window_width: 800, window_height: 600 });
    expect(full.screenshot!.type).toBe('jpeg');
    expect(full.screenshot!.data.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(full.screenshot!.height).toBeGreaterThan(3_000);
    const element = await render(url, { screenshot: { fullpage: false, format: 'png', selector: '#go' } });
    expect(element.screenshot!.width).toBeLessThan(200);
    await expect(render(url, { screenshot: { fullpage: false, format: 'png', selector: '#none' } })).rejects.toMatchObject({
      code: BrowserErrorCode.ScreenshotFailed,
    });
    const pdf = await render(url, { response_type: 'pdf' });
    expect(pdf.pdf!.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it("emulates a mobile device: the phone identity's agent and screen", async () => {
    const phone = testIdentity({ device: 'mobile' });
    const page = await render(
      web.url('js.test', '/'),
      {
        device: 'mobile',
        js_instructions: [
          { evaluate: 'document.body.dataset.ua = navigator.userAgent; document.body.dataset.w = String(window.screen.width)' },
        ],
      },
      { identity: phone },
    );
    expect(page.html).toContain(`data-ua="${phone.userAgent}"`);
    expect(phone.userAgent).toContain('Mobile Safari');
    // A page without a viewport meta lays out at 980 CSS pixels on a phone; the screen is the device's.
    expect(page.html).toContain(`data-w="${phone.window.innerWidth}"`);
  });

  it('routes the page through the upstream proxy chosen for its context', async () => {
    const upstream = await startUpstreamProxy();
    try {
      const page = await render(web.url('js.test', '/'), {}, {}, () => `http://127.0.0.1:${upstream.port}`);
      expect(page.html).toContain('Rendered by JavaScript');
      expect(upstream.seen).toContain(`127.0.0.1:${web.port}`);
      expect(page.egress.upstreamRequests).toBeGreaterThan(0);
    } finally {
      upstream.server.closeAllConnections();
      upstream.server.close();
    }
  });
});

/** A minimal CONNECT-only upstream proxy recording the authorities it was asked for. */
async function startUpstreamProxy(): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const target = connect({ host, port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    target.on('error', () => client.destroy());
    client.on('error', () => target.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}
