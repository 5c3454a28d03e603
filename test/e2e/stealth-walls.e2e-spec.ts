import type { FixtureWeb } from '../fixtures/web';
import { AKAMAI_DENIED_PATH, BOT_WALL_PATH, BOT_WALLS, type BotWallName } from '../fixtures/web/sites/bot-walls';
import { callFetchApi, creditsOf } from '../support/fetch-api-call';
import type { Platform } from '../support/platform';
import { tiersPlatform } from '../support/tiers-platform.test-support';

/**
 * The interstitials of the common anti-bot services (issue 29, point 4), through the public Fetch
 * API: each is recognised as a block, never billed, and `mode=auto` escalates past it to the browser,
 * which passes its JavaScript check.
 */
describe('Anti-bot walls (e2e)', () => {
  const tiers = tiersPlatform('stealth-walls', ['gateway', 'fetch-worker']);
  let web: FixtureWeb;
  let platform: Platform;
  let apiKey: string;

  beforeAll(async () => {
    ({ web, platform } = tiers);
    apiKey = (await platform.createTenant()).api_key;
  });

  const fetchApi = (params: Record<string, string>) => callFetchApi(platform, apiKey, params);
  const credits = creditsOf;
  const walls = Object.keys(BOT_WALLS) as BotWallName[];

  it.each(walls)('answers REQS002, free, when the basic tier meets the %s wall', async (name) => {
    const wall = BOT_WALLS[name];
    const answer = await fetchApi({ url: web.url(wall.host, BOT_WALL_PATH) });
    expect([answer.status, JSON.parse(answer.text).code, credits(answer)]).toEqual([400, 'REQS002', 0]);
    expect(answer.text).not.toContain(wall.text);
  });

  it.each(walls)('with mode=auto, escalates past the %s wall to the browser and bills only js_render', async (name) => {
    const wall = BOT_WALLS[name];
    web.resetHits();
    const answer = await fetchApi({ url: web.url(wall.host, BOT_WALL_PATH), mode: 'auto' });
    expect([answer.status, credits(answer)]).toEqual([200, 5]);
    expect(answer.text).toContain(wall.text);
    // The basic attempt met the wall, the browser met it too, then reloaded with the cookie its script set.
    expect(web.hits(wall.host, BOT_WALL_PATH)).toBe(3);
  }, 60_000);

  it('with mode=auto, answers a wall no tier passes with REQS002, free', async () => {
    const answer = await fetchApi({ url: web.url(BOT_WALLS.akamai.host, AKAMAI_DENIED_PATH), mode: 'auto' });
    expect([answer.status, JSON.parse(answer.text).code, credits(answer)]).toEqual([400, 'REQS002', 0]);
  }, 60_000);
});
