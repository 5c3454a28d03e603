import { waitFor } from '@trawl/testing';
import type { FixtureWeb } from '../fixtures/web';
import { AKAMAI_DENIED_PATH, BOT_WALL_PATH, BOT_WALLS, type BotWallName } from '../fixtures/web/sites/bot-walls';
import { EchoedRequest } from '../fixtures/web/sites/echo';
import { STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../fixtures/web/sites/stealth';
import { callFetchApi, creditsOf, type FetchAnswer } from '../support/fetch-api-call';
import type { Platform } from '../support/platform';
import { descendantsOf, stillAlive } from '../support/process-tree';
import { tiersPlatform } from '../support/tiers-platform.test-support';

/**
 * Fetch API tiers end to end: real Chromium in the worker, fixture forward proxies as the standard
 * and premium pools, and the credits each tier costs (basic 1, js_render 5, premium 10, both 25;
 * `mode=auto` bills only the tier that passed).
 */
describe('Fetch API tiers (e2e)', () => {
  const tiers = tiersPlatform('fetch-tiers', ['gateway', 'fetch-worker']);
  let web: FixtureWeb;
  let platform: Platform;
  let apiKey: string;

  beforeAll(async () => {
    ({ web, platform } = tiers);
    apiKey = (await platform.createTenant()).api_key;
  });

  const fetchApi = (params: Record<string, string>) => callFetchApi(platform, apiKey, params);
  const credits = creditsOf;
  const via = (answer: FetchAnswer) => (JSON.parse(answer.text) as EchoedRequest).headers['x-fixture-via'];

  it('bills basic 1 and premium_proxy 10 credits, through the standard and premium pools', async () => {
    const basic = await fetchApi({ url: web.url('echo.test', '/echo') });
    expect([basic.status, credits(basic), via(basic)]).toEqual([200, 1, 'standard']);
    const premium = await fetchApi({ url: web.url('echo.test', '/echo'), premium_proxy: 'true' });
    expect([premium.status, credits(premium), via(premium)]).toEqual([200, 10, 'premium-a']);
  });

  it('renders with js_render for 5 credits', async () => {
    const answer = await fetchApi({ url: web.url('js.test', '/'), js_render: 'true' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('Rendered by JavaScript');
    expect(credits(answer)).toBe(5);
  }, 30_000);

  it('renders through the premium pool with js_render and premium_proxy for 25 credits', async () => {
    const answer = await fetchApi({ url: web.url('needs-both.test', STEALTH_GUARDED_PATH), js_render: 'true', premium_proxy: 'true' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(STEALTH_TEXTS.needsBoth);
    expect(credits(answer)).toBe(25);
  }, 30_000);

  it('runs js_instructions and answers json_response with the report, the XHR calls and a screenshot', async () => {
    const answer = await fetchApi({
      url: web.url('js.test', '/xhr'),
      js_render: 'true',
      json_response: 'true',
      screenshot: 'true',
      // Both calls answered (each adds an <li>) before the step that fails: a busy machine answers them late.
      js_instructions: JSON.stringify([{ wait_for: '#calls li:nth-child(2)' }, { evaluate: 'throw new Error("step fails")' }]),
    });
    expect(answer.status).toBe(200);
    const json = JSON.parse(answer.text) as {
      html: string;
      xhr: { url: string; status_code: number }[];
      js_instructions_report: { instructions_executed: number; instructions_succeeded: number; instructions_failed: number };
      screenshot: { data: string; type: string; width: number; height: number };
    };
    expect(json.xhr.map((call) => new URL(call.url).pathname)).toEqual(expect.arrayContaining(['/api/items', '/api/echo']));
    expect(json.js_instructions_report).toMatchObject({ instructions_executed: 2, instructions_succeeded: 1, instructions_failed: 1 });
    expect(json.screenshot).toMatchObject({ type: 'image/png', width: expect.any(Number), height: expect.any(Number) });
    expect(Buffer.from(json.screenshot.data, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  }, 30_000);

  it('answers a screenshot as the image itself', async () => {
    const answer = await fetchApi({ url: web.url('js.test', '/'), js_render: 'true', screenshot: 'true', screenshot_format: 'jpeg' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/jpeg');
    expect(answer.bytes.subarray(0, 2).toString('hex')).toBe('ffd8');
  }, 30_000);

  it('with mode=auto, escalates to the tier that passes, bills only it, and starts there next time', async () => {
    const url = web.url('needs-premium.test', STEALTH_GUARDED_PATH);
    web.resetHits();
    const first = await fetchApi({ url, mode: 'auto' });
    expect(first.status).toBe(200);
    expect(first.text).toContain(STEALTH_TEXTS.needsPremium);
    expect(credits(first)).toBe(10);
    const firstHits = web.hits('needs-premium.test', STEALTH_GUARDED_PATH);
    expect(firstHits).toBeGreaterThanOrEqual(3);
    const second = await fetchApi({ url, mode: 'auto' });
    expect(credits(second)).toBe(10);
    expect(web.hits('needs-premium.test', STEALTH_GUARDED_PATH) - firstHits).toBe(1);
  }, 60_000);

  it('with mode=auto, renders a page that is empty without JavaScript, for 5 credits', async () => {
    const answer = await fetchApi({ url: web.url('needs-js.test', '/'), mode: 'auto' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`<div id="root"><h1>Catalogue</h1><p id="content">${STEALTH_TEXTS.needsJs}</p>`);
    expect(credits(answer)).toBe(5);
  }, 60_000);

  it('with mode=auto, goes all the way to premium js_render for 25 credits', async () => {
    const answer = await fetchApi({ url: web.url('needs-both.test', STEALTH_GUARDED_PATH), mode: 'auto' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(STEALTH_TEXTS.needsBoth);
    expect(credits(answer)).toBe(25);
  }, 60_000);

  it('answers REQS004 naming proxy_country when no premium pool serves that country', async () => {
    const answer = await fetchApi({ url: web.url('echo.test', '/echo'), premium_proxy: 'true', proxy_country: 'fr' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'REQS004', detail: expect.stringContaining('proxy_country fr') });
    expect(credits(answer)).toBe(0);
  });

  it('answers response_type=pdf as a PDF', async () => {
    const answer = await fetchApi({ url: web.url('js.test', '/'), js_render: 'true', response_type: 'pdf' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(answer.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(credits(answer)).toBe(5);
  }, 30_000);

  it('answers REQS002, free, when the asked tier meets a block it cannot pass', async () => {
    const answer = await fetchApi({ url: web.url('needs-premium.test', STEALTH_GUARDED_PATH) });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'REQS002' });
    expect(credits(answer)).toBe(0);
  });

  /**
   * The interstitials of the common anti-bot services (issue 29, point 4): each is recognised as a
   * block, never billed, and mode=auto escalates past it to the browser, which passes its JavaScript check.
   */
  describe('anti-bot walls', () => {
    const walls = Object.keys(BOT_WALLS) as BotWallName[];

    it.each(walls)('answers REQS002, free, when the basic tier meets the %s wall', async (name) => {
      const wall = BOT_WALLS[name];
      const answer = await fetchApi({ url: web.url(wall.host, BOT_WALL_PATH) });
      expect([answer.status, JSON.parse(answer.text).code, credits(answer)]).toEqual([400, 'REQS002', 0]);
      expect(answer.text).not.toContain(wall.text);
    });

    it.each(walls)(
      'with mode=auto, escalates past the %s wall to the browser and bills only js_render',
      async (name) => {
        const wall = BOT_WALLS[name];
        web.resetHits();
        const answer = await fetchApi({ url: web.url(wall.host, BOT_WALL_PATH), mode: 'auto' });
        expect([answer.status, credits(answer)]).toEqual([200, 5]);
        expect(answer.text).toContain(wall.text);
        // The basic attempt met the wall, the browser met it too, then reloaded with the cookie its script set.
        expect(web.hits(wall.host, BOT_WALL_PATH)).toBe(3);
      },
      60_000,
    );

    it('with mode=auto, answers a wall no tier passes with REQS002, free', async () => {
      const answer = await fetchApi({ url: web.url(BOT_WALLS.akamai.host, AKAMAI_DENIED_PATH), mode: 'auto' });
      expect([answer.status, JSON.parse(answer.text).code, credits(answer)]).toEqual([400, 'REQS002', 0]);
    }, 60_000);
  });

  // Last: it kills the worker (and starts another).
  it('leaves no Chromium running when its worker is killed without a chance to close it', async () => {
    expect((await fetchApi({ url: web.url('js.test', '/'), js_render: 'true' })).status).toBe(200);
    const workerPid = platform.pid('fetch-worker');
    if (workerPid === undefined) throw new Error('no fetch worker running');
    const browsers = descendantsOf(workerPid).filter((process) => process.command.includes('chromium'));
    expect(browsers.length).toBeGreaterThan(0);

    await platform.kill('fetch-worker');
    try {
      const pids = browsers.map((browser) => browser.pid);
      await waitFor(() => stillAlive(pids).length === 0, {
        timeoutMs: 10_000,
        intervalMs: 100,
        what: "the dead worker's Chromium processes to end",
      });
    } finally {
      await platform.startService('fetch-worker');
    }
    expect((await fetchApi({ url: web.url('js.test', '/'), js_render: 'true' })).status).toBe(200);
  }, 60_000);
});
