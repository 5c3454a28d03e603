import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { callFetchApi } from '../support/fetch-api-call';
import { Platform } from '../support/platform';

/**
 * `change_tracking`, end to end: each answer compared with the tenant's last version of the URL,
 * on changing.test, a fixture site the test rewrites between fetches. Only the public API.
 */
describe('Change tracking (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let keys: [string, string];

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('change-tracking', { hostMap: fixtureHostMap(), services: ['gateway', 'fetch-worker'] });
    await platform.start();
    const [a, b] = await Promise.all([platform.createTenant(), platform.createTenant()]);
    keys = [a.api_key, b.api_key];
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  const tracked = (key: string, path: string, extra: Record<string, string> = {}) =>
    callFetchApi(platform, key, { url: web.url('changing.test', path), change_tracking: 'true', ...extra });

  it('says new, then same, then changed with a diff of the Markdown text, each against the last version', async () => {
    web.setChangingPage('/news', { title: 'News', paragraphs: ['Prices are stable.', 'Shop opens at nine.'] });
    const first = await tracked(keys[0], '/news');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-trawl-change-status')).toBe('new');
    expect(first.headers.get('x-trawl-previous-fetched-at')).toBeNull();

    const second = await tracked(keys[0], '/news');
    expect(second.headers.get('x-trawl-change-status')).toBe('same');
    const previousAt = Date.parse(second.headers.get('x-trawl-previous-fetched-at') ?? '');
    expect(Date.now() - previousAt).toBeLessThan(60_000);

    web.setChangingPage('/news', { title: 'News', paragraphs: ['Prices went up.', 'Shop opens at nine.'] });
    const third = await tracked(keys[0], '/news', { json_response: 'true' });
    expect(third.headers.get('x-trawl-change-status')).toBe('changed');
    const body = JSON.parse(third.text);
    expect(body.html).toContain('Prices went up.');
    expect(body.change_tracking).toMatchObject({ status: 'changed', previous_fetched_at: expect.any(String) });
    expect(body.change_tracking.diff).toContain('-Prices are stable.');
    expect(body.change_tracking.diff).toContain('+Prices went up.');
    expect(body.change_tracking.diff).not.toContain('-Shop opens at nine.');
  }, 60_000);

  it('says removed when the page is gone, and new when it comes back', async () => {
    web.setChangingPage('/offer', { title: 'Offer', paragraphs: ['Two for one.'] });
    await tracked(keys[0], '/offer');
    web.setChangingPage('/offer', 'gone');
    const gone = await tracked(keys[0], '/offer');
    expect(gone.status).toBe(404);
    expect(gone.headers.get('x-trawl-change-status')).toBe('removed');
    const stillGone = await tracked(keys[0], '/offer');
    expect(stillGone.headers.get('x-trawl-change-status')).toBe('same');
    web.setChangingPage('/offer', { title: 'Offer', paragraphs: ['Three for two.'] });
    expect((await tracked(keys[0], '/offer')).headers.get('x-trawl-change-status')).toBe('new');
  }, 60_000);

  it("keeps each tenant's versions apart, and leaves them alone for requests without change_tracking", async () => {
    web.setChangingPage('/prices', { title: 'Prices', paragraphs: ['Tea: 3 EUR.'] });
    await tracked(keys[0], '/prices');
    expect((await tracked(keys[1], '/prices')).headers.get('x-trawl-change-status')).toBe('new');
    web.setChangingPage('/prices', { title: 'Prices', paragraphs: ['Tea: 4 EUR.'] });
    const untracked = await callFetchApi(platform, keys[0], { url: web.url('changing.test', '/prices') });
    expect(untracked.status).toBe(200);
    expect(untracked.headers.get('x-trawl-change-status')).toBeNull();
    // Compared with the last tracked version, not with the untracked fetch in between.
    expect((await tracked(keys[0], '/prices')).headers.get('x-trawl-change-status')).toBe('changed');
  }, 60_000);
});
