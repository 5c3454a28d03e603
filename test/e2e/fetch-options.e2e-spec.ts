import { BROWSER_UI_HEIGHT, DESKTOP_SCREENS, SCREEN_BAR_HEIGHT } from '../../apps/fetch-worker/src/identity';
import { closeAll, FixtureProxy, startFixtureProxies } from '../fixtures/proxies';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { EchoedRequest } from '../fixtures/web/sites/echo';
import { JS_DELAYED, JS_SHOT } from '../fixtures/web/sites/js-render';
import { OUTPUTS_PAGE } from '../fixtures/web/sites/outputs';
import { Platform } from '../support/platform';
import { checkedFetch } from '../support/api-document';

interface FetchAnswer {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
}

/** The proxies of the standard pool, rotated round-robin by the worker. */
const STANDARD = ['standard-1', 'standard-2', 'standard-3'] as const;
/** Browser requests in this suite finish in seconds; a stuck one fails its test, not the run. */
const RENDER_TIMEOUT_MS = 45_000;

/**
 * Fetch API options end to end: the gateway and a fetch worker (real Chromium) as processes, the
 * fixture web and fixture forward proxies as the upstream pools, and only the public API. What each
 * option does is proven by what a user sees: the page the browser saw, the image bytes, the hits on
 * the fixture web, and which fixture proxy stamped the request.
 */
describe('Fetch API options (e2e)', () => {
  let web: FixtureWeb;
  let proxies: Record<string, FixtureProxy>;
  let platform: Platform;
  let apiKey: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxies = await startFixtureProxies([...STANDARD, 'premium-a', 'premium-de', 'premium-us']);
    platform = new Platform('fetch-options', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'fetch-worker'],
      env: {
        // Proxy mode has suites of its own; its fixed port would clash with suites running beside.
        gateway: { PROXY_MODE_ENABLED: 'false' },
        'fetch-worker': {
          BROWSERS: '1',
          PAGES_PER_BROWSER: '6',
          PROXY_POOLS: [
            `standard=${STANDARD.map((name) => proxies[name].url).join('|')}`,
            `premium=${proxies['premium-a'].url}`,
            `premium.de=${proxies['premium-de'].url}`,
            `premium.us=${proxies['premium-us'].url}`,
          ].join(';'),
        },
      },
    });
    await platform.start();
    apiKey = (await platform.createTenant()).api_key;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await closeAll(proxies ?? {});
    await web?.close();
  }, 60_000);

  /** One Fetch API call with `params` as the query (with `apikey`), as the SDKs send it. */
  async function fetchApi(params: Record<string, string>, key = apiKey): Promise<FetchAnswer> {
    const res = await checkedFetch(`${platform.gatewayUrl}/v1/?${new URLSearchParams({ apikey: key, ...params }).toString()}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, text: bytes.toString('utf8'), bytes };
  }
  const credits = (answer: FetchAnswer) => Number(answer.headers.get('x-request-credits'));
  /** The fixture proxy an `/echo` answer went through. */
  const via = (answer: FetchAnswer) => (JSON.parse(answer.text) as EchoedRequest).headers['x-fixture-via'];
  /** Text of the `<p>` with this id in a rendered page (scripts, which may spell it, left out). */
  const textOf = (answer: FetchAnswer, id: string) =>
    new RegExp(`<p id="${id}"[^>]*>([^<]*)</p>`).exec(answer.text.replace(/<script\b[\s\S]*?<\/script>/g, ''))?.[1];
  const rendered = (params: Record<string, string>, key = apiKey) => fetchApi({ js_render: 'true', ...params }, key);
  /** The key of a new tenant: its rendering requests get fresh browser pages, never one parked after serving an earlier request. */
  const freshTenant = async () => (await platform.createTenant()).api_key;

  function expectOk(...answers: FetchAnswer[]): void {
    expect(answers.map((answer) => (answer.status === 200 ? 200 : `${answer.status} ${answer.text.slice(0, 300)}`))).toEqual(
      answers.map(() => 200),
    );
  }

  describe('block_resources', () => {
    it(
      'does not fetch the blocked images and scripts, and fetches the rest',
      async () => {
        const assets = ['/assets/pixel.png', '/assets/app.js', '/assets/style.css'];
        const hits = () => assets.map((path) => web.hits('js.test', path));
        // Blocked first: nothing the browser could have cached yet.
        const before = hits();
        const blocked = await rendered({ url: web.url('js.test', '/assets'), block_resources: 'image,script' });
        expectOk(blocked);
        const afterBlocked = hits();
        expect(afterBlocked.map((n, i) => n - before[i])).toEqual([0, 0, 1]);
        // The script never ran: the title it sets is not there.
        expect(blocked.text).toContain('<title>Assets</title>');

        const loaded = await rendered({ url: web.url('js.test', '/assets') });
        expectOk(loaded);
        expect(hits().map((n, i) => n - afterBlocked[i])).toEqual([1, 1, 1]);
        expect(loaded.text).toContain('<title>Assets (script ran)</title>');
      },
      RENDER_TIMEOUT_MS,
    );
  });

  describe('session_id', () => {
    it(
      'keeps one upstream proxy for the same session_id, across tiers, while other requests rotate',
      async () => {
        const url = web.url('echo.test', '/echo/session');
        const sticky: string[] = [];
        const rotating: string[] = [];
        // One after the other: the standard pool rotates per request, so the order is the test.
        for (const jsRender of [false, true, false]) {
          const inSession = await fetchApi({ url, session_id: '4242', ...(jsRender && { js_render: 'true' }) });
          const outside = await fetchApi({ url });
          expectOk(inSession, outside);
          sticky.push(via(inSession));
          rotating.push(via(outside));
        }
        expect(sticky).toEqual([sticky[0], sticky[0], sticky[0]]);
        expect(STANDARD).toContain(sticky[0]);
        expect(new Set(rotating)).toEqual(new Set(STANDARD));
      },
      RENDER_TIMEOUT_MS,
    );
  });

  describe('proxy_country', () => {
    it('goes through the premium pool of the country asked, for premium credits', async () => {
      const url = web.url('echo.test', '/echo/country');
      const [de, us, anyCountry] = await Promise.all([
        fetchApi({ url, premium_proxy: 'true', proxy_country: 'de' }),
        fetchApi({ url, premium_proxy: 'true', proxy_country: 'US' }),
        fetchApi({ url, premium_proxy: 'true' }),
      ]);
      expectOk(de, us, anyCountry);
      expect([de, us, anyCountry].map((answer) => [via(answer), credits(answer)])).toEqual([
        ['premium-de', 10],
        ['premium-us', 10],
        ['premium-a', 10],
      ]);
    });
  });

  describe('wait and wait_for', () => {
    it(
      'answers content that appears late only when told to wait for it',
      async () => {
        // Late enough that a loaded page is surely answered before it (a busy machine included).
        const delayMs = 3_000;
        const url = web.url('js.test', `/delayed?ms=${delayMs}`);
        const [plain, forCss, forXpath, waited] = await Promise.all([
          rendered({ url }),
          rendered({ url, wait_for: '#delayed' }),
          rendered({ url, wait_for: '//p[@id="delayed"]' }),
          rendered({ url, wait: String(delayMs + 1_000) }),
        ]);
        expectOk(plain, forCss, forXpath, waited);
        // Without waiting the page is taken as soon as it loaded, before the content arrives.
        expect(plain.text).toContain('<div id="slot">waiting</div>');
        expect(textOf(plain, 'delayed')).toBeUndefined();
        for (const answer of [forCss, forXpath, waited]) expect(textOf(answer, 'delayed')).toBe(JS_DELAYED.text);
      },
      RENDER_TIMEOUT_MS,
    );

    it(
      'waits at least `wait` milliseconds',
      async () => {
        const started = Date.now();
        const answer = await rendered({ url: web.url('js.test', '/'), wait: '2000' });
        expectOk(answer);
        expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      },
      RENDER_TIMEOUT_MS,
    );
  });

  describe('screenshots', () => {
    const url = () => web.url('js.test', '/shot');
    const windowSize = { window_width: '800', window_height: '600' };

    it(
      'answers the viewport (screenshot), the whole page (screenshot_fullpage) and one element (screenshot_selector) as PNG',
      async () => {
        const key = await freshTenant();
        const [viewport, fullpage, element] = await Promise.all([
          rendered({ url: url(), ...windowSize, screenshot: 'true' }, key),
          rendered({ url: url(), ...windowSize, screenshot_fullpage: 'true' }, key),
          rendered({ url: url(), ...windowSize, screenshot_selector: '#box' }, key),
        ]);
        expectOk(viewport, fullpage, element);
        for (const answer of [viewport, fullpage, element]) expect(answer.headers.get('content-type')).toBe('image/png');
        expect(imageOf(viewport.bytes)).toEqual({ type: 'png', width: 800, height: 600 });
        expect(imageOf(fullpage.bytes)).toEqual({ type: 'png', width: 800, height: JS_SHOT.pageHeight });
        expect(imageOf(element.bytes)).toEqual({ type: 'png', width: JS_SHOT.boxWidth, height: JS_SHOT.boxHeight });
        expect(credits(element)).toBe(5);
      },
      RENDER_TIMEOUT_MS,
    );

    it(
      'answers a JPEG with screenshot_format=jpeg, coarser and smaller at a low screenshot_quality',
      async () => {
        const [low, high, fullpage] = await Promise.all([
          rendered({ url: url(), ...windowSize, screenshot: 'true', screenshot_format: 'jpeg', screenshot_quality: '10' }),
          rendered({ url: url(), ...windowSize, screenshot: 'true', screenshot_format: 'jpeg', screenshot_quality: '95' }),
          rendered({ url: url(), ...windowSize, screenshot_fullpage: 'true', screenshot_format: 'jpeg' }),
        ]);
        expectOk(low, high, fullpage);
        for (const answer of [low, high, fullpage]) expect(answer.headers.get('content-type')).toBe('image/jpeg');
        expect(imageOf(low.bytes)).toEqual({ type: 'jpeg', width: 800, height: 600 });
        expect(imageOf(high.bytes)).toEqual({ type: 'jpeg', width: 800, height: 600 });
        expect(imageOf(fullpage.bytes)).toEqual({ type: 'jpeg', width: 800, height: JS_SHOT.pageHeight });
        // The encoder's quantisation step is what the quality sets: larger steps, fewer bytes.
        expect(jpegDcQuantizer(low.bytes)).toBeGreaterThan(jpegDcQuantizer(high.bytes));
        expect(low.bytes.length).toBeLessThan(high.bytes.length);
      },
      RENDER_TIMEOUT_MS,
    );
  });

  describe('device, window_width and window_height', () => {
    it(
      'renders at the viewport and with the user agent the page is told of',
      async () => {
        const url = web.url('js.test', '/viewport');
        const [desktop, mobile, sized, mobileSized] = await Promise.all([
          rendered({ url }),
          rendered({ url, device: 'mobile' }),
          rendered({ url, window_width: '1024', window_height: '700' }),
          rendered({ url, device: 'mobile', window_width: '412', window_height: '900' }),
        ]);
        expectOk(desktop, mobile, sized, mobileSized);
        const [desktopSize, mobileSize, ...sizes] = [desktop, mobile, sized, mobileSized].map((answer) => textOf(answer, 'viewport'));
        expect(sizes).toEqual(['1024x700', '412x900']);
        // Without a size, the page is its identity's maximised window: a desktop screen less the
        // taskbar and Chrome's own bar; a phone's screen less its bars.
        const windows = DESKTOP_SCREENS.map(({ width, height }) => `${width}x${height - SCREEN_BAR_HEIGHT - BROWSER_UI_HEIGHT}`);
        expect(windows).toContain(desktopSize);
        const [phoneWidth, phoneHeight] = (mobileSize ?? '').split('x').map(Number);
        expect([phoneWidth >= 320 && phoneWidth <= 480, phoneHeight > phoneWidth]).toEqual([true, true]);
        const userAgents = [desktop, mobile, sized, mobileSized].map((answer) => textOf(answer, 'ua') ?? '');
        expect(userAgents[0]).toMatch(/Chrome\/\d+/);
        expect(userAgents[0]).not.toMatch(/Mobile|Android|HeadlessChrome/);
        expect(userAgents[1]).toMatch(/Android.*Chrome\/\d+.*Mobile Safari/);
        expect(userAgents[3]).toBe(userAgents[1]);
      },
      RENDER_TIMEOUT_MS,
    );

    it('sends a phone’s user agent for device=mobile without js_render too', async () => {
      const answer = await fetchApi({ url: web.url('echo.test', '/echo/device'), device: 'mobile' });
      expectOk(answer);
      expect((JSON.parse(answer.text) as EchoedRequest).headers['user-agent']).toMatch(/Android.*Mobile/);
      expect(credits(answer)).toBe(1);
    });
  });

  describe('js_instructions', () => {
    it(
      'fills, checks, unchecks, selects and clicks in the page, waits for an event and a selector, and reports a failed step and goes on',
      async () => {
        const instructions = [
          { fill: ['#name', 'Ada'] },
          { check: '#agree' },
          { uncheck: '#news' },
          { select_option: ['#color', 'green'] },
          { click: '#nope' },
          { click: '#go' },
          { wait_event: 'networkidle' },
          { wait_for: '#out:not(:empty)' },
        ];
        const answer = await rendered(
          { url: web.url('js.test', '/form'), json_response: 'true', js_instructions: JSON.stringify(instructions) },
          await freshTenant(),
        );
        expectOk(answer);
        const json = JSON.parse(answer.text) as {
          html: string;
          js_instructions_report: {
            instructions_executed: number;
            instructions_succeeded: number;
            instructions_failed: number;
            instructions: { instruction: string; success: boolean }[];
          };
        };
        expect(json.html).toContain('<p id="out">Ada|true|false|green</p>');
        expect(json.js_instructions_report).toMatchObject({ instructions_executed: 8, instructions_succeeded: 7, instructions_failed: 1 });
        expect(json.js_instructions_report.instructions.map((step) => [step.instruction, step.success])).toEqual(
          instructions.map((step, i) => [Object.keys(step)[0], i !== 4]),
        );
      },
      RENDER_TIMEOUT_MS,
    );

    it(
      'runs frame_* steps inside the iframe named by its selector',
      async () => {
        const instructions = [
          { frame_fill: ['#inner', '#fname', 'inside'] },
          { frame_check: ['#inner', '#fbox'] },
          { frame_select_option: ['#inner', '#fsel', 'b'] },
          { frame_click: ['#inner', '#fgo'] },
          { frame_wait_for: ['#inner', '#fout:not(:empty)'] },
          // What the frame shows, copied out to the page the answer holds.
          {
            frame_evaluate: [
              '#inner',
              "parent.document.getElementById('out').textContent = 'frame: ' + document.getElementById('fout').textContent",
            ],
          },
          { frame_uncheck: ['#inner', '#fbox'] },
          { frame_evaluate: ['#inner', "parent.document.body.dataset.box = String(document.getElementById('fbox').checked)"] },
        ];
        const answer = await rendered(
          { url: web.url('js.test', '/form'), json_response: 'true', js_instructions: JSON.stringify(instructions) },
          await freshTenant(),
        );
        expectOk(answer);
        const json = JSON.parse(answer.text) as {
          html: string;
          js_instructions_report: {
            instructions_executed: number;
            instructions_succeeded: number;
            instructions_failed: number;
            instructions: { instruction: string; success: boolean }[];
          };
        };
        expect(json.html).toContain('<p id="out">frame: inside|true|b</p>');
        expect(json.html).toContain('data-box="false"');
        expect(json.js_instructions_report).toMatchObject({ instructions_executed: 8, instructions_succeeded: 8, instructions_failed: 0 });
        expect(json.js_instructions_report.instructions.map((step) => [step.instruction, step.success])).toEqual(
          instructions.map((step) => [Object.keys(step)[0], true]),
        );
      },
      RENDER_TIMEOUT_MS,
    );

    it(
      'scrolls the page with scroll_x and scroll_y',
      async () => {
        const instructions = [{ scroll_y: 600 }, { scroll_x: 250 }, { wait_for: '//p[@id="pos" and text()="250,600"]' }];
        const answer = await rendered(
          { url: web.url('js.test', '/scroll'), js_instructions: JSON.stringify(instructions) },
          await freshTenant(),
        );
        expectOk(answer);
        expect(textOf(answer, 'pos')).toBe('250,600');
      },
      RENDER_TIMEOUT_MS,
    );
  });

  describe('a page reused for the same tenant and route', () => {
    // Parked pages used to be frozen (Page.setWebLifecycleState) and woken for their next request;
    // Chromium left a woken page hidden (no animation frames, no IntersectionObserver: element
    // screenshots and clicks waited out their timeouts). Requests of one tenant through one upstream
    // proxy (pinned by session_id) share the page.
    it('renders in a visible page, where screenshot_selector answers', async () => {
      const key = await freshTenant();
      const session = { session_id: '77' };
      const visibility: (string | undefined)[] = [];
      for (let i = 0; i < 3; i++) {
        const answer = await rendered({ url: web.url('js.test', '/viewport'), ...session }, key);
        expectOk(answer);
        visibility.push(textOf(answer, 'visibility'));
      }
      expect(visibility).toEqual(['visible', 'visible', 'visible']);
      const element = await rendered({ url: web.url('js.test', '/shot'), screenshot_selector: '#box', ...session }, key);
      expectOk(element);
      expect(imageOf(element.bytes)).toEqual({ type: 'png', width: JS_SHOT.boxWidth, height: JS_SHOT.boxHeight });
    }, 90_000);
  });

  describe('autoparse', () => {
    it('is extract=auto by its old name: REQS007 for a domain not prepared, whatever other format is asked', async () => {
      const url = web.url('outputs.test', '/');
      const hitsBefore = web.hits('outputs.test');
      const [aliased, current, withFormats] = await Promise.all([
        fetchApi({ url, autoparse: 'true' }),
        fetchApi({ url, extract: 'auto' }),
        // spec §4 rule 1: extract takes precedence; the other formats are ignored, not refused.
        fetchApi({ url, autoparse: 'true', css_extractor: JSON.stringify({ names: '.product .name' }), json_response: 'true' }),
      ]);
      for (const answer of [aliased, current, withFormats]) {
        expect(answer.status).toBe(403);
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(answer.text)).toMatchObject({
          code: 'REQS007',
          detail: expect.stringContaining('outputs.test'),
          domain: 'outputs.test',
        });
        expect(credits(answer)).toBe(0);
      }
      expect(web.hits('outputs.test')).toBe(hitsBefore);
    });

    it('changes nothing when false', async () => {
      const answer = await fetchApi({ url: web.url('outputs.test', '/'), autoparse: 'false' });
      expectOk(answer);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.text).toContain(OUTPUTS_PAGE.productNames[0]);
    });
  });
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Type and pixel size of a PNG (IHDR) or a JPEG (its start-of-frame segment), read from the bytes. */
function imageOf(bytes: Buffer): { type: 'png' | 'jpeg'; width: number; height: number } | undefined {
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE) && bytes.subarray(12, 16).toString('latin1') === 'IHDR') {
    return { type: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  for (const { marker, at } of jpegSegments(bytes)) {
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { type: 'jpeg', height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
  }
  return undefined;
}

/** The quantisation step of the luminance DC coefficient (first entry of the first DQT table). */
function jpegDcQuantizer(bytes: Buffer): number {
  for (const { marker, at } of jpegSegments(bytes)) {
    if (marker !== 0xdb) continue;
    const precision = bytes[at + 4] >> 4;
    return precision === 0 ? bytes[at + 5] : bytes.readUInt16BE(at + 5);
  }
  throw new Error('no quantisation table in the JPEG');
}

/** The marker segments of a JPEG up to its first scan: each marker and the offset of its 0xFF. */
function* jpegSegments(bytes: Buffer): Generator<{ marker: number; at: number }> {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return;
  let at = 2;
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1];
    yield { marker, at };
    if (marker === 0xda) return;
    at += 2 + bytes.readUInt16BE(at + 2);
  }
}
